"""File-to-file batch audits (`rt4chart predict` and `rt4chart batch`): streamed input, results in
input order, per-row errors kept as rows, optional checkpoint journal for resume after a kill."""
from __future__ import annotations

import json
import os
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

from . import __version__
from .batch import RowResult, run_records
from .cache import MemoCache
from .config import AuditConfig
from .io import Record, iter_records, prediction
from .journal import Journal, file_digest, run_fingerprint
from .judges.base import Judge


@dataclass
class BatchSummary:
    """What a batch run did."""

    rows: int = 0
    audited: int = 0
    failed: int = 0
    resumed: int = 0
    renamed_ids: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


def output_line(row: RowResult) -> dict:
    """The output line of one row: the prediction, or the row's error (never silently dropped)."""
    if row.report is not None:
        return prediction(row.record.id, row.report)
    return {"id": row.record.id, "hallucinated": None, "status": "error", "spans": [], "claims": [],
            "error": row.error}


def run_settings(judge: Judge, config: AuditConfig) -> dict:
    return {"version": __version__, "judge": judge.name, "model": judge.model, "judge_settings": judge.settings(),
            "config": config.model_dump()}


ENGINES = ("local", "dask")


def _lines(rows: Iterator[tuple[int, Record]], judge: Judge, config: AuditConfig, engine: str, workers: int,
           cache: Optional[MemoCache], dask_address: Optional[str], partition_rows: int
           ) -> Iterator[tuple[int, str, bool]]:
    """(position, output line, failed) per row, in input order, from the chosen engine."""
    if engine == "dask":
        from .dask_engine import api_key_of, dask_lines

        yield from dask_lines(rows, judge, config, api_key_of(judge), dask_address, workers, partition_rows)
        return
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    positions: dict[int, int] = {}

    def records() -> Iterator[Record]:
        for position, record in rows:
            positions[id(record)] = position
            yield record

    for row in run_records(records(), judge, config, workers=workers, cache=cache):
        yield positions.pop(id(row.record)), json.dumps(output_line(row), ensure_ascii=False), row.report is None


def run_batch(input_path: str, output_path: str, judge: Judge, config: Optional[AuditConfig] = None,
              workers: int = 1, journal_path: Optional[str] = None, resume: bool = True,
              cache: Optional[MemoCache] = None, progress: Optional[Callable[..., None]] = None,
              mapping: Optional[dict] = None, engine: str = "local", dask_address: Optional[str] = None,
              partition_rows: int = 200) -> BatchSummary:
    """Audit every record of `input_path` into `output_path` (JSONL, one line per input row, in order).

    With a journal, each finished row is committed before the next is reported, and a re-run with the
    same input and settings skips the rows already done."""
    config = config or AuditConfig()
    started = time.perf_counter()
    summary = BatchSummary()
    journal = None
    if journal_path:
        fingerprint = run_fingerprint(file_digest(input_path), run_settings(judge, config))
        journal = Journal(journal_path, fingerprint)
    try:
        done = journal.done_positions() if (journal and resume) else set()
        summary.resumed = len(done)

        def todo() -> Iterator[tuple[int, Record]]:
            for position, record in enumerate(iter_records(input_path, mapping)):
                summary.rows += 1
                if record.renamed_from is not None:
                    summary.renamed_ids.append(record.renamed_from)
                if position not in done:
                    yield position, record

        out_tmp = Path(f"{output_path}.partial")
        Path(output_path).parent.mkdir(parents=True, exist_ok=True)
        with ExitStack() as stack:
            direct = None if journal is not None else stack.enter_context(open(out_tmp, "w", encoding="utf-8"))
            for position, line, failed in _lines(todo(), judge, config, engine, workers, cache, dask_address,
                                                 partition_rows):
                summary.audited += 1
                if progress:
                    progress()
                if journal is not None:
                    journal.record(position, line, failed)
                else:
                    summary.failed += failed
                    direct.write(line + "\n")
        if journal is not None:
            with open(out_tmp, "w", encoding="utf-8") as out:
                for line in journal.lines():
                    out.write(line + "\n")
            summary.failed = journal.failed()
        os.replace(out_tmp, output_path)
    finally:
        if journal is not None:
            journal.close()
        Path(f"{output_path}.partial").unlink(missing_ok=True)
    summary.elapsed_s = time.perf_counter() - started
    return summary
