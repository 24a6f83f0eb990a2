"""Flat result rows of a batch audit, their exports, and dataset-level summaries."""
from __future__ import annotations

import csv
import hashlib
import io
import json
from typing import Iterable, Optional

from rt4chart.core.rows import RowResult
from rt4chart.data.columns import detect_gold_column, detect_group_columns  # noqa: F401 - re-exported
from rt4chart.evaluation.metrics import Scores, as_bool, score
from rt4chart.reporting.printable import printable


def context_key(context: str) -> str:
    """A short stable id of a context, to group answers that share their retrieved passages."""
    return hashlib.sha1(context.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def result_row(row: RowResult, extra_columns: Iterable[str] = ()) -> dict:
    """One flat row: id, status, verdict counts, spans as JSON, cost, error, and chosen input columns."""
    out = {"id": row.record.id}
    for column in extra_columns:
        value = row.record.extra.get(column)
        out[column] = "" if value is None else value
    out.update(_outcome(row))
    out.update({"context_id": context_key(row.record.context),
                "context_preview": " ".join(row.record.context.split())[:120]})
    return out


def _outcome(row: RowResult) -> dict:
    """Status, the hallucinated text, verdict counts, spans, cost and error of one row."""
    report = row.report
    if report is None:
        return {"status": "error", "hallucinated": None, "score": None, "hallucinated_text": "", "claims": 0,
                "entailed": 0,
                "contradicted": 0, "baseless": 0, "unverified": 0, "spans": "[]", "judge_calls": 0, "tokens": 0,
                "elapsed_s": 0.0, "error": row.error or "unknown error"}
    return {"status": report.status, "hallucinated": report.hallucinated, "score": report.score,
            "hallucinated_text": " … ".join(s.slice(report.answer) for s in report.spans)[:500],
            "claims": len(report.claims), **report.verdict_counts(),
            "spans": json.dumps([{"start": s.start, "end": s.end} for s in report.spans]),
            "judge_calls": report.coverage.cost.calls,
            "tokens": report.coverage.cost.tokens,
            "elapsed_s": report.coverage.elapsed_s, "error": "", **_reflection_columns(report)}


def _reflection_columns(report) -> dict:
    """Rounds, flips and the answer-level decision before reflection (to see whether it helped)."""
    if report.reflection is None:
        return {}
    before = any(r.history and r.history[0].is_hallucination for r in report.claims)
    return {"reflection_rounds": len(report.reflection.rounds), "reflection_flips": report.reflection.flips,
            "hallucinated_before_reflection": before}


def reflection_effect(rows: list[dict], gold_column: Optional[str] = None) -> dict:
    """How often reflection changed a verdict or the answer's decision; with gold labels, whether
    the changed decisions got better (fixed) or worse (broken)."""
    reflected = [r for r in rows if r.get("reflection_rounds") not in (None, "")]
    out = {"answers": len(reflected), "with_flips": sum(1 for r in reflected if r.get("reflection_flips")),
           "decision_changed": 0, "fixed": None, "broken": None}
    changed = [r for r in reflected if bool(r.get("hallucinated")) != bool(r.get("hallucinated_before_reflection"))]
    out["decision_changed"] = len(changed)
    if gold_column:
        labelled = [r for r in changed if r.get(gold_column) not in (None, "")]
        fixed = sum(1 for r in labelled if bool(r.get("hallucinated")) == as_bool(r[gold_column]))
        out["fixed"], out["broken"] = fixed, len(labelled) - fixed
    return out


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """A cell a spreadsheet will show as text, never run: text starting like a formula gets a leading
    apostrophe (OWASP's advice against CSV injection); numbers stay numbers; lone surrogates as escapes."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + printable(value)
    return printable(value)


def to_csv(rows: list[dict]) -> str:
    if not rows:
        return ""
    buffer = io.StringIO()
    fields = list(dict.fromkeys(k for r in rows for k in r))
    writer = csv.DictWriter(buffer, fieldnames=[spreadsheet_safe(f) for f in fields])
    writer.writeheader()
    writer.writerows({spreadsheet_safe(k): spreadsheet_safe(v) for k, v in r.items()} for r in rows)
    return buffer.getvalue()


def to_jsonl(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        item = dict(r)
        if isinstance(item.get("spans"), str):
            item["spans"] = json.loads(item["spans"])
        lines.append(json.dumps(item, ensure_ascii=False, default=str))
    return "\n".join(lines) + ("\n" if lines else "")


def gold_scores(rows: list[dict], gold_column: str, gold_spans_column: Optional[str] = None,
                answers: Optional[dict[str, str]] = None) -> Scores:
    """P/R/F1/BA (and span F1 when gold spans are given) of audited rows against a gold column —
    the same computation as `rt4chart bench` and score.py."""
    gold, preds = [], {}
    for r in rows:
        if r.get("status") == "error" or r.get(gold_column) in (None, ""):
            continue
        g = {"id": r["id"], "hallucinated": as_bool(r[gold_column]), "answer": (answers or {}).get(r["id"], "")}
        if gold_spans_column and r.get(gold_spans_column) not in (None, ""):
            spans = r[gold_spans_column]
            g["spans"] = json.loads(spans) if isinstance(spans, str) else spans
            g["span_annotated"] = True
        else:
            g["span_annotated"] = False
        gold.append(g)
        spans = r.get("spans") or "[]"
        preds[r["id"]] = {"hallucinated": bool(r.get("hallucinated")), "score": r.get("score"),
                          "spans": json.loads(spans) if isinstance(spans, str) else spans}
    return score(gold, preds)
