"""The batch executors: whichever audits the rows (threads, local processes), each row comes back once, in the
order given, as the same line; the local engine picks processes only for a judge that computes."""
import json
import os
from dataclasses import replace

import pytest

from rt4chart.batch.executors import Processes, Threads, local_executor
from rt4chart.batch.spec import RunSpec
from rt4chart.core.rows import Record
from rt4chart.judges import registry
from rt4chart.judges.factory import make_judge
from rt4chart.judges.offline.judge import OfflineJudge


def rows() -> list[tuple[int, Record]]:
    """Positions with gaps, as a resumed batch gives them, and one record that cannot be audited."""
    made = []
    for n, position in enumerate((0, 2, 3, 7, 8, 9, 15, 16, 17, 18, 30, 31)):
        context = f"The bridge opened in {1990 + n}. It is {1200 + n} metres long. Ferries stopped in {2001 + n}."
        answer = f"The bridge opened in {1990 + n + (n % 3 == 0)} and is {1200 + n} metres long."
        made.append((position, Record(id=f"r{position}", context=context, answer=answer, row=position + 1)))
    made[4] = (made[4][0], replace(made[4][1], error="the answer is not valid UTF-8"))
    return made


def untimed(stored):
    """A stored row without its timings (the one thing an executor may change)."""
    if stored is None:
        return None
    result = {k: v for k, v in json.loads(stored.result).items() if k != "elapsed_s"}
    return replace(stored, elapsed_s=0.0, report=None, result=json.dumps(result))


def comparable(lines) -> list[tuple]:
    return [(a.position, a.line, a.status, untimed(a.stored)) for a in lines]


def test_threads_and_processes_give_the_same_lines_in_the_order_given():
    spec = RunSpec(judge=make_judge("offline"), workers=2)
    one_thread = comparable(Threads(replace(spec, workers=1), keep=True).lines(rows()))
    assert [line[0] for line in one_thread] == [p for p, _ in rows()]
    assert comparable(Threads(spec, keep=True).lines(rows())) == one_thread
    assert comparable(Processes(spec, keep=True).lines(rows())) == one_thread
    statuses = [line[2] for line in one_thread]
    assert statuses[4] == "error" and "hallucinated" in statuses and "faithful" in statuses


def test_a_line_carries_its_stored_row_only_when_the_run_is_kept():
    spec = RunSpec(judge=make_judge("offline"), workers=2)
    assert all(a.stored is None for a in Processes(spec).lines(rows()))
    assert all(a.stored is not None and a.stored.position == a.position
               for a in Threads(spec, keep=True).lines(rows()))


def test_the_local_engine_uses_processes_only_for_a_judge_that_computes_on_several_workers():
    offline = make_judge("offline")
    assert isinstance(local_executor(RunSpec(judge=offline, workers=2), keep=False), Processes)
    assert isinstance(local_executor(RunSpec(judge=offline, workers=1), keep=False), Threads)
    calling = make_judge("openai", base_url="http://127.0.0.1:9/v1", api_key="sk-test", model="m", use_cache=False)
    assert isinstance(local_executor(RunSpec(judge=calling, workers=4), keep=False), Threads)


class ThreadsProbe(OfflineJudge):
    """The offline judge with a `threads` option, as the model judges have: each build writes its threads to a file
    named by the process that built it."""

    name = "threads-probe-test"

    def __init__(self, threads: int, folder: str):
        super().__init__()
        self.threads, self.folder = threads, folder

    def rebuild_options(self) -> dict:
        return {"threads": self.threads, "folder": self.folder}


@pytest.fixture
def threads_probe():
    def build(threads: int, folder: str) -> ThreadsProbe:
        with open(os.path.join(folder, f"built-in-{os.getpid()}"), "a") as f:
            f.write(f"{threads}\n")
        return ThreadsProbe(threads, folder)

    registry.register(ThreadsProbe.name, "the offline judge with a threads option (test)")(build)
    yield build
    registry._REGISTRY.pop(ThreadsProbe.name, None)


def test_each_local_process_takes_its_share_of_the_cores_when_the_judges_threads_are_automatic(threads_probe, tmp_path,
                                                                                               monkeypatch):
    """Two processes on a 4-core machine: each builds the judge with 2 threads, not with every core (a chosen count
    stays as chosen)."""
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    for threads, each in ((0, "2"), (3, "3")):
        folder = tmp_path / f"threads-{threads}"
        folder.mkdir()
        spec = RunSpec(judge=ThreadsProbe(threads, str(folder)), workers=2)
        lines = list(Processes(spec).lines(rows()))
        assert len(lines) == len(rows())
        built = [f.read_text().split() for f in folder.iterdir()]
        assert built and all(b == [each] for b in built)


