"""Batch audits as jobs (issue #38): a worker process outside the caller runs the engine, journal and run store
of `rt4chart batch`; it survives its caller, can be cancelled and resumed, and never writes a secret down."""
from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rt4chart.batch import jobs
from rt4chart.core.config import AuditConfig
from rt4chart.data.records import open_table, records_from_rows, table_records
from rt4chart.judges.spec import JudgeSpec
from rt4chart.store import Store, default_url

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "rag_audit_sample.csv"
MAPPING = {"context": "context", "answer": "answer", "question": "question", "id": "id"}
pytestmark = pytest.mark.slow  # worker processes


def sample_rows(copies: int = 1) -> list[dict]:
    with open(SAMPLE, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [{**r, "id": f"{r['id']}" if n == 0 else f"{r['id']}-{n}"} for n in range(copies) for r in rows]


def new_job(root: Path, rows: list[dict], **options) -> jobs.JobRequest:
    return jobs.create(root, rows, title="logs.csv", run_name="job run", judge=JudgeSpec.make("offline"),
                       config=AuditConfig(), mapping=MAPPING, **options)


def wait_for(root: Path, job_id: str, until, timeout_s: float = 240.0) -> jobs.JobState:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = jobs.state_of(root / job_id)
        if state is not None and until(state):
            return state
        if state is not None and state.status in jobs.FINAL:
            break  # ended without getting there
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not get there: {jobs.state_of(root / job_id)}; "
                         f"log: {(root / job_id / 'log.txt').read_text(errors='replace')[-2000:]}")


def journaled(folder: Path) -> int:
    """Rows the job's journal has committed (what a resumed worker may skip)."""
    if not (folder / "journal.sqlite3").exists():
        return 0
    conn = sqlite3.connect(f"file:{folder / 'journal.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT COUNT(*) FROM journal_rows").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not there yet
        return 0
    finally:
        conn.close()


def paused_mid_run(root: Path, job_id: str, until, timeout_s: float = 120.0) -> tuple[jobs.JobState, int]:
    """Stop the job's worker (SIGSTOP) at a moment `until` holds and rows are still to do: however fast the
    machine, the kill or cancel that follows lands mid-run. The state then, and the stopped worker's pid."""
    folder = root / job_id
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = jobs.state_of(folder)
        if state is not None and state.status == "running" and until(state):
            pid = json.loads((folder / "launched").read_text())["pid"]
            os.kill(pid, signal.SIGSTOP)
            state = jobs.state_of(folder)
            if state is not None and state.status == "running" and state.done < state.total and until(state):
                return state, pid
            os.kill(pid, signal.SIGCONT)
        if state is not None and state.status in jobs.FINAL:
            break
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} was not caught mid-run: {jobs.state_of(folder)}")


def test_the_rows_a_job_audits_are_the_records_the_page_read(tmp_path):
    rows = sample_rows()
    request = new_job(tmp_path, rows)
    from_page = list(records_from_rows(rows, MAPPING, "logs.csv", columns=list(rows[0])))
    from_job = list(table_records(open_table(str(tmp_path / request.id / "input.jsonl")), MAPPING))
    assert [(r.id, r.context, r.answer, r.question, r.row) for r in from_job] == \
        [(r.id, r.context, r.answer, r.question, r.row) for r in from_page]


