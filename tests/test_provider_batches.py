"""The openai judge through a provider's batch interface: rounds of provider batches on a loopback server that
follows OpenAI's Batch API (tests/batch_server.py), and round files for vLLM's `run_batch`."""
import json

import pytest

from rt4chart.batch.provider.providers import BatchFiles, OpenAIBatchAPI
from rt4chart.batch.provider.run import run_in_rounds
from rt4chart.batch.run import run_batch
from rt4chart.batch.spec import RunSpec
from rt4chart.judges.factory import make_judge
from rt4chart.store import Store

from .batch_server import BatchServer, chat_reply
from .endpoint_server import EndpointServer
from .fakes import flagged_predictions

pytest.importorskip("openai")


def logs(path, rows: int):
    path.write_text("".join(json.dumps({
        "id": f"r{i}", "question": f"How high is dam {i}?",
        "context": f"The dam on river {i} is {40 + i} metres high. It opened in {1900 + i % 90}. "
                   f"It holds {i % 50} million cubic metres. Its turbines make {i % 7 + 1} megawatts.",
        "answer": f"The dam is {40 + i} metres high. It opened in {1901 + i % 90}."}) + "\n" for i in range(rows)))
    return path


def openai_judge(url: str, cache_dir=None):
    return make_judge("openai", base_url=url, api_key="sk-test-key-123456", model="m", use_cache=False,
                      context_tokens=8192, max_attempts=3)


def no_wait(_seconds: float) -> None:
    pass


def rounds(source, out, url, store, **kwargs):
    spec = RunSpec(judge=openai_judge(url), store=store, run_name="rounds")
    return run_in_rounds(str(source), str(out), spec, "batch-api", poll_every_s=0, sleep=no_wait, **kwargs)


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_rounds_through_the_batch_api_give_the_synchronous_predictions_and_store_the_run(tmp_path):
    source = logs(tmp_path / "in.jsonl", 200)
    with EndpointServer("ok") as sync_server:
        run_batch(str(source), str(tmp_path / "sync.jsonl"), openai_judge(sync_server.url))
        sync_requests = sync_server.chat_requests
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    with BatchServer() as server:
        summary, report = rounds(source, tmp_path / "batch.jsonl", server.url, store)
    assert (tmp_path / "batch.jsonl").read_bytes() == (tmp_path / "sync.jsonl").read_bytes()
    assert report.rounds == 3 and report.per_round == [200, 200, 200]  # decompositions, window checks, global
    assert sum(server.lines_received.values()) == sync_requests == report.requests_submitted
    assert max(server.lines_received.values()) == 1  # no request sent twice
    run = store.get_run(summary.run_id)
    assert (run.status, run.rows) == ("complete", 200) and run.manifest["provider"]["rounds"] == 3


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
@pytest.mark.parametrize("kill_in_round", [1, 2, 3])
def test_a_run_killed_in_any_round_resumes_without_submitting_anything_twice(tmp_path, kill_in_round):
    source = logs(tmp_path / "in.jsonl", 40)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")

    class Killed(BaseException):
        pass

    def kill(round_no, progress):
        if round_no == kill_in_round and progress.status == "in_progress":
            raise Killed()

    with BatchServer() as server:
        with pytest.raises(Killed):
            rounds(source, tmp_path / "out.jsonl", server.url, store, on_progress=kill)
        assert not (tmp_path / "out.jsonl").exists()
        batches_before = server.stats["batches"]
        summary, report = rounds(source, tmp_path / "out.jsonl", server.url, store)
        assert max(server.lines_received.values()) == 1  # the killed round's batch was polled, not resubmitted
        assert server.stats["batches"] == 3 and batches_before == kill_in_round
    with EndpointServer("ok") as sync_server:
        run_batch(str(source), str(tmp_path / "sync.jsonl"), openai_judge(sync_server.url))
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "sync.jsonl").read_bytes()
    assert report.rounds == 3 and store.get_run(summary.run_id).rows == 40


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_failed_lines_and_an_expired_batch_are_retried_in_later_rounds_then_unverified_never_a_verdict(tmp_path):
    source = logs(tmp_path / "in.jsonl", 20)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    with BatchServer() as probe:  # which custom ids the decompositions have
        spec = RunSpec(judge=openai_judge(probe.url), store=Store(f"sqlite:///{tmp_path / 'probe.sqlite3'}"))
        run_in_rounds(str(source), str(tmp_path / "probe.jsonl"), spec, "batch-api", poll_every_s=0, sleep=no_wait)
        in_round = {n: sorted(x["custom_id"] for x in probe.batches[f"batch_{n}"]["_lines"]) for n in (1, 3)}
    flaky, broken = in_round[1][0], in_round[3][0]  # a decomposition fails once; a global check always fails
    with BatchServer(error_first={flaky: 1}, always_error=frozenset({broken}), expire_after=15) as server:
        summary, report = rounds(source, tmp_path / "out.jsonl", server.url, store)
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(lines) == 20 and summary.rows == 20
    assert server.lines_received[flaky] == 2  # one error line, retried once in the next round
    assert server.lines_received[broken] == 3  # the retry budget (max_attempts 3), then given up
    failed = [x for x in lines if x["status"] == "unverified"]
    assert len(failed) == 1 and "server had an error" in json.dumps(failed[0])  # never a verdict; the provider's words
    assert report.rounds > 3  # the expired batches' unanswered requests went to later rounds


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_batch_files_for_vllm_run_batch_round_trip_with_the_same_predictions(tmp_path):
    source = logs(tmp_path / "in.jsonl", 30)
    folder = tmp_path / "rounds"
    spec = RunSpec(judge=openai_judge("http://127.0.0.1:9/v1"), store=None)
    from rt4chart.batch.provider.providers import WaitingForRunner

    written = 0
    for _round in range(10):
        try:
            run_in_rounds(str(source), str(tmp_path / "out.jsonl"), spec, "batch-file", batch_dir=str(folder))
            break
        except WaitingForRunner as waiting:
            assert "vllm run_batch -i" in str(waiting)
        for request_file in sorted(folder.glob("*.input.jsonl")):  # what `vllm run_batch` would do
            out = request_file.with_name(request_file.name.replace(".input.", ".output."))
            if not out.exists():
                lines = [json.loads(x) for x in request_file.read_text().splitlines()]
                out.write_text("".join(json.dumps({"id": "x", "custom_id": x["custom_id"], "response": {
                    "status_code": 200, "body": chat_reply(x["body"])}, "error": None}) + "\n" for x in lines))
                written += 1
    with EndpointServer("ok") as sync_server:
        run_batch(str(source), str(tmp_path / "sync.jsonl"), openai_judge(sync_server.url))
    assert written == 3 and (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "sync.jsonl").read_bytes()


