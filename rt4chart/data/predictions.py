"""What `predict` and `batch` write per record: the prediction line (the benchmark format plus claims), or
the row's error, as one exact JSON line."""
from __future__ import annotations

import json

from rt4chart.core.rows import RowResult
from rt4chart.core.types import AuditReport
from rt4chart.data.records import unicode_problem


def json_line(obj: dict) -> str:
    """One JSON line, readable UTF-8 where possible; text no UTF-8 can carry (a lone surrogate in an
    id) is written as a JSON escape, so the line is still exact and the file still valid."""
    line = json.dumps(obj, ensure_ascii=False)
    return line if unicode_problem(line) is None else json.dumps(obj)


def _coverage(report: AuditReport) -> dict:
    """The report's coverage without timings (outputs are reproducible) and without the local model's
    counters when no model read anything (judges without a model write what they always wrote)."""
    out = report.coverage.model_dump(exclude={"elapsed_s"})
    for key in ("model_pairs", "model_tokens"):
        if not out.get(key):
            out.pop(key, None)
    return out


def prediction(record_id: str, report: AuditReport) -> dict:
    """One line of `rt4chart predict` output (the benchmark prediction format plus claims)."""
    return {
        "id": record_id,
        "hallucinated": report.hallucinated,
        "score": report.score,
        "status": report.status,
        "spans": [{"start": s.start, "end": s.end} for s in report.spans],
        "claims": [{"text": c.claim.text, "verdict": c.verdict.value, "score": c.score, "rationale": c.rationale,
                    "spans": [{"start": s.start, "end": s.end} for s in c.claim.spans],
                    "hallucinated_spans": [{"start": s.start, "end": s.end} for s in c.hallucinated_spans],
                    "evidence": [{"sentence_index": e.sentence_index, "start": e.start, "end": e.end,
                                  "relation": e.relation, "text": e.text} for e in c.evidence]}
                   for c in report.claims],
        "coverage": _coverage(report),
    }


def output_line(row: RowResult) -> dict:
    """The output line of one row: the prediction, or the row's error (never silently dropped).
    `row` is the record's 1-based number in the input, so every line links back to its input row."""
    if row.report is not None:
        line = prediction(row.record.id, row.report)
    else:
        line = {"id": row.record.id, "hallucinated": None, "status": "error", "spans": [], "claims": [],
                "error": row.error}
    return {"id": line.pop("id"), "row": row.record.row, **line}


def row_status(row: RowResult) -> str:
    return row.report.status if row.report is not None else "error"
