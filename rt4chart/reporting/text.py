"""Plain-text rendering of an AuditReport for the terminal."""
from __future__ import annotations

from rt4chart.core.types import AuditReport
from rt4chart.reporting.html import coverage_text

OPEN, CLOSE = "[[", "]]"


def mark_spans(text: str, spans, open_mark: str = OPEN, close_mark: str = CLOSE) -> str:
    """`text` with each (non-overlapping, sorted) span wrapped in markers."""
    out, cursor = [], 0
    for span in sorted(spans, key=lambda s: s.start):
        if span.start < cursor:
            continue
        out += [text[cursor:span.start], open_mark, text[span.start:span.end], close_mark]
        cursor = span.end
    out.append(text[cursor:])
    return "".join(out)


def summary_line(report: AuditReport) -> str:
    counts = report.verdict_counts()
    bad = counts["contradicted"] + counts["baseless"]
    parts = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    head = {"hallucinated": "HALLUCINATED", "faithful": "FAITHFUL", "unverified": "UNVERIFIED",
            "empty": "NOTHING TO CHECK"}[report.status]
    detail = f"{bad} of {len(report.claims)} claims not supported" if report.claims else "no claims"
    return f"{head}: {detail}" + (f" ({parts})" if parts else "")


def render_text(report: AuditReport) -> str:
    """Answer with hallucinated spans in [[ ]], then each claim with verdict and evidence."""
    lines = [summary_line(report), "", f"Answer (hallucinated spans in {OPEN} {CLOSE}):",
             "  " + mark_spans(report.answer, report.spans).replace("\n", "\n  "), "", "Claims:"]
    for i, result in enumerate(report.claims, 1):
        lines.append(f"  {i}. [{result.verdict.value}] {result.claim.text}")
        if result.rationale:
            lines.append(f"     why: {result.rationale}")
        for ev in result.evidence[:3]:
            lines.append(f"     {ev.relation} (context sentence {ev.sentence_index + 1}): {ev.text}")
    lines += [""] + [f"Note: {n}" for n in report.notes]
    lines.append(f"Coverage: {coverage_text(report)}")
    return "\n".join(lines)
