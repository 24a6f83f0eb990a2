"""Reports of a stored run, read from the store only when asked for (opening a 10,000-row run reads
its flat rows, not its reports)."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Iterator

from rt4chart.core.types import AuditReport


class StoredReports(Mapping):
    """Row id -> AuditReport of one run, loaded on access and kept in a small LRU."""

    def __init__(self, store, run_id: str, row_ids: list[str], keep: int = 64):
        self._store, self._run_id, self._ids, self._keep = store, run_id, list(row_ids), keep
        self._known = set(self._ids)
        self._cache: OrderedDict[str, AuditReport] = OrderedDict()

    def __getitem__(self, row_id: str) -> AuditReport:
        if row_id not in self._known:
            raise KeyError(row_id)
        if row_id in self._cache:
            self._cache.move_to_end(row_id)
            return self._cache[row_id]
        report = self._store.report(self._run_id, row_id)
        if report is None:
            raise KeyError(row_id)
        self._cache[row_id] = report
        if len(self._cache) > self._keep:
            self._cache.popitem(last=False)
        return report

    def __contains__(self, row_id: object) -> bool:
        return row_id in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)
