"""Streaming a batch into the run store: rows are buffered and written in batches (one transaction per
batch), at the batch loop's commit points, so storing adds little to a run's time."""
from __future__ import annotations

from typing import Optional

from rt4chart.store.rows import StoredRow
from rt4chart.store.store import RunInfo, Store


class RunWriter:
    def __init__(self, store: Store, run: RunInfo, batch_rows: int = 200):
        self.store, self.run, self.batch_rows = store, run, batch_rows
        self._buffer: list[StoredRow] = []
        self.written = 0

    def add(self, row: StoredRow) -> None:
        self._buffer.append(row)
        if len(self._buffer) >= self.batch_rows:
            self.flush()

    def flush(self) -> None:
        if self._buffer:
            self.store.add_rows(self.run.id, self._buffer)
            self.written += len(self._buffer)
            self._buffer = []

    def finish(self, elapsed_s: float = 0.0, manifest: Optional[dict] = None, status: str = "complete") -> RunInfo:
        self.flush()
        if manifest is not None:
            self.store.update_manifest(self.run.id, manifest)
        self.run = self.store.finish_run(self.run.id, elapsed_s, status)
        return self.run
