"""One hierarchy of user-facing errors: the CLI says what to fix (exit 2) for those, and reports anything
else as a bug in rt4chart (traceback, exit 70), never as the user's mistake."""
from __future__ import annotations

import pytest

from rt4chart.cli import main as cli
from rt4chart.core.errors import (
    InputError,
    JudgeConfigError,
    JudgeFatalError,
    LLMCallError,
    MissingDependencyError,
    Rt4chartError,
    StoreError,
)
from rt4chart.judges.factory import make_judge


@pytest.mark.parametrize("kind", [InputError, JudgeConfigError, JudgeFatalError, LLMCallError,
                                  MissingDependencyError, StoreError])
def test_every_user_facing_error_is_an_rt4chart_error(kind):
    assert issubclass(kind, Rt4chartError)


def test_a_user_error_is_one_line_and_exit_2(tmp_path, capsys):
    assert cli.main(["predict", "--judge", "offline",
                     str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rt4chart: error: ") and "Traceback" not in err


def test_an_unknown_judge_is_a_configuration_error_that_names_the_choices():
    with pytest.raises(JudgeConfigError, match="choose one of: offline"):
        make_judge("magic")


def test_a_bug_is_reported_as_a_bug_with_its_traceback_and_exit_70(monkeypatch, capsys):
    def broken(_args):
        raise ValueError("an internal invariant broke")  # a ValueError is no longer read as bad input

    real = cli.build_parser

    def parser_with_a_broken_command():
        parser = real()
        parser.set_defaults(func=broken)
        for action in parser._subparsers._group_actions:
            for sub in action.choices.values():
                sub.set_defaults(func=broken)
        return parser

    monkeypatch.setattr(cli, "build_parser", parser_with_a_broken_command)
    assert cli.main(["audit", "--judge", "offline", "--context", "a", "--answer", "b"]) == cli.EXIT_BUG == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "an internal invariant broke" in err and "a bug in rt4chart" in err


@pytest.mark.parametrize("option, value, words", [("--window-size", "0", "window-size: Input should be greater"),
                                                  ("--threshold", "5", "threshold: Input should be less")])
def test_an_invalid_setting_names_the_setting_and_the_value(capsys, option, value, words):
    assert cli.main(["audit", "--judge", "offline", "--context", "a.", "--answer", "b.", option, value]) == 2
    err = capsys.readouterr().err
    assert words in err and f"(got {value}" in err and "pydantic" not in err
