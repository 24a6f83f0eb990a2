"""Batch audits on Dask's distributed scheduler (`rt4chart batch --engine dask`).

The driver stays cheap per row: for JSONL and Parquet it only plans partitions (see `partitions.py`);
each worker reads its own partition, rebuilds the judge from its options, audits the rows, writes them
to the run store itself when one is used, and sends back one compact result per partition (the output
lines as one blob and a status letter per row). The driver orders the results, journals them (a commit at
least once a second) and writes the output. CSV/TSV rows are read by the driver and shipped as records.
At most `2 x workers` partitions are in flight. A worker that dies loses nothing: the scheduler
recomputes its partitions elsewhere, and partitions already journaled are never redone.

Secrets (the API key, a store URL with a password) reach the workers through a worker plugin that keeps
them in the worker's memory only (never in a task's arguments, which Dask may log, and never on disk).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, Optional

from rt4chart.batch.audited import AuditedLine, projected
from rt4chart.batch.cores import local_share, within_worker_share
from rt4chart.batch.partitions import Partition, read_partition
from rt4chart.batch.rows import audit_record
from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import MissingDependencyError
from rt4chart.judges.base import Judge
from rt4chart.judges.spec import JudgeSpec

try:  # the `dask` extra; without it the local engine still works and --engine dask says what is missing
    from distributed import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - exercised only without the extra
    _WorkerPlugin = object  # type: ignore[assignment,misc]

_SECRETS: dict[str, str] = {}
STATUS_CODES = {"hallucinated": "h", "faithful": "f", "unverified": "u", "empty": "m", "error": "e"}
STATUSES = {v: k for k, v in STATUS_CODES.items()}


class SecretPlugin(_WorkerPlugin):
    """Puts secrets (API key, store URL) into each worker's memory when it starts (new workers included)."""

    name = "rt4chart-secret"

    def __init__(self, secrets: dict[str, str]):
        self._secrets = dict(secrets)

    def __repr__(self) -> str:  # never show the secrets in logs
        return f"SecretPlugin({', '.join(f'{k}=***' for k in self._secrets)})"

    def setup(self, worker=None):
        _SECRETS.update(self._secrets)

    def teardown(self, worker=None):
        for key in self._secrets:
            _SECRETS.pop(key, None)


@lru_cache(maxsize=8)
def _worker_judge(spec: JudgeSpec) -> Judge:
    """The judge of `spec`, built once per worker process; automatic threads become the worker's task threads (a
    local cluster's driver has already given them their share, so there this changes nothing)."""
    return within_worker_share(spec, _worker_task_threads()).build(_SECRETS)


def _worker_task_threads() -> Optional[int]:
    """The task threads Dask gives the worker this runs on (None outside a worker)."""
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return None


@lru_cache(maxsize=2)
def _worker_store(url: str):
    from rt4chart.store import Store

    return Store(url)


@dataclass
class Work:
    """What every partition task needs besides its rows: the judge, the settings, the stored run."""

    judge: JudgeSpec
    config_json: str
    roles: Optional[dict] = None   # for partitions the worker reads itself
    run_id: Optional[str] = None   # the stored run the worker writes its rows into


def audit_partition(part, work: Work) -> tuple[int, bytes, str]:
    """Runs on a worker: (first position, the output lines as one UTF-8 blob, one status letter per row).
    `part` is a `Partition` to read here, or the (position, record) pairs the driver read."""
    judge = _worker_judge(work.judge)
    config = AuditConfig.model_validate_json(work.config_json)
    rows = read_partition(part, work.roles or {}) if isinstance(part, Partition) else part
    lines, codes, stored, first = [], [], [], None
    for position, record in rows:
        first = position if first is None else first
        audited = projected(position, audit_record(record, judge, config), keep=bool(work.run_id))
        lines.append(audited.line)
        codes.append(STATUS_CODES[audited.status])
        if audited.stored is not None:
            stored.append(audited.stored)
    if stored:
        _worker_store(_SECRETS["store_url"]).add_rows(work.run_id, stored)
    return first if first is not None else 0, "\n".join(lines).encode("utf-8", "surrogatepass"), "".join(codes)


# A batch submits its partitions in order and waits: the scheduler's periodic machinery (the 20 ms
# event-loop tick, work stealing, the system monitor, the workers' profiler) would otherwise cost the
# driver more CPU per second than its rows do (measured: 0.58 s of CPU for 17 s of an idle 2-worker cluster).
QUIET_CLUSTER = {
    "distributed.admin.tick.interval": "1s", "distributed.admin.tick.limit": "30s",
    "distributed.admin.system-monitor.interval": "5s", "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.scheduler.work-stealing": False, "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "2s",  # the nannies live in the driver process
}


def connect(address: Optional[str], workers: int):
    """A client of the scheduler at `address`, or of a new LocalCluster of `workers` processes."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingDependencyError("--engine dask needs Dask: pip install 'rt4chart[dask]' (dask[distributed])") from None

    if address:
        return Client(address, timeout="30s")
    dask.config.set(QUIET_CLUSTER)
    cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                           dashboard_address=None, host="127.0.0.1")
    return Client(cluster)


def dask_lines(parts: Iterable, judge: Judge, config: AuditConfig, secrets: dict[str, str],
               address: Optional[str] = None, workers: int = 2, roles: Optional[dict] = None,
               run_id: Optional[str] = None) -> Iterator[AuditedLine]:
    """One line (without a stored row: the workers store their rows) for every row of `parts` (partitions, or
    lists of (position, record) pairs), in input order, computed on Dask workers (`batch.executors.DaskWorkers`)."""
    spec = JudgeSpec.of(judge) if address else within_worker_share(JudgeSpec.of(judge), local_share(workers))
    work = Work(spec, config.model_dump_json(), roles, run_id)
    client = connect(address, workers)
    try:
        if secrets:
            client.register_plugin(SecretPlugin(secrets), name=SecretPlugin.name)
        slots = 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending: deque = deque()
        for part in parts:
            pending.append(client.submit(audit_partition, part, work, pure=False))
            if len(pending) >= slots:
                yield from _unpack(pending.popleft().result())
        while pending:
            yield from _unpack(pending.popleft().result())
    finally:
        if secrets:
            try:  # remove the secrets from a long-lived cluster's memory once the batch is done
                client.unregister_worker_plugin(SecretPlugin.name)
            except Exception:  # noqa: BLE001 - cleanup must not mask the batch's own outcome
                pass
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and not address:
            cluster.close()


def _unpack(result: tuple[int, bytes, str]) -> Iterator[AuditedLine]:
    first, blob, codes = result
    lines = blob.decode("utf-8", "surrogatepass").split("\n") if codes else []
    for offset, (line, code) in enumerate(zip(lines, codes)):
        yield AuditedLine(first + offset, line, STATUSES[code], None)