def test_a_429_on_create_is_waited_out_and_the_official_client_does_the_http(tmp_path):
    import openai

    with BatchServer(create_429=2) as server:
        waits: list[float] = []
        api = OpenAIBatchAPI(openai.OpenAI(api_key="k", base_url=server.url, max_retries=0), sleep=waits.append,
                             retry_wait_s=1.0)
        handle = api.submit({"rt4-a": {"model": "m", "messages": [{"role": "system", "content": "s"},
                                                                    {"role": "user", "content": "<answer>\nA.\n</answer>"
                                                                     }], "response_format": {"type": "json_schema",
                                                                     "json_schema": {"name": "decomposition",
                                                                                     "schema": {}}}}}, "t")
        assert waits == [1.0, 2.0] and server.stats["429"] == 2 and server.stats["batches"] == 1
        while not api.progress(handle).terminal:
            pass
        [(custom_id, outcome)] = api.results(handle, ["rt4-a"])
        assert custom_id == "rt4-a" and outcome.status_code == 200


def test_the_cli_runs_in_rounds_and_says_so(tmp_path, capsys):
    from rt4chart.cli.main import main

    source = logs(tmp_path / "in.jsonl", 10)
    with BatchServer() as server:
        code = main(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--judge", "openai", "--base-url",
                     server.url, "--api-key", "sk-test-key-123456", "--model", "m", "--via", "batch-api",
                     "--poll-every", "0", "--context-tokens", "8192", "--no-cache", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "3 rounds; this process submitted 30 requests in 3 provider batches" in err
    assert "completion tokens" in err
    assert "sk-test-key-123456" not in err
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 10
    assert main(["batch", str(source), "-o", str(tmp_path / "o2.jsonl"), "--via", "batch-api"]) == 2
    assert "add --judge openai" in capsys.readouterr().err
    assert BatchFiles(tmp_path).name == "batch-file"


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_dry_run_estimate_is_the_count_the_loopback_server_receives(tmp_path, capsys):
    from rt4chart.cli.main import main

    source = logs(tmp_path / "in.jsonl", 25)
    assert main(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--judge", "openai", "--via", "batch-api",
                 "--dry-run", "--context-tokens", "8192", "--quiet", "--no-store", "--price-in", "1000000"]) == 0
    said = capsys.readouterr().err
    tokens = int(said.split("about ")[1].split(" prompt")[0].replace(",", ""))
    assert f"about {tokens:,}.00 at the batch rate of the --price-in" in said  # a million per million: the count
    planned = int(said.split("would submit ")[1].split(" requests")[0])
    assert not (tmp_path / "out.jsonl").exists() and "nothing was submitted" in said
    with BatchServer() as server:
        rounds(source, tmp_path / "out.jsonl", server.url, Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}"))
    assert planned == sum(server.lines_received.values()) == 75


