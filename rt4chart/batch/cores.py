"""How a batch shares this machine's cores among its workers. A judge that reads with a local model (the model and
hybrid judges) takes as many inference threads as the machine has when its `threads` is 0 (automatic); run in
several workers at once, each would take them all. Every engine that starts workers here (local processes, a local
Dask cluster) gives each one its share instead, and a worker of a cluster rt4chart did not start takes the task
threads its operator gave it. Threads never change a reading, so the output is the same.

How many workers a run gets when it is not told (`--workers auto`, the CLI's default) is decided here too:
`auto_workers`."""
from __future__ import annotations

import os
from typing import Optional

from rt4chart.core.defaults import AUTO_WORKERS
from rt4chart.judges.spec import JudgeSpec

MAX_AUTO_WORKERS = 8     # each local worker holds its own judge (the hybrid's: ~0.4 GB); more is asked for by number
ROWS_PER_CHUNK = 16      # a local process audits chunks of this many rows (`batch.local_pool`)


def machine_cores() -> int:
    """This machine's cores, as the model judges count them for their automatic threads."""
    return os.cpu_count() or 1


def auto_workers(makes_calls: bool, rows: Optional[int]) -> int:
    """The workers of a run that was not told how many: one for an LLM judge (it waits on the network and its
    provider limits the rate), else one process per core, at most `MAX_AUTO_WORKERS`, and no more than the `rows`
    (when known) fill chunks of `ROWS_PER_CHUNK`, so a small file is audited in this process as before. On 2 cores
    ragtruth_dev's 689 answers ran at 2.15 answers/s with the hybrid judge in one process and 2.68-2.89 in two,
    the offline judge at 42-45 and 87 (docs/benchmarks.md)."""
    if makes_calls:
        return 1
    workers = min(machine_cores(), MAX_AUTO_WORKERS)
    if rows is not None:
        workers = min(workers, -(-rows // ROWS_PER_CHUNK))
    return max(1, workers)


def resolved_workers(workers: int, makes_calls: bool, rows: Optional[int]) -> int:
    """`workers` as asked, or `auto_workers` for `AUTO_WORKERS` (`--workers auto`)."""
    return auto_workers(makes_calls, rows) if workers == AUTO_WORKERS else workers


def within_worker_share(spec: JudgeSpec, share: Optional[int]) -> JudgeSpec:
    """`spec` with `share` inference threads when its threads are automatic (`threads` 0); a chosen count, a judge
    without threads and no share (None: not on a worker) leave it as it is. Left automatic, two Dask workers on 2
    cores audited ragtruth_dev with the hybrid judge at 4.9 answers/s, against 8.7 with one thread each
    (docs/benchmarks.md)."""
    options = spec.options
    if options.get("threads") != 0 or not share:
        return spec
    return JudgeSpec.make(spec.kind, {**options, "threads": max(1, share)})


def local_share(workers: int) -> int:
    """Each of `workers` local workers' share of this machine's cores (at least one thread)."""
    return max(1, machine_cores() // max(1, workers))
