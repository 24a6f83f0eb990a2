"""Reliability: LLM faults, resumable batches after SIGKILL, and secrets that never leak."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rt4chart.batch.run import run_batch
from rt4chart.judges.cache import MemoCache
from rt4chart.judges.factory import make_judge

from .fakes import wait_for_journal_rows
from .fault_server import FaultServer

pytestmark = pytest.mark.slow  # killed processes, fault servers, large inputs

ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk-rt4chart-FAKE-KEY-7f3a9c1e5b"


def write_rows(path: Path, n: int, sentences: int = 3) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            context = " ".join(f"Item {i} fact {k}: the gauge reads {i * 7 + k} units." for k in range(sentences))
            f.write(json.dumps({"id": f"r{i}", "context": context,
                                "answer": f"The gauge reads {i * 7} units. It was built in {1900 + i}."}) + "\n")


@pytest.fixture
def faulty():
    server = FaultServer(rate=0.10, seed=11, slow_s=1.5).start()
    yield server
    server.stop()


def test_a_200_row_batch_with_10_percent_faults_completes_and_loses_nothing(faulty, tmp_path):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(source, 200)
    judge = make_judge("openai", base_url=faulty.url, api_key=SECRET, model="fault-test", timeout_s=0.5,
                       max_attempts=4, use_cache=False, max_concurrency=8)
    started = time.perf_counter()
    summary = run_batch(str(source), str(out), judge, workers=8)
    assert time.perf_counter() - started < 120
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == [f"r{i}" for i in range(200)]  # none lost, none duplicated, in order
    assert summary.rows == 200 and summary.audited == 200
    for line in lines:
        assert line["status"] in ("faithful", "hallucinated", "unverified", "error")
        if line["status"] == "unverified":
            assert any(c["verdict"] == "unverified" for c in line["claims"])
    assert all(faulty.stats[f] > 0 for f in ("429", "500", "slow", "garbage", "truncated", "reset")), faulty.stats
    calls_per_row = 3  # decomposition, one window, global: every context here fits one window
    assert faulty.stats["requests"] <= 200 * calls_per_row * 4 * 2  # attempts x repair bound
    assert faulty.stats["requests"] < 200 * calls_per_row * 1.5  # in practice close to the plan


def test_a_batch_killed_with_sigkill_resumes_and_equals_an_uninterrupted_run(tmp_path):
    source = tmp_path / "in.jsonl"
    write_rows(source, 2500, sentences=12)
    env = dict(os.environ, RT4CHART_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "rt4chart", "batch", "--judge", "offline", str(source), "--quiet"]
    reference = tmp_path / "reference.jsonl"
    subprocess.run(cmd + ["-o", str(reference), "--no-journal", "--no-cache"], env=env, check=True, timeout=300)

    out = tmp_path / "out.jsonl"
    journal = Path(f"{out}.journal.sqlite3")
    proc = subprocess.Popen(cmd + ["-o", str(out), "--no-cache"], env=env)
    wait_for_journal_rows(journal, 300, lambda: proc.poll() is None)
    assert proc.poll() is None, "the run finished before it could be killed; make the input larger"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not out.exists()
    resumed = subprocess.run(cmd + ["-o", str(out), "--no-cache"], env=env, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed:" in resumed.stderr
    already = int(resumed.stderr.split("resumed: ")[1].split(" ")[0])
    assert already >= 200  # rows both journaled and stored (the store writes in batches of 200)
    assert out.read_text() == reference.read_text()
    from rt4chart.store import Store

    runs = Store().list_runs()  # the reference run and the killed one, resumed into the same stored run
    assert len(runs) == 2 and all(r.status == "complete" and r.rows == 2500 for r in runs)
    assert all(len(Store().stored_positions(r.id)) == 2500 for r in runs)


def test_the_api_key_never_appears_in_any_output(tmp_path, capfd):
    server = FaultServer(rate=0.0).start()
    try:
        source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
        write_rows(source, 5)
        cache = MemoCache(tmp_path / "cache" / "memo.sqlite3")
        judge = make_judge("openai", base_url=server.url, api_key=SECRET, model="m", cache=cache)
        run_batch(str(source), str(out), judge, journal_path=str(tmp_path / "journal.sqlite3"), cache=cache)
        from rt4chart import audit
        from rt4chart.batch.rows import audit_record
        from rt4chart.core.rows import Record
        from rt4chart.reporting.html import report_html
        from rt4chart.reporting.rows import result_row, to_csv, to_jsonl

        report = audit("The gauge reads 7 units.", "The gauge reads 7 units.", judge=judge)
        row = result_row(audit_record(Record("x", report.context, report.answer), judge, None))
        texts = [report.to_json(), report_html(report), to_csv([row]), to_jsonl([row]),
                 json.dumps(judge.settings()), json.dumps(judge.prompt_hashes())]
        files = [p for p in tmp_path.rglob("*") if p.is_file()]
        assert files
        for blob in texts + [p.read_bytes().decode("utf-8", "replace") for p in files]:
            assert SECRET not in blob
        # a rejected key (the server echoes it): the run stops with a message that never holds the key
        from rt4chart.core.errors import JudgeFatalError

        bad = make_judge("openai", base_url=server.url.replace("/v1", "/nothing"), api_key=SECRET, model="m",
                         use_cache=False, max_attempts=1)
        with pytest.raises(JudgeFatalError) as stopped:
            audit("A is 1.", "A is 1.", judge=bad)
        assert "HTTP 401" in str(stopped.value) and SECRET not in str(stopped.value)
        captured = capfd.readouterr()
        assert SECRET not in captured.out and SECRET not in captured.err
    finally:
        server.stop()


def test_a_report_with_a_failed_claim_is_not_served_from_the_report_cache(tmp_path):
    from rt4chart.batch.rows import audit_record
    from rt4chart.core.rows import Record

    from .fakes import FakeOpenAI, default_reply

    def flaky(name, prompt, n):
        if name == "decomposition":
            return default_reply(name, prompt)
        return "{broken" if n < 6 else default_reply(name, prompt)
    fake = FakeOpenAI(flaky)
    from rt4chart.judges.llm.judge import OpenAIJudge
    from rt4chart.judges.llm.openai_client import OpenAIChatClient

    judge = OpenAIJudge(OpenAIChatClient("m", client=fake, sleep=lambda s: None))
    cache = MemoCache(tmp_path / "reports.sqlite3")
    record = Record("r", "A is 1. B is 2.", "A is 1. B is 2.")
    first = audit_record(record, judge, None, cache).report
    assert any(c.verdict.value == "unverified" for c in first.claims)
    second = audit_record(record, judge, None, cache).report
    assert all(c.verdict.value == "entailed" for c in second.claims)
    third = audit_record(record, judge, None, cache).report  # now cached: no new calls
    calls = len(fake.requests)
    assert third.claims == second.claims
    assert len(fake.requests) == calls


def test_a_report_cached_by_another_method_revision_or_segmenter_is_not_served(tmp_path, monkeypatch):
    """An upgrade that changes verdicts (METHOD_REVISION) or another Punkt model must not serve old reports."""
    from rt4chart.batch import rows
    from rt4chart.core.rows import Record
    from rt4chart.judges.offline.judge import OfflineJudge

    record, judge = Record("r", "A is 1. B is 2.", "A is 1."), OfflineJudge()
    now = rows.report_key(record, judge, None)
    monkeypatch.setattr(rows, "METHOD_REVISION", rows.METHOD_REVISION + 1)
    assert rows.report_key(record, judge, None) != now
    monkeypatch.undo()
    monkeypatch.setattr(rows, "segmenter_name", lambda: "another-punkt")
    assert rows.report_key(record, judge, None) != now
