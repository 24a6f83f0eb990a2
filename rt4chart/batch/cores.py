"""How a batch shares this machine's cores among its workers. A judge that reads with a local model (the model and
hybrid judges) takes as many inference threads as the machine has when its `threads` is 0 (automatic); run in
several workers at once, each would take them all. Every engine that starts workers here (local processes, a local
Dask cluster) gives each one its share instead, and a worker of a cluster rt4chart did not start takes the task
threads its operator gave it. Threads never change a reading, so the output is the same."""
from __future__ import annotations

import os
from typing import Optional

from rt4chart.judges.spec import JudgeSpec


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
    return max(1, (os.cpu_count() or 1) // max(1, workers))
