"""A self-contained HTML report of a batch audit, for stakeholders: one file, inline CSS and SVG,
no scripts, no external assets (a Content-Security-Policy says so), every piece of user text escaped.

Sections: headline rate with its 95% interval, verdict mix, rates by group (gold beside the judge's
when a gold column is mapped), agreement with gold, the answers with the most issues, a few highlighted
example answers, and the run manifest.
"""
from __future__ import annotations

import json
from typing import Mapping, Optional, Sequence

import pandas as pd

from rt4chart.core.types import AuditReport
from rt4chart.evaluation.metrics import as_bool, fmt, hallucination_rate
from rt4chart.reporting.html import CSS, STYLE, answer_html, claims_table_html, esc, legend_html
from rt4chart.reporting.rows import gold_scores
from rt4chart.reporting.views import group_rates

VERDICTS = ("contradicted", "baseless", "unverified", "entailed")
_PAGE_CSS = ("body{max-width:1040px;margin:2rem auto;padding:0 1rem;font-family:system-ui,sans-serif;color:#222}"
             ".rt4-head{display:flex;gap:2rem;flex-wrap:wrap}.rt4-big{font-size:2.2rem;font-weight:700}"
             ".rt4-small{color:#555;font-size:.9rem}section{margin:1.6rem 0}.rt4-example{border:1px solid #ddd;"
             "border-radius:6px;padding:.8rem;margin:.8rem 0}")


def _pct(x: Optional[float]) -> str:
    return "–" if x is None or x != x else f"{x:.1%}"


