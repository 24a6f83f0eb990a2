"""Dataset runs: every record audited in isolation, results in input order, failures kept as rows."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Optional

from .config import AuditConfig
from .io import Record
from .judges.base import Judge
from .pipeline import audit
from .types import AuditReport


@dataclass
class RowResult:
    """The outcome of one record: a report, or the error that stopped it."""

    record: Record
    report: Optional[AuditReport] = None
    error: Optional[str] = None


def audit_record(record: Record, judge: Judge, config: Optional[AuditConfig]) -> RowResult:
    """Audit one record; any failure is captured on the row, never raised."""
    try:
        return RowResult(record, report=audit(record.context, record.answer, record.question, judge=judge,
                                              config=config))
    except Exception as exc:  # per-row isolation: a bad row is reported, the run goes on
        return RowResult(record, error=f"{type(exc).__name__}: {exc}")


def run_records(records: Iterable[Record], judge: Judge, config: Optional[AuditConfig] = None,
                workers: int = 1, progress: Optional[Callable[[RowResult], None]] = None) -> Iterator[RowResult]:
    """Audit records with up to `workers` threads; yields results in input order."""
    if workers <= 1:
        for record in records:
            result = audit_record(record, judge, config)
            if progress:
                progress(result)
            yield result
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(audit_record, r, judge, config) for r in records]
        for future in futures:
            result = future.result()
            if progress:
                progress(result)
            yield result
