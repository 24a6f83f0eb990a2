"""The two values every engine, report and store passes around: a record to audit, and its outcome."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from rt4chart.core.types import AuditReport


@dataclass
class Record:
    """One row to audit. `row` is its 1-based record number in the input; `error` is set when the
    record itself cannot be audited (e.g. invalid Unicode), which makes it a failed row, never the run's."""

    id: str
    context: str
    answer: str
    question: Optional[str] = None
    extra: dict = field(default_factory=dict)
    renamed_from: Optional[str] = None  # set when a repeated id was made unique
    row: int = 0
    error: Optional[str] = None


@dataclass
class RowResult:
    """The outcome of one record: a report, or the error that stopped it."""

    record: Record
    report: Optional[AuditReport] = None
    error: Optional[str] = None