def test_a_bench_on_two_workers_audits_in_processes_and_scores_the_lines_of_one(monkeypatch):
    """`rt4chart bench --workers 2` runs the batch's local engine: a judge that computes audits in processes, and
    the predictions, the scores and the cost are those of one worker."""
    import rt4chart.batch.executors as executors
    from rt4chart.bench import run_bench

    gold = [{"id": record.id, "context": record.context, "answer": record.answer, "hallucinated": n % 3 == 0,
             "spans": []} for n, (_, record) in enumerate(rows()) if record.error is None]
    judge = make_judge("offline")
    one = run_bench(gold, judge)
    made: list = []
    engine = executors.local_executor
    monkeypatch.setattr(executors, "local_executor", lambda spec, keep: made.append(engine(spec, keep)) or made[-1])
    two = run_bench(gold, judge, workers=2)
    assert [type(e) for e in made] == [Processes]
    assert two.predictions == one.predictions and two.cost == one.cost and two.planned_calls == one.planned_calls
    assert (one.workers, two.workers) == (1, 2) and two.as_dict()["workers"] == 2
    assert two.scores["all"] == one.scores["all"] and one.scores["all"].n == len(gold)


def test_a_run_not_told_its_width_takes_a_process_per_core_for_a_judge_that_computes_and_one_for_an_llm(monkeypatch):
    """`--workers auto`: one process per core (at most 8), no more than the rows fill chunks of 16, one worker when
    the rows are few or the judge waits on a provider; a number asked for is kept."""
    from rt4chart.batch import cores

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert cores.auto_workers(False, 689) == 2 and cores.auto_workers(False, None) == 2
    assert cores.auto_workers(False, 16) == 1 and cores.auto_workers(False, 17) == 2 and cores.auto_workers(False, 0) == 1
    assert cores.auto_workers(True, 689) == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert cores.auto_workers(False, 10_000) == cores.MAX_AUTO_WORKERS == 8 and cores.auto_workers(False, 40) == 3
    assert cores.resolved_workers(5, False, 10) == 5 and cores.resolved_workers(cores.AUTO_WORKERS, False, 40) == 3


@pytest.mark.parametrize("command", ["predict", "batch"])
def test_predict_and_batch_audit_in_processes_by_default_and_write_what_one_worker_writes(command, tmp_path, monkeypatch):
    """With no --workers, 40 rows on a 4-core machine go to 3 processes (chunks of 16), and the output is the one of
    `--workers 1`, line for line."""
    import rt4chart.batch.run as run
    from rt4chart.cli.main import main

    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    source = tmp_path / "in.jsonl"
    records = [r for _, r in rows() if r.error is None] * 4
    source.write_text("".join(json.dumps({"id": f"{r.id}-{n}", "context": r.context, "answer": r.answer}) + "\n"
                              for n, r in enumerate(records)))
    widths: list = []
    engine = run.local_executor
    monkeypatch.setattr(run, "local_executor", lambda spec, keep: widths.append(spec.workers) or engine(spec, keep))
    extra = ["--no-journal", "--no-store"] if command == "batch" else []
    outputs = []
    for width in ([], ["--workers", "1"]):
        out = tmp_path / f"out{len(outputs)}.jsonl"
        assert main([command, str(source), "-o", str(out), "--judge", "offline", "--quiet", *extra, *width]) == 0
        outputs.append(out.read_text())
    assert len(records) == 44 and widths == [3, 1]
    assert outputs[0] == outputs[1] and outputs[0].count("\n") == len(records)


def test_workers_is_auto_or_a_positive_number(capsys):
    from rt4chart.cli.main import build_parser
    from rt4chart.core.defaults import AUTO_WORKERS

    parser = build_parser()
    assert parser.parse_args(["predict", "in.jsonl", "-o", "out.jsonl"]).workers == AUTO_WORKERS
    assert parser.parse_args(["bench", "gold.jsonl", "--workers", "auto"]).workers == AUTO_WORKERS
    assert parser.parse_args(["batch", "in.jsonl", "-o", "o.jsonl", "--workers", "3"]).workers == 3
    for bad in ("0", "-2", "two"):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(["predict", "in.jsonl", "-o", "out.jsonl", "--workers", bad])
        assert stop.value.code == 2
        assert "expected 'auto' or a positive number of workers" in capsys.readouterr().err


class SlowProbe(OfflineJudge):
    """The offline judge, slowed to `delay` seconds an answer; each audit leaves a file named by its answer, and the
    first audit in a process records what that process inherited (its SIGTERM action, whether `fd` is open)."""

    name = "slow-probe-test"

    def __init__(self, delay: float, folder: str, fd: int = -1):
        super().__init__()
        self.delay, self.folder, self.fd = delay, folder, fd

    def rebuild_options(self) -> dict:
        return {"delay": self.delay, "folder": self.folder, "fd": self.fd}

    def decompose(self, audit, usage):
        import signal
        import time

        seen = os.path.join(self.folder, f"process-{os.getpid()}")
        if not os.path.exists(seen):
            try:
                os.fstat(self.fd)
                held = "open"
            except OSError:
                held = "closed"
            default = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
            with open(seen, "w") as f:
                f.write(f"{held} {'default' if default else 'handled'}")
        time.sleep(self.delay)
        with open(os.path.join(self.folder, f"audited-{abs(hash(audit.answer))}"), "w"):
            pass
        return super().decompose(audit, usage)


