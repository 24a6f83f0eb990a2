"""The batch executors: whichever audits the rows (threads, local processes), each row comes back once, in the
order given, as the same line; the local engine picks processes only for a judge that computes."""
import json
from dataclasses import replace

from rt4chart.batch.executors import Processes, Threads, local_executor
from rt4chart.batch.spec import RunSpec
from rt4chart.core.rows import Record
from rt4chart.judges.factory import make_judge


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
