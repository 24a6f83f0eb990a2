"""What the run store keeps of one audited row: the flat result row (tables, metrics), the input record
exactly as read, and the full report compressed (drill-down). Pure: no database here, so engines (and
Dask workers) can pack rows where the report is."""
from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass
from typing import Optional

from rt4chart.core.rows import RowResult
from rt4chart.core.types import AuditReport
from rt4chart.data.predictions import json_line
from rt4chart.reporting.rows import result_row


@dataclass
class StoredRow:
    position: int
    row_id: str
    match_key: str
    status: str
    hallucinated: Optional[bool]
    score: Optional[float]
    result: str            # JSON of the flat result row
    record: str            # JSON of the input record
    report: Optional[bytes]
    elapsed_s: float = 0.0


def match_key(context: str, answer: str) -> str:
    """Pairs the same (context, answer) across runs whose ids differ."""
    return hashlib.sha1(f"{context}\x00{answer}".encode("utf-8", "surrogatepass")).hexdigest()


def pack(position: int, row: RowResult) -> StoredRow:
    record = row.record
    report = row.report
    flat = result_row(row, [k for k in record.extra if isinstance(k, str)])
    return StoredRow(
        position=position, row_id=record.id, match_key=match_key(record.context, record.answer),
        status=report.status if report is not None else "error",
        hallucinated=report.hallucinated if report is not None else None,
        score=getattr(report, "score", None) if report is not None else None,
        result=json_line(_plain(flat)),
        record=json_line(_plain({"id": record.id, "row": record.row, "question": record.question,
                                 "context": record.context, "answer": record.answer, "extra": record.extra,
                                 "renamed_from": record.renamed_from, "error": record.error})),
        report=zlib.compress(report.model_dump_json().encode("utf-8", "surrogatepass"), 1) if report else None,
        elapsed_s=report.coverage.elapsed_s if report is not None else 0.0)


def _plain(value):
    """JSON-safe: values a Parquet file may hold (timestamps, decimals) become text."""
    return json.loads(json.dumps(value, default=str))


def unpack_report(blob: bytes) -> AuditReport:
    return AuditReport.model_validate_json(zlib.decompress(blob).decode("utf-8", "surrogatepass"))