@pytest.fixture
def slow_probe():
    registry.register(SlowProbe.name, "the offline judge, slowed (test)")(
        lambda delay, folder, fd=-1: SlowProbe(delay, folder, fd))
    yield
    registry._REGISTRY.pop(SlowProbe.name, None)


def many_rows(n: int) -> list[tuple[int, Record]]:
    return [(i, Record(id=f"r{i}", context="The bridge opened in 1998.", answer=f"The bridge opened in {1000 + i}.",
                       row=i + 1)) for i in range(n)]


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_run_that_stops_taking_lines_stops_its_processes_and_audits_nothing_after(slow_probe, tmp_path):
    """A caller that stops early (a job's cancel, an error, Ctrl-C) gets its processes stopped at once: the chunks
    waiting are dropped and the ones being audited killed, instead of auditing every chunk in flight first."""
    import multiprocessing
    import time

    before = set(multiprocessing.active_children())
    spec = RunSpec(judge=SlowProbe(0.2, str(tmp_path)), workers=2)
    lines = Processes(spec).lines(many_rows(128))  # chunks of 16 rows, 3.2 s each; 4 in flight
    assert next(lines).position == 0
    pool = [child.pid for child in multiprocessing.active_children() if child not in before]
    started = time.monotonic()
    lines.close()
    stopping = time.monotonic() - started
    audited = len(list(tmp_path.glob("audited-*")))
    time.sleep(1.0)
    assert stopping < 1.5 and len(list(tmp_path.glob("audited-*"))) == audited < 64
    assert len(pool) == 2 and not any(alive(pid) for pid in pool)
    assert set(multiprocessing.active_children()) <= before  # reaped, none listed as running


def test_an_audit_process_lets_go_of_its_parents_stop_handler_and_private_descriptors(slow_probe, tmp_path,
                                                                                        monkeypatch):
    """A job's worker keeps its lock to itself and answers SIGTERM by asking to stop between rows: the processes it
    forks must neither hold the lock (a process outliving its worker would keep the job 'running') nor ignore the
    SIGTERM that stops them. A descriptor not kept back stays open."""
    import signal

    from rt4chart.batch import locks

    monkeypatch.setattr(locks, "_HELD_HERE", set())
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    kept, shared = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT), os.open(tmp_path / "other", os.O_RDWR | os.O_CREAT)
    try:
        locks.hold_here(kept)
        for fd, name in ((kept, "kept"), (shared, "shared")):
            folder = tmp_path / name
            folder.mkdir()
            lines = list(Processes(RunSpec(judge=SlowProbe(0.0, str(folder), fd), workers=2)).lines(many_rows(40)))
            assert [line.position for line in lines] == list(range(40))
            seen = {f.read_text() for f in folder.glob("process-*")}
            assert seen == {("closed" if name == "kept" else "open") + " default"}
    finally:
        signal.signal(signal.SIGTERM, previous)
        os.close(kept)
        os.close(shared)


ORPHAN_SCRIPT = """
import multiprocessing, sys, time
from rt4chart.batch.executors import Processes
from rt4chart.batch.spec import RunSpec
from rt4chart.core.rows import Record
from rt4chart.judges.factory import make_judge

def rows():
    for i in range(40):
        yield i, Record(id=f"r{i}", context="The bridge opened in 1998.", answer="The bridge opened in 1998.", row=i + 1)
    time.sleep(0.5)  # the pool has its processes by now
    print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
    time.sleep(600)  # killed here

for _ in Processes(RunSpec(judge=make_judge("offline"), workers=2)).lines(rows()):
    pass
"""


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended and not yet reaped by whoever adopted it, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_the_processes_of_a_run_killed_outright_end_on_their_own(tmp_path):
    """SIGKILL gives a run no chance to stop its pool, and a process waiting for its next chunk holds the queue's
    other end itself: it waited forever (killed runs left theirs asleep). It now ends within a second or so."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "run.py"
    script.write_text(ORPHAN_SCRIPT)
    run = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        children = [int(pid) for pid in run.stdout.readline().split()]
        assert len(children) == 2 and all(alive(pid) for pid in children)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=10)
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in children)


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_an_audit_process_killed_from_outside_is_one_clear_error_not_a_crash(slow_probe, tmp_path):
    """The OOM killer or a stray signal ends an audit process mid-chunk: the run stops with one line saying so and
    what to do (an error the CLI prints as such, exit 2), not the pool's BrokenProcessPool traceback (exit 70, a bug)."""
    import multiprocessing
    import signal

    from rt4chart.core.errors import WorkerLostError

    before = set(multiprocessing.active_children())
    lines = Processes(RunSpec(judge=SlowProbe(0.05, str(tmp_path)), workers=2)).lines(many_rows(96))
    assert next(lines).position == 0
    pool = [child.pid for child in multiprocessing.active_children() if child not in before]
    os.kill(pool[0], signal.SIGKILL)
    with pytest.raises(WorkerLostError, match="ended abruptly before its rows were done .* resumes from its journal"):
        list(lines)
    assert len(pool) == 2 and not any(alive(pid) for pid in pool)
    assert set(multiprocessing.active_children()) <= before  # reaped, none listed as running
