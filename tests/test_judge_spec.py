"""A judge travels as a JudgeSpec (its registered name and options, never a secret) and is rebuilt from it;
the registry is the one list of judges that the CLI, `make_judge` and the engines read."""
from __future__ import annotations

import json
import os

import pytest

from rt4chart.core.errors import JudgeConfigError
from rt4chart.judges import registry
from rt4chart.judges.factory import make_judge
from rt4chart.judges.spec import JudgeSpec, secrets_of

KEY = "sk-test-secret-0123456789"


def test_the_cli_choices_are_the_registered_judges_in_order(capsys):
    from rt4chart.cli.parser import build_parser

    assert registry.judge_names() == ("offline", "model", "hybrid", "openai")
    for name in registry.judge_names():
        assert build_parser().parse_args(["audit", "--context", "c", "--answer", "a", "--judge", name]).judge == name
    with pytest.raises(SystemExit):
        build_parser().parse_args(["audit", "--context", "c", "--answer", "a", "--judge", "oracle"])
    assert "choose from 'offline', 'model', 'hybrid', 'openai'" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["offline", "model", "hybrid"])
def test_a_judge_rebuilt_from_its_spec_has_the_same_settings(name):
    judge = make_judge(name)
    again = JudgeSpec.from_json(JudgeSpec.of(judge).to_json()).build()
    assert (again.name, again.settings()) == (judge.name, judge.settings())


def test_the_openai_judge_travels_without_its_key_and_is_rebuilt_with_it():
    judge = make_judge("openai", base_url="http://127.0.0.1:9/v1", api_key=KEY, model="m")
    spec = JudgeSpec.of(judge)
    assert KEY not in spec.to_json() and KEY not in repr(spec)
    assert secrets_of(judge) == {"api_key": KEY}
    again = spec.build(secrets_of(judge))
    assert again.settings() == judge.settings() and secrets_of(again) == {"api_key": KEY}


def test_a_spec_refuses_a_secret_an_unknown_judge_and_malformed_text():
    with pytest.raises(JudgeConfigError, match="never holds secrets"):
        JudgeSpec.make("openai", {"api_key": KEY})
    with pytest.raises(JudgeConfigError, match="unknown judge 'oracle'"):
        JudgeSpec.make("oracle")
    for text in ("not json", "[]", json.dumps({"kind": "offline", "options": [1]}), json.dumps({"options": {}})):
        with pytest.raises(JudgeConfigError):
            JudgeSpec.from_json(text)


def test_equal_specs_are_equal_values_whatever_the_order_of_their_options():
    a = JudgeSpec.make("offline", {"b": 1, "a": 2})
    b = JudgeSpec.make("offline", {"a": 2, "b": 1})
    assert a == b and hash(a) == hash(b)


@pytest.fixture
def scratch_registration():
    yield "echo-test"
    registry._REGISTRY.pop("echo-test", None)


def test_a_new_judge_is_one_registration(scratch_registration):
    @registry.register(scratch_registration, "the offline judge under another name (test)")
    def _build(**options):
        return make_judge("offline", **options)

    assert scratch_registration in registry.judge_names()
    assert make_judge(scratch_registration).name == "offline"
    with pytest.raises(ValueError, match="already registered"):
        registry.register(scratch_registration, "again")(_build)


def test_a_worker_gives_a_model_judge_its_own_share_of_the_cores_and_nothing_else():
    """Automatic inference threads (0) become the worker's share (never none); a chosen count, a judge without threads
    and a build outside a worker are left as they are."""
    from rt4chart.batch.cores import local_share, within_worker_share

    auto = JudgeSpec.of(make_judge("hybrid"))
    assert auto.options["threads"] == 0
    on_worker = within_worker_share(auto, 1)
    assert on_worker.options == {**auto.options, "threads": 1} and on_worker.kind == "hybrid"
    assert within_worker_share(auto, None) == auto
    chosen = JudgeSpec.make("model", {**JudgeSpec.of(make_judge("model")).options, "threads": 3})
    assert within_worker_share(chosen, 1) == chosen
    offline = JudgeSpec.of(make_judge("offline"))
    assert within_worker_share(offline, 1) == offline
    assert local_share(1) == (os.cpu_count() or 1) and local_share(10 * (os.cpu_count() or 1)) == 1
