"""Audited rows on their way to the run store: the one local engine that the CLI's batch (around which it
adds the file lock, the journal and the output file) and the app's batch both run."""
from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator, Optional

from rt4chart.auditing.manifest import manifest_of
from rt4chart.batch.rows import run_records
from rt4chart.batch.spec import RunSpec
from rt4chart.core.rows import Record, RowResult
from rt4chart.store.rows import pack
from rt4chart.store.store import RunInfo
from rt4chart.store.writer import RunWriter


def run_manifest(spec: RunSpec) -> dict:
    return manifest_of(spec.judge, spec.config).model_dump(mode="json")


def open_writer(spec: RunSpec, source: str, fingerprint: str = "", resume_run: Optional[str] = None,
                batch_rows: int = 200) -> Optional[RunWriter]:
    """The stored run to write into (None without a store): `resume_run` (the run a resumed journal was
    writing) while it is still unfinished, else a new one named `spec.run_name` or after the source and the
    time. Another batch of the same input and settings never writes into it."""
    if spec.store is None:
        return None
    run = spec.store.find_run(resume_run) if resume_run else None
    if run is not None and run.status != "running":
        run = None
    if run is None:
        name = spec.run_name or f"{Path(source).name} {datetime.now().strftime('%Y-%m-%d %H:%M')}"
        run = spec.store.create_run(name, judge=spec.judge.name, model=spec.judge.model, source=str(source),
                                    manifest=run_manifest(spec), mapping=spec.mapping or {}, fingerprint=fingerprint)
    return RunWriter(spec.store, run, batch_rows=batch_rows)


def audited_rows(rows: Iterable[tuple[int, Record]], spec: RunSpec) -> Iterator[tuple[int, RowResult]]:
    """(position, row) per record, in input order, with up to `spec.workers` threads."""
    positions: dict[int, int] = {}

    def records() -> Iterator[Record]:
        for position, record in rows:
            positions[id(record)] = position
            yield record

    for row in run_records(records(), spec.judge, spec.config, workers=spec.workers, cache=spec.cache):
        yield positions.pop(id(row.record)), row


class StoredBatch:
    """Audit `records` in order and keep them as one run of `spec.store` (when set): iterating yields each
    row as it is done; once the last row is stored the run is finished (time, manifest) and is `self.run`.
    A store that fails does not stop the audit: the rows go on, `store_error` says what failed, and `run`
    stays None. A batch stopped midway keeps its run, marked `cancelled`, with the rows audited so far."""

    def __init__(self, records: Iterable[Record], spec: RunSpec, source: str, batch_rows: int = 50,
                 fingerprint: str = "", resume: Optional[str] = None):
        self.records, self.spec, self.source, self.batch_rows = records, spec, source, batch_rows
        self.fingerprint = fingerprint  # of the input and settings: what makes two batches the same batch
        self.resume = resume  # a cancelled run of the same batch: its stored rows are taken, the rest audited
        self.resumed = 0
        self.run: Optional[RunInfo] = None
        self.started_run: Optional[RunInfo] = None  # the stored run, as soon as it exists
        self.store_error: Optional[str] = None

    def _failed(self, exc: Exception) -> None:
        self.store_error = f"The run could not be stored ({type(exc).__name__}: {exc})."

    def _rows(self, stored: dict[int, tuple]) -> Iterator[tuple[int, RowResult]]:
        """(position, row) of every record in order: audited, or as stored before a cancel when resuming."""
        if not stored:
            yield from audited_rows(enumerate(self.records), self.spec)
            return
        records = list(self.records)  # walked twice: once for the rows to audit, once in order
        audited = audited_rows(((p, r) for p, r in enumerate(records) if p not in stored), self.spec)
        for position, record in enumerate(records):
            if position in stored:
                report, error = stored[position]
                self.resumed += 1
                yield position, RowResult(record, report=report, error=None if report is not None else error)
            else:
                yield next(audited)

    def __iter__(self) -> Iterator[RowResult]:
        started = time.perf_counter()
        writer: Optional[RunWriter] = None
        stored: dict[int, tuple] = {}
        try:
            if self.resume and self.spec.store is not None:
                self.spec.store.reopen(self.resume)
                stored = self.spec.store.stored_results(self.resume)
            writer = open_writer(self.spec, self.source, self.fingerprint, batch_rows=self.batch_rows,
                                 resume_run=self.resume)
            self.started_run = writer.run if writer is not None else None
        except Exception as exc:  # noqa: BLE001 - keeping the run failed, auditing goes on
            self._failed(exc)
        if writer is None or writer.run.id != self.resume:
            stored = {}  # not the resumed run after all: audit everything
        finished = False
        try:
            for position, row in self._rows(stored):
                if writer is not None and position not in stored:
                    try:
                        writer.add(pack(position, row))
                    except Exception as exc:  # noqa: BLE001
                        writer = None
                        self._failed(exc)
                yield row
            finished = True
        finally:
            if writer is not None and not finished:  # stopped midway (Cancel, the page left): keep what is done
                try:
                    writer.flush()
                    writer.store.mark_cancelled(writer.run.id)
                except Exception as exc:  # noqa: BLE001
                    self._failed(exc)
        if writer is not None:
            try:
                self.run = writer.finish(time.perf_counter() - started, manifest=run_manifest(self.spec))
            except Exception as exc:  # noqa: BLE001
                self._failed(exc)
