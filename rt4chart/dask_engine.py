"""Batch audits on Dask's distributed scheduler (`rt4chart batch --engine dask`).

The driver streams the input and submits partitions of rows as tasks (at most `2 x workers`
partitions in flight); each worker rebuilds the judge from its options and audits its partition;
results come back to the driver in input order, where the journal and output are written.
A worker that dies loses nothing: the scheduler recomputes its partitions elsewhere, and rows
already journaled are never redone.

The API key, when there is one, reaches the workers through a worker plugin that keeps it in the
worker's memory only (never in a task's arguments, which Dask may log, and never on disk).
"""
from __future__ import annotations

import json
from collections import deque
from functools import lru_cache
from typing import Iterable, Iterator, Optional

from .batch import audit_record
from .batch_run import output_line, row_status
from .config import AuditConfig
from .io import Record, json_line
from .judges.base import Judge

try:  # the `dask` extra; without it the local engine still works and --engine dask says what is missing
    from distributed import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - exercised only without the extra
    _WorkerPlugin = object

_SECRETS: dict[str, str] = {}


class SecretPlugin(_WorkerPlugin):
    """Puts the API key into each worker's memory when the worker starts (new workers included)."""

    name = "rt4chart-secret"

    def __init__(self, api_key: str):
        self._api_key = api_key

    def __repr__(self) -> str:  # never show the key in logs
        return "SecretPlugin(api_key=***)"

    def setup(self, worker=None):
        _SECRETS["api_key"] = self._api_key

    def teardown(self, worker=None):
        _SECRETS.pop("api_key", None)


@lru_cache(maxsize=8)
def _worker_judge(name: str, options_json: str) -> Judge:
    from .judges.factory import make_judge

    options = json.loads(options_json)
    if name == "openai":
        options["api_key"] = _SECRETS.get("api_key") or None
    return make_judge(name, **options)


def audit_partition(rows: list[tuple[int, Record]], judge_name: str, options_json: str,
                    config_json: str, keep: bool = False) -> list[tuple]:
    """Runs on a worker: audit each row in isolation; returns (position, output line, status, stored row
    or None) — the row is packed for the run store here, where its report is."""
    from .store.rows import pack

    judge = _worker_judge(judge_name, options_json)
    config = AuditConfig.model_validate_json(config_json)
    out = []
    for position, record in rows:
        row = audit_record(record, judge, config)
        out.append((position, json_line(output_line(row)), row_status(row), pack(position, row) if keep else None))
    return out


def _chunks(rows: Iterable[tuple[int, Record]], size: int) -> Iterator[list[tuple[int, Record]]]:
    chunk: list[tuple[int, Record]] = []
    for item in rows:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def api_key_of(judge: Judge) -> Optional[str]:
    """The key the driver's judge uses (to hand to the workers' memory), if any."""
    sdk_client = getattr(getattr(judge, "client", None), "_client", None)
    return getattr(sdk_client, "api_key", None) or None


def connect(address: Optional[str], workers: int):
    """A client of the scheduler at `address`, or of a new LocalCluster of `workers` processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("--engine dask needs Dask: pip install 'rt4chart[dask]' (dask[distributed])") from None

    if address:
        return Client(address, timeout="30s")
    cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                           dashboard_address=None, host="127.0.0.1")
    return Client(cluster)


def dask_lines(rows: Iterable[tuple[int, Record]], judge: Judge, config: AuditConfig, api_key: Optional[str],
               address: Optional[str] = None, workers: int = 2, partition_rows: int = 200, keep: bool = False
               ) -> Iterator[tuple]:
    """(position, output line, status) for every row, in input order, computed on Dask workers."""
    options_json = json.dumps(judge.rebuild_options(), sort_keys=True)
    config_json = config.model_dump_json()
    client = connect(address, workers)
    try:
        if api_key:
            client.register_plugin(SecretPlugin(api_key), name=SecretPlugin.name)
        slots = 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending: deque = deque()
        for chunk in _chunks(rows, partition_rows):
            pending.append(client.submit(audit_partition, chunk, judge.name, options_json, config_json, keep,
                                         pure=False))
            if len(pending) >= slots:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    finally:
        if api_key:
            try:  # remove the key from a long-lived cluster's memory once the batch is done
                client.unregister_worker_plugin(SecretPlugin.name)
            except Exception:  # noqa: BLE001 - cleanup must not mask the batch's own outcome
                pass
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and not address:
            cluster.close()