def test_a_cancel_stops_the_rounds_keeps_what_the_provider_answered_and_sends_nothing_more(tmp_path):
    from rt4chart.store.provider_jobs import JobBook

    source = logs(tmp_path / "in.jsonl", 20)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    book = JobBook(store)

    def cancel_in_round_2(round_no, progress):
        if round_no == 2 and progress.status == "in_progress":
            [job] = book.all()
            assert job.line == "round 2 of 3: in_progress, 0 of 20 requests done"
            book.request_cancel(job.key[:8])

    with BatchServer() as server:
        summary, report = rounds(source, tmp_path / "out.jsonl", server.url, store, on_progress=cancel_in_round_2)
        assert server.stats["cancels"] == 1 and server.stats["batches"] == 2  # no round 3 was submitted
        assert report.cancelled and server.batches["batch_2"]["status"] == "cancelled"
        rounds(source, tmp_path / "again.jsonl", server.url, store)  # the same command again: nothing sent
        assert server.stats["batches"] == 2 and max(server.lines_received.values()) == 1
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(lines) == 20 and summary.rows == 20  # every row written, none lost
    assert all(x["status"] == "unverified" for x in lines)  # their global checks were never sent
    assert all("cancelled before the provider answered" in json.dumps(x) for x in lines)
    assert not any(c["verdict"] == "entailed" for x in lines for c in x["claims"] if c.get("verdict"))
    run = store.get_run(summary.run_id)
    assert (run.status, run.rows, run.unverified) == ("cancelled", 20, 20)
    [job] = book.all()
    assert (job.status, job.run_id) == ("cancelled", run.id)
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "out.jsonl").read_bytes()


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_runs_resume_runs_a_killed_batch_again_from_its_folder_without_its_key(tmp_path, monkeypatch, capsys):
    from rt4chart.cli.main import main
    from rt4chart.store.provider_jobs import JobBook

    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    work = tmp_path / "work"
    work.mkdir()
    logs(work / "in.jsonl", 12)
    monkeypatch.chdir(work)

    class Killed(BaseException):
        pass

    from rt4chart.batch.provider import providers

    real = providers.OpenAIBatchAPI.progress

    def killed_in_round_2(self, handle):
        if handle == "batch_2":
            raise Killed()
        return real(self, handle)

    with BatchServer() as server:
        argv = ["batch", "in.jsonl", "-o", "out.jsonl", "--judge", "openai", "--base-url", server.url,
                "--api-key", "sk-secret-key-777777", "--model", "m", "--via", "batch-api", "--poll-every", "0",
                "--context-tokens", "8192", "--no-cache", "--quiet"]
        monkeypatch.setattr(providers.OpenAIBatchAPI, "progress", killed_in_round_2)
        with pytest.raises(Killed):
            main(argv)
        monkeypatch.setattr(providers.OpenAIBatchAPI, "progress", real)
        [job] = JobBook(Store()).all()
        assert job.status == "waiting" and "sk-secret-key-777777" not in json.dumps(job.argv)
        assert main(["runs", "batches"]) == 0
        listed = capsys.readouterr().out
        assert job.key[:12] in listed and "round 1 of 3: completed" in listed
        monkeypatch.chdir(tmp_path)  # resumed from elsewhere: it runs in the batch's own folder
        monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-key-777777")
        assert main(["runs", "resume", job.key[:10]]) == 0
        assert server.stats["batches"] == 3 and max(server.lines_received.values()) == 1  # nothing sent twice
    err = capsys.readouterr().err
    assert "resuming batch" in err and "sk-secret-key-777777" not in err
    assert len((work / "out.jsonl").read_text().splitlines()) == 12
    [job] = JobBook(Store()).all()
    assert job.status == "done" and Store().get_run(job.run_id).rows == 12
    assert main(["runs", "resume", job.key[:10]]) == 0 and "is done" in capsys.readouterr().out
    assert main(["runs", "cancel", job.key[:10]]) == 2 and "nothing to cancel" in capsys.readouterr().err
    assert main(["runs", "resume", "abc"]) == 2 and "at least the first 6" in capsys.readouterr().err


