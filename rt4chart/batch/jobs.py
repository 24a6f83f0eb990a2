"""Batch audits as jobs: a worker process, outside whoever started it (the app's script run), runs the same
engine, journal and run store as `rt4chart batch`. A job goes on when its page is left, reloaded or closed;
one that was interrupted (the machine or the worker stopped) resumes from its journal when it is launched again.

A job is a folder under `jobs_root()`:
    job.json      what to do: the rows' file, the judge as a JudgeSpec, the settings, the mapping (never a secret)
    input.*       the input: an upload's own bytes under its extension, or rows as JSONL
    output.jsonl  the predictions, once complete
    journal.sqlite3  finished rows  progress.json done / total, updated about twice a second
    lock          held by the one live worker (flock): a job is running exactly while its lock is held
    launched      the time and pid of the last launch      cancel   asked to stop
    result.json   how it ended: done (run id), failed (one line) or cancelled
    log.txt       the worker's standard output and error
Secrets (the API key) reach the worker through its environment only.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Optional

from rt4chart.core.config import AuditConfig
from rt4chart.core.defaults import AUTO_WORKERS
from rt4chart.core.errors import InputError, Rt4chartError, first_line
from rt4chart.judges.spec import JudgeSpec

FINAL = ("done", "failed", "cancelled")
STARTING_GRACE_S = 30.0      # a launched worker that has not taken its lock yet is starting, not interrupted
MAX_AUTOMATIC_LAUNCHES = 3   # an interrupted job is resumed by itself at most this often (a worker that keeps dying)
API_KEY_ENV = "RT4CHART_JOB_API_KEY"
LOCK_WAIT_S = 5.0            # a launch right after a worker ended waits this long for it to let go of the lock


class JobCancelled(BaseException):
    """Raised in the worker between two rows when it was asked to stop (SIGTERM or the cancel file); unwinds the
    engine, which stores the rows audited so far. Never raised from the signal handler itself: raised at any
    bytecode, it broke into a store write (the unwinding's flush then waited forever on the abandoned
    transaction's lock) or a report's serialisation (the job ended 'failed' with an internal error)."""


@dataclass(frozen=True)
class JobRequest:
    """What a job does (`job.json`)."""

    id: str
    title: str               # what the user calls the data (the upload's name)
    run_name: str
    judge: JudgeSpec
    config: dict             # AuditConfig's fields
    mapping: dict
    rows: int
    created: float
    needs_key: bool = False  # the judge needs an API key, which is never written down
    input_name: str = "input.jsonl"  # the input file in the job's folder
    delimiter: Optional[str] = None  # how a CSV input is split (None: by extension)

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "judge": json.loads(self.judge.to_json())}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "JobRequest":
        value = json.loads(text)
        value["judge"] = JudgeSpec.from_json(json.dumps(value["judge"]))
        return cls(**value)


@dataclass
class JobState:
    """A job as a reader sees it."""

    request: JobRequest
    folder: Path
    status: str              # starting | running | interrupted | done | failed | cancelled
    done: int = 0
    total: int = 0
    run_id: Optional[str] = None
    message: str = ""
    started: Optional[float] = None
    updated: Optional[float] = None
    launches: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.status in ("starting", "running")

    def eta_s(self) -> Optional[float]:
        """Seconds left at the pace of this launch, once a few rows are done."""
        if not self.started or not self.updated or self.done - self.extra.get("first_done", 0) < 2:
            return None
        pace = (self.updated - self.started) / (self.done - self.extra.get("first_done", 0))
        return max(0.0, pace * (self.total - self.done))


def jobs_root() -> Path:
    """`$RT4CHART_DATA_DIR/jobs`, else the jobs folder in the user data directory (beside the run store)."""
    from platformdirs import user_data_dir

    return Path(os.environ.get("RT4CHART_DATA_DIR") or user_data_dir("rt4chart")) / "jobs"


def _write(path: Path, text: str) -> None:
    """Replace `path` whole (a reader never sees half a file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def lock_is_held(folder: Path) -> bool:
    """Whether a live worker holds the job's lock (probed without keeping it)."""
    try:
        fd = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases a lock this probe took
    return False


def input_bytes(rows: Iterable[dict]) -> bytes:
    """The job's input file for `rows`: one JSON object a line, ASCII (a lone surrogate in a cell travels as its
    escape). Its sha256 is the input part of the job's fingerprint (`batch.run.batch_fingerprint`), so a caller
    can tell before creating a job whether the same batch is already stored."""
    return "".join(json.dumps(row) + "\n" for row in rows).encode("ascii")


@dataclass(frozen=True)
class JobInput:
    """What a job reads: bytes under a name whose extension tells the reader their format, as a file would."""

    name: str
    data: bytes
    delimiter: Optional[str] = None

    @classmethod
    def of_rows(cls, rows: Iterable[dict]) -> "JobInput":
        return cls("input.jsonl", input_bytes(rows))

    @property
    def file_name(self) -> str:
        suffix = Path(self.name).suffix.lower()
        return "input" + (suffix if re.fullmatch(r"\.[a-z0-9]{1,8}", suffix) else "")


def create(root: Path, source: "JobInput | Iterable[dict]", *, title: str, run_name: str, judge: JudgeSpec,
           config: AuditConfig, mapping: Mapping, needs_key: bool = False) -> JobRequest:
    """A new job folder holding its input (an upload's bytes, or rows as JSONL) and what to do with it; not
    launched. Its row count is the reader's, so progress and the stored run agree."""
    from rt4chart.data.records import open_table

    source = source if isinstance(source, JobInput) else JobInput.of_rows(source)
    job_id = uuid.uuid4().hex[:12]
    folder = root / job_id
    folder.mkdir(parents=True, exist_ok=False)
    (folder / source.file_name).write_bytes(source.data)
    count = open_table(str(folder / source.file_name), source.delimiter).count
    request = JobRequest(id=job_id, title=title, run_name=run_name, judge=judge, config=config.model_dump(),
                         mapping=dict(mapping), rows=count, created=time.time(), needs_key=needs_key,
                         input_name=source.file_name, delimiter=source.delimiter)
    _write(folder / "job.json", request.to_json())
    return request


def launch(folder: Path, api_key: Optional[str] = None) -> None:
    """Start a worker on the job in `folder`, in its own session (it outlives the caller). A job that has ended
    cancelled or failed goes on from its journal; a second launch beside a live worker exits at once. A worker
    that has written its result may hold the lock a moment longer while it exits: the launch waits up to
    LOCK_WAIT_S for it, or the new worker would find the lock held and leave the job with no worker."""
    if (folder / "result.json").exists():
        deadline = time.monotonic() + LOCK_WAIT_S
        while lock_is_held(folder) and time.monotonic() < deadline:
            time.sleep(0.05)
    for name in ("result.json", "cancel"):
        (folder / name).unlink(missing_ok=True)
    launches = int(_read_json(folder / "launched").get("count", 0)) + 1
    env = {k: v for k, v in os.environ.items() if k != API_KEY_ENV}
    if api_key:
        env[API_KEY_ENV] = api_key
    with open(folder / "log.txt", "a", encoding="utf-8") as log:
        process = subprocess.Popen([sys.executable, "-m", "rt4chart.batch.jobs", str(folder)], stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                   close_fds=True)
    _write(folder / "launched", json.dumps({"at": time.time(), "pid": process.pid, "count": launches}))


def state_of(folder: Path) -> Optional[JobState]:
    """The job in `folder`, or None when it is not a job (no readable job.json)."""
    try:
        request = JobRequest.from_json((folder / "job.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError, Rt4chartError):
        return None
    progress, result, launched = (_read_json(folder / n) for n in ("progress.json", "result.json", "launched"))
    state = JobState(request, folder, "interrupted", done=int(progress.get("done", 0)),
                     total=int(progress.get("total", request.rows)), run_id=progress.get("run_id"),
                     started=progress.get("started"), updated=progress.get("updated"),
                     launches=int(launched.get("count", 0)), extra={"first_done": int(progress.get("first_done", 0))})
    if result.get("status") in FINAL:
        state.status, state.message = result["status"], str(result.get("message", ""))
        state.run_id = result.get("run_id") or state.run_id
        if isinstance(result.get("resumed"), int):  # exact: the rows run_spec took as they were stored
            state.extra["first_done"] = result["resumed"]
    elif lock_is_held(folder):
        state.status = "running"
    elif time.time() - float(launched.get("at", 0)) < STARTING_GRACE_S:
        state.status = "starting"
    return state


def list_jobs(root: Optional[Path] = None) -> list[JobState]:
    """Every job under `root`, newest first."""
    root = root or jobs_root()
    if not root.is_dir():
        return []
    found = [s for s in (state_of(p) for p in root.iterdir() if p.is_dir()) if s is not None]
    return sorted(found, key=lambda s: s.request.created, reverse=True)


def cancel(folder: Path) -> None:
    """Ask the job to stop: its worker keeps the rows done so far (the stored run is marked cancelled). A job
    with no live worker is marked cancelled at once."""
    (folder / "cancel").touch()
    pid = _read_json(folder / "launched").get("pid")
    if lock_is_held(folder) and isinstance(pid, int):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    elif not (folder / "result.json").exists():
        _write(folder / "result.json", json.dumps({"status": "cancelled", "message": "cancelled before it ran"}))


def resume_interrupted(root: Optional[Path] = None, api_key: Optional[str] = None) -> list[str]:
    """Launch again every interrupted job (after the app or the machine restarted) that has not been launched
    MAX_AUTOMATIC_LAUNCHES times; one that needs an API key only when `api_key` is given. The ids launched."""
    launched = []
    for job in list_jobs(root):
        if job.status == "interrupted" and job.launches < MAX_AUTOMATIC_LAUNCHES \
                and (api_key or not job.request.needs_key):
            launch(job.folder, api_key)
            launched.append(job.request.id)
    return launched


def find_same(root: Path, fingerprint: str) -> Optional[JobState]:
    """The newest job of exactly this input and these settings (see `batch.run.batch_fingerprint`), if any."""
    for job in list_jobs(root):
        if _read_json(job.folder / "progress.json").get("fingerprint") == fingerprint:
            return job
    return None


# -- the worker ------------------------------------------------------------------------------------------

def _take_lock(folder: Path) -> Optional[int]:
    fd = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    from rt4chart.batch.locks import hold_here

    hold_here(fd)  # an audit process this worker forks must not hold the job as running
    return fd  # held until the process ends


def work(folder: Path) -> int:
    """Run the job in `folder` to its end; 0 when this process ran it (whatever the outcome), 3 when another
    live worker holds it."""
    asked = [False]  # set by SIGTERM; the next row's progress raises JobCancelled

    def stop(_signum, _frame):
        asked[0] = True

    # before the lock: a cancel sends SIGTERM once it sees the lock held, and must find the handler there (a
    # SIGTERM between the two killed the worker with no result, leaving the job 'interrupted')
    signal.signal(signal.SIGTERM, stop)
    if _take_lock(folder) is None:
        return 3
    request = request_of(folder)
    outcome: dict = {"status": "failed", "message": "the worker stopped before it began"}
    spec = None
    try:
        spec = _spec(request)
        outcome = _run(folder, request, spec, lambda: asked[0])
    except JobCancelled:
        outcome = {"status": "cancelled", "message": "cancelled; the rows audited so far are kept",
                   "run_id": _mark_cancelled(folder, request, spec)}
    except Rt4chartError as exc:
        outcome = {"status": "failed", "message": first_line(exc, 500)}
    except Exception as exc:  # noqa: BLE001 - the job must end with a result; the traceback goes to the log
        import traceback

        traceback.print_exc()
        # the message is shown on a page: it names the job, never a server path
        outcome = {"status": "failed", "message": f"internal error ({type(exc).__name__}: {first_line(exc)}); "
                                                  f"the traceback is in the job's log.txt (job {request.id})"}
    _write(folder / "result.json", json.dumps({**outcome, "ended": time.time()}))
    return 0


def request_of(folder: Path) -> JobRequest:
    return JobRequest.from_json((folder / "job.json").read_text(encoding="utf-8"))


def _spec(request: JobRequest):
    from rt4chart.batch.spec import RunSpec
    from rt4chart.judges.cache import MemoCache
    from rt4chart.store import Store, default_url

    api_key = os.environ.get(API_KEY_ENV)
    judge = request.judge.build({"api_key": api_key} if api_key else None)
    # the cache `rt4chart batch` and the app use: an answer audited before with the same settings costs no call
    return RunSpec(judge=judge, config=AuditConfig(**request.config), mapping=request.mapping, workers=AUTO_WORKERS,
                   store=Store(default_url()), run_name=request.run_name, source=request.title,
                   delimiter=request.delimiter, cache=MemoCache())


def _journal(folder: Path, request: JobRequest, spec):
    from rt4chart.batch.journal import Journal
    from rt4chart.batch.run import batch_fingerprint

    return Journal(folder / "journal.sqlite3", batch_fingerprint(str(folder / request.input_name), spec))


def _run(folder: Path, request: JobRequest, spec, stop_asked: Callable[[], bool] = lambda: False) -> dict:
    from rt4chart.batch.run import batch_fingerprint, run_spec

    journal = _journal(folder, request, spec)
    try:
        stored = journal.stored_run()
    finally:
        journal.close()
    if stored and spec.store is not None and (run := spec.store.find_run(stored)) is not None \
            and run.status == "cancelled":
        spec.store.reopen(run.id)  # the same job again after a cancel: it goes on
    started, last, first = time.time(), 0.0, True
    base = {"started": started, "first_done": 0, "run_id": stored,
            "fingerprint": batch_fingerprint(str(folder / request.input_name), spec)}
    _write(folder / "progress.json", json.dumps({**base, "done": 0, "total": request.rows, "updated": started}))

    def progress(done: int, total: int) -> None:
        nonlocal last, first
        if stop_asked() or (folder / "cancel").exists():
            raise JobCancelled()
        now = time.time()
        if first:  # after its first row: the rows before it are those run_spec took as stored (journaled rows the
            base["first_done"], first = done - 1, False  # store lacks are redone); the result says it exactly
        if now - last >= 0.5 or done == total or done == base["first_done"]:
            last = now
            _write(folder / "progress.json", json.dumps({**base, "done": done, "total": total, "updated": now}))

    summary = run_spec(str(folder / request.input_name), str(folder / "output.jsonl"), spec,
                       journal_path=str(folder / "journal.sqlite3"), progress=progress)
    return {"status": "done", "run_id": summary.run_id, "resumed": summary.resumed,
            "message": f"{summary.rows} rows, {summary.hallucinated} hallucinated, {summary.unverified} unverified, "
                       f"{summary.failed} failed"}


def _mark_cancelled(folder: Path, request: JobRequest, spec) -> Optional[str]:
    """Keep a cancelled job's stored run as `cancelled` (its rows so far); its id. The id is the job's whatever
    happens to the marking (a failing store): the rows are in that run, and a launch goes on with it."""
    known = _read_json(folder / "progress.json").get("run_id")  # the run an earlier launch stored to
    run_id: Optional[str] = known if isinstance(known, str) else None
    if spec is None:  # stopped while its judge was built: this launch stored nothing
        return run_id
    try:
        journal = _journal(folder, request, spec)
        try:
            run_id = journal.stored_run() or run_id
        finally:
            journal.close()
        if run_id and spec.store is not None:
            spec.store.mark_cancelled(run_id)
    except Rt4chartError as exc:  # the log says why; a StoreError names the store without its password
        print(f"the stored run was not marked cancelled: {first_line(exc, 500)}", file=sys.stderr, flush=True)
    return run_id


def main(argv: Optional[list[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0], "job.json").is_file():
        raise InputError("usage: python -m rt4chart.batch.jobs JOB_FOLDER (a folder holding job.json)")
    return work(Path(args[0]))


if __name__ == "__main__":
    sys.exit(main())
