"""An audited row on its way to a batch's sinks (the output file, the journal, the stored run): every executor
projects its rows with `projected`, so a row gives the same line whichever executor audited it."""
from __future__ import annotations

from typing import NamedTuple, Optional

from rt4chart.core.rows import RowResult
from rt4chart.data.predictions import json_line, output_line, row_status
from rt4chart.store.rows import StoredRow, pack


class AuditedLine(NamedTuple):
    """One audited row on its way to the sinks."""

    position: int
    line: str                     # the predictions line
    status: str                   # row_status of the row
    stored: Optional[StoredRow]   # the row packed for the run store, when the sinks store it (else None)


def projected(position: int, row: RowResult, keep: bool) -> AuditedLine:
    """The one projection of an audited row: its predictions line, its status and, with `keep`, its stored row."""
    return AuditedLine(position, json_line(output_line(row)), row_status(row), pack(position, row) if keep else None)