def _bars(items: list[tuple[str, float, str]], max_value: float, fmt_value, width: int = 520) -> str:
    """A horizontal SVG bar chart of (label, value, colour)."""
    row_h, label_w = 26, 180
    height = row_h * len(items) + 6
    parts = [f'<svg role="img" width="{width + label_w + 70}" height="{height}" xmlns="http://www.w3.org/2000/svg" '
             'font-family="system-ui,sans-serif" font-size="13">']
    for i, (label, value, colour) in enumerate(items):
        y = 3 + i * row_h
        w = 0 if not max_value else int(width * max(0.0, value) / max_value)
        parts.append(f'<text x="{label_w - 6}" y="{y + 17}" text-anchor="end">{esc(label[:28])}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 8}" fill="{colour}"/>'
                     f'<text x="{label_w + w + 6}" y="{y + 17}">{esc(fmt_value(value))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _headline(df: pd.DataFrame, failed: int) -> str:
    r = hallucination_rate(df["hallucinated"])
    k, n, (low, high), rate = r.count, r.decided, r.interval, r.value or 0.0
    unverified = int((df["status"] == "unverified").sum())
    return (f'<div class="rt4-head"><div><div class="rt4-big">{rate:.1%}</div><div class="rt4-small">of answers '
            f'hallucinated ({k} of {n}); 95% interval {low:.1%}–{high:.1%}</div></div>'
            f'<div><div class="rt4-big">{len(df) + failed}</div><div class="rt4-small">rows: {len(df)} audited, '
            f'{unverified} unverified (judge failures, in no rate), {failed} failed</div></div></div>')


def _verdict_mix(df: pd.DataFrame) -> str:
    totals = [(v, float(df[v].sum()) if v in df else 0.0, STYLE[v]["fg"]) for v in VERDICTS]
    return _bars(totals, max((t[1] for t in totals), default=0) or 1, lambda v: f"{int(v)} claims")


def _groups(df: pd.DataFrame, groups: list[str], gold: Optional[str]) -> str:
    blocks = []
    for group in groups:
        if group not in df:
            continue
        rates = group_rates(df, group, gold)
        head = "<tr><th>" + esc(group) + "</th><th>answers</th><th>judge rate (95% CI)</th>"
        head += "<th>gold rate (95% CI)</th><th>false pos.</th><th>false neg.</th>" if gold else ""
        rows = []
        for r in rates.to_dict("records"):
            cells = (f"<td>{esc(r[group])}</td><td>{r['answers']}</td><td>{_pct(r['predicted_rate'])} "
                     f"({_pct(r['predicted_low'])}–{_pct(r['predicted_high'])})</td>")
            if gold:
                cells += (f"<td>{_pct(r.get('gold_rate'))} ({_pct(r.get('gold_low'))}–{_pct(r.get('gold_high'))})</td>"
                          f"<td>{r.get('false_positives', 0)}</td><td>{r.get('false_negatives', 0)}</td>")
            rows.append(f"<tr>{cells}</tr>")
        blocks.append(f"<h3>By {esc(group)}</h3><table class='rt4-table'>{head}</tr>{''.join(rows)}</table>")
    return "".join(blocks)


def _gold(rows: list[dict], gold: str, answers: dict[str, str], spans_column: Optional[str]) -> str:
    s = gold_scores(rows, gold, gold_spans_column=spans_column, answers=answers)
    spans = (f"<p>Character spans over {s.span_records} answers: P {fmt(s.span_precision)} · R "
             f"{fmt(s.span_recall)} · F1 {fmt(s.span_f1)}</p>" if s.span_records else "")
    return (f"<h2>Against gold labels ({esc(gold)})</h2><p>Precision {fmt(s.precision)} · Recall {fmt(s.recall)} · "
            f"F1 {fmt(s.f1)} · Balanced accuracy {fmt(s.balanced_accuracy)}</p><table class='rt4-table'>"
            f"<tr><th></th><th>judge: hallucinated</th><th>judge: faithful</th></tr><tr><th>gold: hallucinated</th>"
            f"<td>{s.tp}</td><td>{s.fn}</td></tr><tr><th>gold: faithful</th><td>{s.fp}</td><td>{s.tn}</td></tr>"
            f"</table>{spans}")


def _disagreements(df: pd.DataFrame, gold: str, n: int = 25) -> str:
    """The rows where the judge and the gold label disagree: false positives, then false negatives."""
    decided = df[df["hallucinated"].notna() & df[gold].map(lambda v: v not in (None, ""))]
    judged = decided["hallucinated"].astype(bool)
    truth = decided[gold].map(as_bool)
    blocks = []
    for name, mask in (("False positives (judge: hallucinated, gold: faithful)", judged & ~truth),
                       ("False negatives (judge: faithful, gold: hallucinated)", ~judged & truth)):
        part = decided[mask].sort_values("id")
        if part.empty:
            blocks.append(f"<h3>{name}</h3><p>None.</p>")
            continue
        rows = "".join(f"<tr><td>{esc(r['id'])}</td><td>{esc(r.get('hallucinated_text') or '')}</td></tr>"
                       for r in part.head(n).to_dict("records"))
        more = f"<p>…and {len(part) - n} more (the Batch page's “Judge vs gold” filter lists all).</p>" \
            if len(part) > n else ""
        blocks.append(f"<h3>{name}: {len(part)}</h3><table class='rt4-table'><tr><th>row</th>"
                      f"<th>flagged text</th></tr>{rows}</table>{more}")
    return "".join(blocks)


def _top_issues(df: pd.DataFrame, n: int = 10) -> str:
    issues = df.assign(issues=df["contradicted"] + df["baseless"])
    issues = issues[issues["issues"] > 0].sort_values(["issues", "id"], ascending=[False, True]).head(n)
    if issues.empty:
        return "<p>No answer has a contradicted or baseless claim.</p>"
    rows = "".join(f"<tr><td>{esc(r['id'])}</td><td>{r['issues']}</td><td>{r['contradicted']}</td>"
                   f"<td>{r['baseless']}</td><td>{esc(r['hallucinated_text'])}</td></tr>"
                   for r in issues.to_dict("records"))
    return ("<table class='rt4-table'><tr><th>row</th><th>issues</th><th>contradicted</th><th>baseless</th>"
            f"<th>flagged text</th></tr>{rows}</table>")


def _examples(reports: Mapping[str, AuditReport], ids: list[str], n: int) -> str:
    blocks = []
    for row_id in ids[:n]:
        report = reports.get(row_id)
        if report is None:
            continue
        question = f"<p><b>Question:</b> {esc(report.question)}</p>" if report.question else ""
        blocks.append(f"<div class='rt4-example'><h3>Row {esc(row_id)}</h3>{question}{answer_html(report, numbered=True)}"
                      f"{claims_table_html(report)}</div>")
    return "".join(blocks) or "<p>No hallucinated answer to show.</p>"


def batch_report_html(rows: list[dict], reports: Mapping[str, AuditReport], groups: Sequence[str] = (),
                      gold: Optional[str] = None, gold_spans: Optional[str] = None,
                      answers: Optional[dict[str, str]] = None, manifest: Optional[dict] = None,
                      title: str = "rt4chart batch audit", examples: int = 5) -> str:
    """The whole report as one HTML page."""
    df = pd.DataFrame(rows)
    failed = int((df["status"] == "error").sum()) if len(df) else 0
    audited = df[df["status"] != "error"] if len(df) else df
    if audited.empty:
        body = "<p>No row was audited.</p>"
    else:
        flagged = audited[audited["hallucinated"] == True]  # noqa: E712 - elementwise
        ranked = flagged.assign(issues=flagged["contradicted"] + flagged["baseless"]).sort_values(
            ["issues", "id"], ascending=[False, True])
        body = (f"<section>{_headline(audited, failed)}</section>"
                f"<section><h2>Claims by verdict</h2>{_verdict_mix(audited)}</section>"
                + (f"<section><h2>Rates by group</h2>{_groups(audited, list(groups), gold)}</section>" if groups else "")
                + (f"<section>{_gold(rows, gold, answers or {}, gold_spans)}</section>"
                   f"<section><h2>Where the judge and gold disagree</h2>{_disagreements(audited, gold)}</section>"
                   if gold and gold in df else "")
                + f"<section><h2>Answers with the most issues</h2>{_top_issues(audited)}</section>"
                f"<section><h2>Examples</h2>{legend_html()}{_examples(reports, [str(i) for i in ranked['id']], examples)}"
                "</section>")
    manifest_text = esc(json.dumps(manifest or {}, indent=2, ensure_ascii=False, default=str))
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<style>{_PAGE_CSS}{CSS}</style></head><body><h1>{esc(title)}</h1>{body}"
            f"<section><h2>Run manifest</h2><pre>{manifest_text}</pre></section></body></html>")
