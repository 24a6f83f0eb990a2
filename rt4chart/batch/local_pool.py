"""`--workers N` with the local engine for a judge that computes (the offline judge is pure Python under
the GIL, so threads would only contend): N processes, each auditing chunks of rows, results in input
order, at most 2 x N chunks in flight; a judge with automatic inference threads gets each process its share of the
cores (`batch.cores`). LLM judges keep threads (they wait on the network).

A run that stops early (an error, Ctrl-C, a job's cancel) stops its processes with it: the chunks not started are
dropped and the ones being audited are killed, so nothing is audited after the run ended (their rows are not
journaled, and a resumed run audits them). A process starts with the default SIGTERM action and without the locks
its parent holds (`batch.locks.held_here`: the output's, a job's), and ends within half a second of a parent killed
outright, so none is left behind holding memory or a lock."""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from typing import Iterable, Iterator, Optional

from rt4chart.batch.audited import AuditedLine, projected
from rt4chart.batch.cores import ROWS_PER_CHUNK, local_share, within_worker_share
from rt4chart.batch.locks import held_here
from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import WorkerLostError
from rt4chart.core.rows import Record
from rt4chart.judges.base import Judge
from rt4chart.judges.spec import JudgeSpec

PARENT_CHECK_S = 0.5  # how often an audit process checks that the run that started it is alive


def _worker_start(inherited: tuple[int, ...], parent: int) -> None:
    """A forked audit process lets go of what its parent keeps to itself: its SIGTERM handler (a job's sets a flag
    that only the parent reads, so the process could not be stopped) and its locks; and it ends with its parent."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for fd in inherited:
        try:
            os.close(fd)
        except OSError:
            pass
    threading.Thread(target=_end_with, args=(parent,), name="rt4chart-parent-watch", daemon=True).start()


def _end_with(parent: int) -> None:
    """End this audit process once `parent` is gone. A parent killed outright (SIGKILL, the OOM killer) never tells
    its pool, and a process waiting for the next chunk holds the queue's other end itself, so it would wait forever
    (measured: killed runs left their processes asleep for good)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(1)


def _stop(pool: ProcessPoolExecutor, before: set) -> None:
    """Kill the processes of `pool` (this process's children not in `before`) and drop the chunks not started. The
    pool's own thread sees them end and reaps them; shutting down waits for it (a second waiter on the same process
    could leave it listed as running, `multiprocessing.active_children`)."""
    for child in multiprocessing.active_children():
        if child not in before:
            child.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


@lru_cache(maxsize=4)
def _judge(spec: JudgeSpec) -> Judge:
    return spec.build()


@lru_cache(maxsize=2)
def _cache(path: str):
    from rt4chart.judges.cache import MemoCache

    return MemoCache(path)


def _audit_chunk(rows: list[tuple[int, Record]], spec: JudgeSpec, config_json: str, keep: bool,
                 cache_path: Optional[str]) -> list[AuditedLine]:
    from rt4chart.batch.rows import audit_record

    judge, config = _judge(spec), AuditConfig.model_validate_json(config_json)
    cache = _cache(cache_path) if cache_path else None
    return [projected(position, audit_record(record, judge, config, cache), keep) for position, record in rows]


def process_lines(rows: Iterable[tuple[int, Record]], judge: Judge, config: AuditConfig, workers: int,
                  keep: bool = False, cache_path: Optional[str] = None) -> Iterator[AuditedLine]:
    """One line per row, in input order, from `workers` processes (`batch.executors.Processes`)."""
    spec = within_worker_share(JudgeSpec.of(judge), local_share(workers))  # no process takes every core
    forked = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if forked else "spawn")
    before = set(multiprocessing.active_children())
    # a spawned process inherits no descriptor, and its numbers may name other files there: close only after a fork
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_start,
                               initargs=(held_here() if forked else (), os.getpid()))
    pending: deque = deque()
    chunk: list[tuple[int, Record]] = []

    def submit(items):
        pending.append(pool.submit(_audit_chunk, items, spec, config.model_dump_json(), keep, cache_path))

    try:
        for item in rows:
            chunk.append(item)
            if len(chunk) >= ROWS_PER_CHUNK:
                submit(chunk)
                chunk = []
                if len(pending) >= 2 * workers:
                    yield from pending.popleft().result()
        if chunk:
            submit(chunk)
        while pending:
            yield from pending.popleft().result()
    except BrokenProcessPool:
        pool.shutdown(wait=True, cancel_futures=True)  # the pool has stopped its other processes itself
        raise WorkerLostError(f"an audit process ended abruptly before its rows were done (out of memory, a signal "
                              f"or a crash); the rows finished so far are kept, and `rt4chart batch` run again resumes "
                              f"from its journal (with fewer than --workers {workers} if memory is short)") from None
    except BaseException:  # the caller stopped taking lines (GeneratorExit), a chunk failed, or Ctrl-C
        _stop(pool, before)
        raise
    pool.shutdown(wait=True)