def test_a_job_runs_in_its_own_process_and_keeps_its_run(tmp_path):
    rows = sample_rows()
    request = new_job(tmp_path, rows)
    jobs.launch(tmp_path / request.id)
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    assert state.status == "done", state.message
    assert (state.done, state.total) == (len(rows), len(rows))
    lines = [json.loads(x) for x in (tmp_path / request.id / "output.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == [r["id"] for r in rows]  # rows in == rows out, same ids, same order
    run = Store(default_url()).get_run(state.run_id)
    assert (run.status, run.rows, run.name, run.source) == ("complete", len(rows), "job run", "logs.csv")
    assert jobs.list_jobs(tmp_path)[0].request.id == request.id


def test_a_killed_worker_is_interrupted_and_resumes_from_its_journal(tmp_path):
    rows = sample_rows(copies=300)
    request = new_job(tmp_path, rows)
    folder = tmp_path / request.id
    jobs.launch(folder)
    # past the store's first batch of 200 rows: a row counts as done once it is journaled and stored
    _, pid = paused_mid_run(tmp_path, request.id, lambda s: s.done > 0 and journaled(folder) >= 400)
    before_kill = journaled(folder)
    os.kill(pid, signal.SIGKILL)
    killed = wait_for(tmp_path, request.id, lambda s: s.status in ("interrupted", "starting") and not
                      jobs.lock_is_held(folder), timeout_s=30)
    assert 0 < before_kill < len(rows) and killed.done < len(rows)
    (folder / "launched").write_text(json.dumps({"at": 0, "count": 1}))  # as after a restart, past the grace
    assert jobs.state_of(folder).status == "interrupted"
    assert jobs.resume_interrupted(tmp_path) == [request.id]
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    assert state.status == "done", state.message
    assert 0 < state.extra["first_done"] <= before_kill  # the rows journaled before the kill were not audited again
    lines = (folder / "output.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == [r["id"] for r in rows]
    assert Store(default_url()).get_run(state.run_id).rows == len(rows)


def cancel_mid_run(root: Path, job_id: str, until) -> jobs.JobState:
    """Cancel the job while rows are still to do; its state once it has ended."""
    _, pid = paused_mid_run(root, job_id, until)
    jobs.cancel(root / job_id)  # the SIGTERM waits for the worker to go on
    os.kill(pid, signal.SIGCONT)
    return wait_for(root, job_id, lambda s: s.status in jobs.FINAL, timeout_s=60)


def test_a_cancelled_job_keeps_its_rows_and_launched_again_completes_the_same_run(tmp_path):
    rows = sample_rows(copies=300)
    request = new_job(tmp_path, rows)
    folder = tmp_path / request.id
    jobs.launch(folder)
    cancelled = cancel_mid_run(tmp_path, request.id, lambda s: s.done >= 5)
    assert cancelled.status == "cancelled" and cancelled.run_id, cancelled.message
    deadline = time.monotonic() + 10  # the worker writes its result, then ends; its audit processes end with it
    while jobs.lock_is_held(folder) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not jobs.lock_is_held(folder)
    store = Store(default_url())
    run = store.get_run(cancelled.run_id)
    assert run.status == "cancelled" and 0 < run.rows < len(rows)
    jobs.launch(folder)
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    assert (state.status, state.run_id) == ("done", cancelled.run_id)
    assert store.get_run(state.run_id).rows == len(rows)
    # the stop stored every row it journaled but the one in flight: what the page says was taken is what was stored
    assert run.rows - 1 <= state.extra["first_done"] <= run.rows


def test_a_stop_signal_inside_a_reports_serialisation_cancels_the_job_between_rows(tmp_path, monkeypatch):
    """Cancel sends SIGTERM beside the cancel file. Raised from the signal handler at whatever the worker was doing,
    the stop broke into a report's serialisation (the job ended 'failed': an internal error) or a store write (the
    flush on the way out then waited on the abandoned transaction's lock: a job stuck 'running'). The handler only
    asks; the job stops between two rows and keeps what it audited."""
    import rt4chart.core.types as types

    monkeypatch.setattr(os, "cpu_count", lambda: 1)  # one worker: the rows are serialised in this process
    request = new_job(tmp_path, sample_rows(copies=3))
    calls = [0]
    real = types.unfolded

    def signalled(*args, **kwargs):  # the 10th serialisation of a cost receives the stop, as a cancel's would
        calls[0] += 1
        if calls[0] == 10:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(*args, **kwargs)

    monkeypatch.setattr(types, "unfolded", signalled)
    before = signal.getsignal(signal.SIGTERM)
    try:
        assert jobs.work(tmp_path / request.id) == 0  # the worker, in this process
    finally:
        signal.signal(signal.SIGTERM, before)
    state = jobs.state_of(tmp_path / request.id)
    assert state.status == "cancelled", state.message
    run = Store(default_url()).get_run(state.run_id)
    assert run.status == "cancelled" and 0 < run.rows < 3 * 20


def test_a_resumed_job_says_it_took_only_the_rows_the_store_holds(tmp_path):
    """A journaled row the store lost is audited again, and the count of rows taken as stored says so."""
    from sqlalchemy import delete

    from rt4chart.store.schema import run_rows

    rows = sample_rows(copies=300)
    request = new_job(tmp_path, rows)
    folder = tmp_path / request.id
    jobs.launch(folder)
    cancelled = cancel_mid_run(tmp_path, request.id, lambda s: s.done >= 50)
    assert cancelled.status == "cancelled" and cancelled.run_id, cancelled.message
    store = Store(default_url())
    assert store.get_run(cancelled.run_id).rows > 10
    with store.engine.begin() as conn:  # the journal now holds rows the store does not
        conn.execute(delete(run_rows).where(run_rows.c.run_id == cancelled.run_id, run_rows.c.position >= 10))
    jobs.launch(folder)
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    assert (state.status, state.extra["first_done"]) == ("done", 10)
    assert store.get_run(state.run_id).rows == len(rows)


def test_a_second_worker_beside_a_live_one_leaves_the_job_alone(tmp_path):
    request = new_job(tmp_path, sample_rows(copies=300))
    folder = tmp_path / request.id
    jobs.launch(folder)
    _, pid = paused_mid_run(tmp_path, request.id, lambda s: True)  # alive, holding its lock, rows to do
    try:
        second = subprocess.run([sys.executable, "-m", "rt4chart.batch.jobs", str(folder)], capture_output=True,
                                timeout=60)
    finally:
        jobs.cancel(folder)
        os.kill(pid, signal.SIGCONT)
    assert second.returncode == 3
    assert wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL, timeout_s=60).status == "cancelled"


def test_a_worker_answers_a_cancel_from_the_moment_it_holds_the_lock(tmp_path, monkeypatch):
    """A cancel sends SIGTERM as soon as it sees the lock held: the worker's handler must already be there (a SIGTERM
    between the two killed the worker with no result, and the job was left 'interrupted' instead of 'cancelled')."""
    request = new_job(tmp_path, sample_rows()[:2])
    seen = []

    def lock_taken(_folder):
        seen.append(signal.getsignal(signal.SIGTERM))
        return None  # another worker holds it: work() returns before running anything

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(jobs, "_take_lock", lock_taken)
    try:
        assert jobs.work(tmp_path / request.id) == 3
    finally:
        signal.signal(signal.SIGTERM, before)
    assert len(seen) == 1 and callable(seen[0]) and seen[0] not in (signal.SIG_DFL, signal.SIG_IGN)


def test_a_stop_that_lands_after_the_last_row_leaves_the_stored_run_complete(tmp_path):
    """Cancel can reach a worker that has just stored its last row: the run it completed stays complete."""
    rows = sample_rows()
    request = new_job(tmp_path, rows)
    jobs.launch(tmp_path / request.id)
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    store = Store(default_url())
    store.mark_cancelled(state.run_id)
    assert (store.get_run(state.run_id).status, store.get_run(state.run_id).rows) == ("complete", len(rows))


def test_the_api_key_reaches_the_worker_but_is_written_nowhere(tmp_path):
    key = "sk-job-secret-9876543210"
    request = jobs.create(tmp_path, sample_rows()[:2], title="t", run_name="r",
                          judge=JudgeSpec.make("openai", {"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                                          "max_attempts": 1, "timeout_s": 2}),
                          config=AuditConfig(), mapping=MAPPING, needs_key=True)
    folder = tmp_path / request.id
    assert jobs.resume_interrupted(tmp_path) == []  # a job that needs a key waits for one
    jobs.launch(folder, api_key=key)
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    assert state.status in ("done", "failed")  # nothing listens on port 9: the rows end unverified or it stops
    for path in [*folder.iterdir(), *Path(os.environ["RT4CHART_DATA_DIR"]).rglob("*")]:
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def test_a_job_whose_input_cannot_be_audited_fails_in_one_line(tmp_path):
    request = jobs.create(tmp_path, [{"text": "no context column"}], title="t", run_name="r",
                          judge=JudgeSpec.make("offline"), config=AuditConfig(),
                          mapping={"context": "context", "answer": "answer"})
    jobs.launch(tmp_path / request.id)
    state = wait_for(tmp_path, request.id, lambda s: s.status in jobs.FINAL)
    assert state.status == "failed" and "\n" not in state.message and "context" in state.message
    assert "Traceback" not in (tmp_path / request.id / "log.txt").read_text()


def test_a_folder_that_is_not_a_job_is_skipped(tmp_path):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "job.json").write_text("{not json")
    assert jobs.list_jobs(tmp_path) == [] and jobs.state_of(tmp_path / "junk") is None