def test_the_runs_page_lists_rounds_waiting_on_a_provider(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from rt4chart.batch.provider.providers import WaitingForRunner

    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    source = logs(tmp_path / "in.jsonl", 5)
    spec = RunSpec(judge=openai_judge("http://127.0.0.1:9/v1"), store=Store())
    with pytest.raises(WaitingForRunner):
        run_in_rounds(str(source), str(tmp_path / "out.jsonl"), spec, "batch-file", batch_dir=str(tmp_path / "r"))
    at = AppTest.from_file(str(__import__("pathlib").Path(__file__).resolve().parents[1] / "app.py"),
                           default_timeout=60).run()
    at.switch_page("app_pages/runs.py").run()
    assert not at.exception, at.exception
    [waiting] = [df.value for df in at.dataframe if "where it stands" in df.value.columns]
    assert list(waiting["requests in flight"]) == [5] and list(waiting["via"]) == ["batch-file"]
    assert list(waiting["where it stands"]) == ["round 1 of 3: waiting for its runner, 0 of 5 requests done"]
    at.button(key="w.runs.cancel_batch").click().run()
    assert not at.exception, at.exception
    from .test_app import visible_text

    assert "Cancel requested for batch" in visible_text(at)
    [waiting] = [df.value for df in at.dataframe if "where it stands" in df.value.columns]
    assert list(waiting["where it stands"])[0].endswith("(cancel requested)")  # the table drawn after the request
    from rt4chart.store.provider_jobs import JobBook

    [job] = JobBook(Store()).all()
    assert job.cancel_requested
    # the same command again honours it: no runner needed, the rows end unverified
    summary, report = run_in_rounds(str(source), str(tmp_path / "out.jsonl"), spec, "batch-file",
                                    batch_dir=str(tmp_path / "r"))
    assert report.cancelled and summary.rows == 5 and summary.unverified == 5


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_insights_parallel_phase_goes_through_the_batch_api_with_the_synchronous_report(tmp_path, monkeypatch,
                                                                                            capsys):
    from rt4chart.cli.main import main

    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    preds = flagged_predictions(tmp_path / "preds.jsonl", 12)
    common = ["--judge", "openai", "--api-key", "sk-test-key-123456", "--model", "m", "--no-cache",
              "--context-tokens", "8192", "--warmup", "3"]
    with EndpointServer("ok") as sync_server:
        assert main(["insights", str(preds), "-o", str(tmp_path / "sync.json"), "--base-url", sync_server.url,
                     *common]) == 0
    with BatchServer() as server:
        argv = ["insights", str(preds), "-o", str(tmp_path / "batch.json"), "--base-url", server.url, "--via",
                "batch-api", "--poll-every", "0", "--quiet", *common]
        assert main(argv) == 0
        assert server.stats["chat"] == 3 and server.stats["batches"] == 1  # the warm-up, then one round
        assert sum(server.lines_received.values()) == 9  # the 9 rows after the warm-up, one request each
        assert main(argv) == 0 and server.stats["batches"] == 1  # again: collected from the store, not resent
    err = capsys.readouterr().err
    assert "the parallel phase took 1 provider round; this process submitted 9 requests" in err
    sync, batch = (json.loads((tmp_path / f).read_text()) for f in ("sync.json", "batch.json"))
    assert sync["items"] == batch["items"] and sync["items"][0]["rows"] == [f"r{i}" for i in range(12)]
    assert batch["parallel_rows"] == sync["parallel_rows"] == 9


@pytest.mark.slow  # several rounds on the loopback Batch API
@pytest.mark.parametrize("fault, ends", [({"upload_status": [500, 500]}, 0), ({"lost_files": 1}, 0),
                                         ({"fail_batches": True}, 0), ({"create_status": [400]}, 2)])
def test_insights_through_the_batch_api_move_forward_past_a_provider_fault(tmp_path, monkeypatch, capsys, fault, ends):
    """An upload that fails, an output file that is gone, a batch that fails: insights end with a report and the
    same command again sends nothing; a create the provider refuses is one line, exit 2 (was a traceback)."""
    from rt4chart.cli.main import main

    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    preds = flagged_predictions(tmp_path / "preds.jsonl", 8)
    with BatchServer(**fault) as server:
        argv = ["insights", str(preds), "-o", str(tmp_path / "insights.json"), "--base-url", server.url, "--via",
                "batch-api", "--poll-every", "0", "--quiet", "--judge", "openai", "--api-key", "sk-test-key-123456",
                "--model", "m", "--no-cache", "--warmup", "2"]
        assert main(argv) == ends
        if ends == 0:
            batches = server.stats["batches"]
            assert json.loads((tmp_path / "insights.json").read_text())["parallel_rows"] == 6
            assert main(argv) == 0 and server.stats["batches"] == batches  # again: nothing sent
        else:
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and "refused the batch" in err[0]


def test_a_price_table_prices_the_dry_run_for_the_judges_model_and_a_bad_one_is_refused(tmp_path, monkeypatch,
                                                                                     capsys):
    from rt4chart.cli.main import main

    source = logs(tmp_path / "in.jsonl", 4)
    table = tmp_path / "prices.toml"
    table.write_text('[m]\ninput = 1000000\noutput = 0\n["other-model"]\ninput = 5\noutput = 5\n')
    dry = ["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--judge", "openai", "--model", "m", "--via",
           "batch-api", "--dry-run", "--context-tokens", "8192", "--quiet", "--no-store"]
    monkeypatch.setenv("RT4CHART_PRICES", str(table))
    assert main(dry) == 0
    said = capsys.readouterr().err
    tokens = int(said.split("about ")[1].split(" prompt")[0].replace(",", ""))
    assert f"about {tokens:,}.00 at the batch rate of {table} [m]" in said
    assert main([*dry[:7], "other", *dry[8:]]) == 2
    assert "has no entry for model 'other' (it has: m, other-model)" in capsys.readouterr().err
    table.write_text('[m]\ninput = "cheap"\n')
    assert main(dry) == 2 and "'m' needs input and output" in capsys.readouterr().err
    table.write_text('[m\n')
    assert main(dry) == 2 and "is not valid TOML" in capsys.readouterr().err


def _first_round_ids(tmp_path, source) -> list[str]:
    with BatchServer() as probe:
        spec = RunSpec(judge=openai_judge(probe.url), store=Store(f"sqlite:///{tmp_path / 'probe.sqlite3'}"))
        run_in_rounds(str(source), str(tmp_path / "probe.jsonl"), spec, "batch-api", poll_every_s=0, sleep=no_wait)
        return sorted(x["custom_id"] for x in probe.batches["batch_1"]["_lines"])


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_requests_answered_400_cost_only_themselves_and_the_run_goes_on(tmp_path):
    """Before, a 400 line read as "the endpoint refuses rt4chart's requests" and stopped the run for good."""
    source = logs(tmp_path / "in.jsonl", 6)
    refused = _first_round_ids(tmp_path, source)  # every decomposition: each row falls back to the rule splitter
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    with BatchServer(always_error=frozenset(refused), error_status={cid: 400 for cid in refused}) as server:
        summary, _report = rounds(source, tmp_path / "out.jsonl", server.url, store)
        lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
        assert summary.rows == 6 and len(lines) == 6
        assert all(x["status"] in ("faithful", "hallucinated") for x in lines)  # verified from the later rounds
        assert all(server.lines_received[cid] == 1 for cid in refused)  # a refused request is not asked again
        batches = len(server.batches)
        again, _ = rounds(source, tmp_path / "out.jsonl", server.url, store)  # the same command: a no-op
        assert again.rows == 6 and len(server.batches) == batches


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_line_that_is_not_json_costs_only_its_request_which_is_asked_again(tmp_path):
    source = logs(tmp_path / "in.jsonl", 6)
    cut = _first_round_ids(tmp_path, source)[0]
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    with BatchServer(garble=frozenset({cut})) as server:
        summary, _report = rounds(source, tmp_path / "out.jsonl", server.url, store)
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert summary.rows == 6 and all(x["status"] != "unverified" for x in lines)
    assert server.lines_received[cut] == 2  # its line was unreadable: asked once more, in a later round


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_an_upload_failing_with_500_is_retried_and_the_run_completes(tmp_path):
    source = logs(tmp_path / "in.jsonl", 4)
    with BatchServer(upload_status=[500, 500]) as server:
        summary, _ = rounds(source, tmp_path / "out.jsonl", server.url, Store(f"sqlite:///{tmp_path / 'r.sqlite3'}"))
    assert summary.rows == 4 and server.stats["upload_500"] == 2


@pytest.mark.parametrize("fault, said", [({"upload_status": [413]}, "too large"),
                                         pytest.param({"create_status": [500] * 15}, "failed 5 times",  # 5 x 3:
                                                      marks=pytest.mark.slow),  # the SDK retries each twice
                                         ({"create_status": [400]}, "refused the batch")])
def test_a_batch_the_provider_will_not_take_is_one_line_and_leaves_no_file_behind(tmp_path, fault, said):
    from rt4chart.core.errors import JudgeConfigError

    source = logs(tmp_path / "in.jsonl", 4)
    with BatchServer(**fault) as server:
        with pytest.raises(JudgeConfigError, match=said) as caught:
            rounds(source, tmp_path / "out.jsonl", server.url, Store(f"sqlite:///{tmp_path / 'r.sqlite3'}"))
        assert "\n" not in str(caught.value)
        assert not [f for f in server.files if not f.startswith("file-out")]  # every uploaded input file deleted
        assert server.stats["batches"] == 0


def test_an_output_file_that_answers_404_costs_only_a_later_round(tmp_path):
    source = logs(tmp_path / "in.jsonl", 4)
    with BatchServer(lost_files=1) as server:
        summary, report = rounds(source, tmp_path / "out.jsonl", server.url, Store(f"sqlite:///{tmp_path / 'r.sqlite3'}"))
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert summary.rows == 4 and all(x["status"] != "unverified" for x in lines)
    assert server.stats["lost"] == 1


def test_a_kill_between_create_and_its_reply_never_submits_the_round_twice(tmp_path, monkeypatch):
    source = logs(tmp_path / "in.jsonl", 6)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")

    class Killed(BaseException):
        pass

    real = OpenAIBatchAPI.submit

    def created_then_killed(self, requests, label):
        real(self, requests, label)  # the provider has the batch; the CLI never hears back
        raise Killed()

    with BatchServer() as server:
        monkeypatch.setattr(OpenAIBatchAPI, "submit", created_then_killed)
        with pytest.raises(Killed):
            rounds(source, tmp_path / "out.jsonl", server.url, store)
        monkeypatch.setattr(OpenAIBatchAPI, "submit", real)
        summary, _ = rounds(source, tmp_path / "out.jsonl", server.url, store)
        assert summary.rows == 6
        assert max(server.lines_received.values()) == 1  # the orphan was found by its label and collected
        assert server.stats["batches"] == 3 and server.stats["lists"] >= 1


def test_a_provider_that_fails_every_batch_is_not_resubmitted_and_every_row_says_why(tmp_path):
    source = logs(tmp_path / "in.jsonl", 6)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    with BatchServer(fail_batches=True) as server:
        summary, report = rounds(source, tmp_path / "out.jsonl", server.url, store)
        again = rounds(source, tmp_path / "again.jsonl", server.url, store)[1]  # the same command: nothing resent
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert server.stats["batches"] == 1 and report.submissions == 1 and again.submissions == 0
    assert len(lines) == 6 and all(x["status"] == "unverified" for x in lines)  # never a verdict
    for line in lines:  # the provider's words, and what was (not) done about them
        said = json.dumps(line)
        assert "not supported by the Batch API" in said and ("not resubmitted" in said or "not sent" in said), said


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_second_process_on_the_same_batch_is_refused_naming_the_holder_and_a_dead_holder_is_taken_over(tmp_path):
    import os
    import socket
    import subprocess
    import sys
    from datetime import datetime, timezone

    from rt4chart.core.errors import InputError
    from rt4chart.store.provider_jobs import JobBook
    from rt4chart.store.schema import provider_leases

    source = logs(tmp_path / "in.jsonl", 4)
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    with BatchServer() as server:
        rounds(source, tmp_path / "out.jsonl", server.url, store)
        key = JobBook(store).all()[0].key
        batches = server.stats["batches"]

        def held_by(pid: int) -> None:
            with store.engine.begin() as conn:
                conn.execute(provider_leases.delete())
                conn.execute(provider_leases.insert().values(batch_key=key, owner="the-other-process", pid=pid,
                                                             host=socket.gethostname(),
                                                             heartbeat=datetime.now(timezone.utc)))

        held_by(os.getppid())  # a live process holds the batch
        with pytest.raises(InputError, match=f"already running in process {os.getppid()}"):
            rounds(source, tmp_path / "twice.jsonl", server.url, store)
        assert server.stats["batches"] == batches and not (tmp_path / "twice.jsonl").exists()
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        held_by(int(gone.stdout))  # its holder has ended: the lease is taken over
        summary, _ = rounds(source, tmp_path / "again.jsonl", server.url, store)
        assert summary.rows == 4 and server.stats["batches"] == batches  # the replies in the store: nothing paid twice
    with store.engine.connect() as conn:
        assert conn.execute(provider_leases.select()).first() is None  # given back at the end


def test_predictions_written_over_their_input_are_refused_before_anything_is_paid(tmp_path):
    """The provider path writes through the same output as every engine: the input file itself is refused before a
    request is sent (it was replaced by the predictions after the rounds were paid)."""
    from rt4chart.core.errors import InputError

    source = logs(tmp_path / "in.jsonl", 4)
    before = source.read_bytes()
    with BatchServer() as server:
        with pytest.raises(InputError, match="is the input file itself"):
            rounds(source, source, server.url, Store(f"sqlite:///{tmp_path / 'r.sqlite3'}"))
        assert server.stats["batches"] == 0 and not server.files
    assert source.read_bytes() == before


def test_a_second_batch_on_the_same_output_file_is_refused_while_the_first_writes_it(tmp_path):
    """One writer per output file for every engine: while a provider run holds its output, another run to it stops."""
    from rt4chart.batch.locks import exclusive_output
    from rt4chart.core.errors import InputError

    source = logs(tmp_path / "in.jsonl", 4)
    with BatchServer() as server, exclusive_output(tmp_path / "out.jsonl"):
        with pytest.raises(InputError, match="being written by another rt4chart run"):
            rounds(source, tmp_path / "out.jsonl", server.url, Store(f"sqlite:///{tmp_path / 'r.sqlite3'}"))
        assert server.stats["batches"] == 0


def test_dash_o_dash_prints_the_rounds_predictions_on_standard_output(tmp_path, monkeypatch, capsys):
    """Issue 38 item 7: `-o -` means standard output for the provider rounds too (their state is in the run store);
    without a store, or for round files without --batch-dir, it is refused in one line saying what to give."""
    from rt4chart.cli.main import main

    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    source = logs(tmp_path / "in.jsonl", 4)
    common = ["--judge", "openai", "--api-key", "sk-test-key-123456", "--model", "m", "--poll-every", "0",
              "--context-tokens", "8192", "--no-cache", "--quiet"]
    with BatchServer() as server:
        assert main(["batch", str(source), "-o", str(tmp_path / "file.jsonl"), "--base-url", server.url,
                     "--via", "batch-api", *common]) == 0
        capsys.readouterr()
        assert main(["batch", str(source), "-o", "-", "--base-url", server.url, "--via", "batch-api",
                     "--run-name", "to stdout", *common]) == 0
    out = capsys.readouterr().out
    assert out == (tmp_path / "file.jsonl").read_text()
    assert not (tmp_path / "-").exists()
    assert main(["batch", str(source), "-o", "-", "--base-url", "http://127.0.0.1:9/v1", "--via", "batch-api",
                 "--no-store", *common]) == 2
    assert "leave out --no-store" in capsys.readouterr().err
    assert main(["batch", str(source), "-o", "-", "--via", "batch-file", *common]) == 2
    assert "needs --batch-dir" in capsys.readouterr().err
