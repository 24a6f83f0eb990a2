"""Pure HTML rendering of audit results (used by the app and the HTML report; no Streamlit).

Every piece of user text goes through `html.escape`; verdicts are shown by colour *and* by
underline style and a text label, so they stay distinguishable without colour vision.
"""
from __future__ import annotations

import html
from typing import Iterable, Optional, Sequence

from rt4chart.core.cost import Cost
from rt4chart.core.counted import counted
from rt4chart.core.types import AuditReport, Span, Verdict
from rt4chart.reporting.printable import printable

STYLE = {
    "contradicted": {"bg": "#fde2e1", "fg": "#8a1c17", "line": "3px double #c62828", "label": "Contradicted"},
    "baseless": {"bg": "#fff1c2", "fg": "#6b4e00", "line": "2px dashed #b7791f", "label": "Baseless"},
    "unverified": {"bg": "#e8e8f0", "fg": "#333366", "line": "2px dotted #555588", "label": "Unverified"},
    "entailed": {"bg": "#dcf3e3", "fg": "#1b5e20", "line": "2px solid #2e7d32", "label": "Entailed"},
}
ACCENT = "#1565c0"      # gold labels and neutral series in figures
MARKER = "#c62828"      # the point in use (e.g. the threshold on a curve)
STATUS_COLOURS = {"hallucinated": STYLE["contradicted"]["fg"], "faithful": STYLE["entailed"]["fg"],
                  "unverified": STYLE["unverified"]["fg"], "empty": "#777777", "error": "#000000"}
EVIDENCE_STYLE = {
    "supports": ("#dcf3e3", "2px solid #2e7d32", "supports"),
    "contradicts": ("#fde2e1", "3px double #c62828", "contradicts"),
    "nearest": ("#eeeeee", "2px dotted #777777", "nearest (does not support)"),
}
_PRIORITY = {"contradicted": 3, "baseless": 2, "unverified": 1}

CSS = """
.rt4-text{white-space:pre-wrap;line-height:1.7;font-size:1rem;font-family:system-ui,-apple-system,Segoe UI,sans-serif}
.rt4-mark{padding:1px 2px;border-radius:3px}
.rt4-selected{outline:2px solid #1565c0;outline-offset:1px}
.rt4-legend{display:flex;gap:.8rem;flex-wrap:wrap;font-size:.9rem;margin:.3rem 0 .6rem}
.rt4-banner{padding:.7rem 1rem;border-radius:6px;font-weight:600;margin-bottom:.5rem}
.rt4-table{border-collapse:collapse;width:100%;font-size:.92rem}
.rt4-table td,.rt4-table th{border:1px solid #ddd;padding:.35rem .5rem;vertical-align:top;text-align:left}
.rt4-badge{display:inline-block;padding:0 .4rem;border-radius:3px;font-size:.8rem;font-weight:600}
.rt4-num{font-size:.7rem;font-weight:700;vertical-align:super;margin-left:1px;color:#1565c0}
.rt4-plain{white-space:pre-wrap;overflow-wrap:anywhere;font-family:system-ui,-apple-system,Segoe UI,sans-serif}
.rt4-label{font-weight:600;margin-right:.3rem}
.rt4-notice{padding:.6rem .9rem;border-radius:6px;margin:.3rem 0;white-space:pre-wrap;overflow-wrap:anywhere}
.rt4-notice-info{background:#e8f0fe;color:#0b3d91}.rt4-notice-warning{background:#fff4d6;color:#6b4e00}
.rt4-notice-error{background:#fde2e1;color:#8a1c17}.rt4-notice-success{background:#dcf3e3;color:#1b5e20}
"""


def esc(text: object) -> str:
    """HTML-escape anything, quotes included (safe in text and attribute values); lone surrogates as escapes."""
    return html.escape(printable("" if text is None else str(text)), quote=True)


def plain_html(text: object, label: str = "", tag: str = "div") -> str:
    """User text shown as text: escaped, no Markdown, LaTeX or HTML interpretation, nothing fetched."""
    head = f'<span class="rt4-label">{esc(label)}</span>' if label else ""
    return f'<{tag} class="rt4-plain">{head}{esc(text)}</{tag}>'


def notice_html(kind: str, text: object) -> str:
    """An info/warning/error/success box around plain text (for messages that quote user input)."""
    kind = kind if kind in ("info", "warning", "error", "success") else "info"
    return f'<div class="rt4-notice rt4-notice-{kind}" role="alert" data-kind="{kind}">{esc(text)}</div>'


def mark(text: str, verdict: str, title: str = "", selected: bool = False) -> str:
    s = STYLE[verdict]
    cls = "rt4-mark rt4-selected" if selected else "rt4-mark"
    return (f'<mark class="{cls}" data-verdict="{verdict}" title="{esc(title)}" '
            f'style="background:{s["bg"]};color:{s["fg"]};border-bottom:{s["line"]}">{esc(text)}</mark>')


def badge(verdict: str) -> str:
    s = STYLE.get(verdict, STYLE["unverified"])
    return (f'<span class="rt4-badge" style="background:{s["bg"]};color:{s["fg"]};border-bottom:{s["line"]}">'
            f'{esc(s["label"])}</span>')


def legend_html() -> str:
    items = [mark(STYLE[v]["label"], v) for v in ("contradicted", "baseless", "unverified")]
    evidence = [f'<span class="rt4-mark" style="background:{bg};border-bottom:{line}">evidence: {esc(label)}</span>'
                for bg, line, label in EVIDENCE_STYLE.values()]
    return f'<div class="rt4-legend">{"".join(items + evidence)}</div>'


def paint(text: str, intervals: Iterable[tuple[int, int, str, str]], selected: Sequence[Span] = (),
          numbers: Optional[dict[int, str]] = None) -> str:
    """`text` with (start, end, verdict, title) intervals marked; overlaps show the most severe verdict.
    `numbers` maps an end offset to a label shown after it (the claim number of a flagged span)."""
    cuts = {0, len(text)}
    items = [(max(0, s), min(len(text), e), v, t) for s, e, v, t in intervals if e > s]
    for s, e, _, _ in items:
        cuts.update((s, e))
    for span in selected:
        cuts.update((max(0, span.start), min(len(text), span.end)))
    points = sorted(cuts)
    out = []
    for a, b in zip(points, points[1:]):
        covering = [(v, t) for s, e, v, t in items if s <= a and b <= e]
        is_selected = any(sp.start <= a and b <= sp.end for sp in selected)
        piece = text[a:b]
        if covering:
            verdict, title = max(covering, key=lambda vt: _PRIORITY.get(vt[0], 0))
            out.append(mark(piece, verdict, title, is_selected))
        elif is_selected:
            out.append(f'<span class="rt4-selected">{esc(piece)}</span>')
        else:
            out.append(esc(piece))
        if numbers and b in numbers:
            out.append(f'<sup class="rt4-num">{esc(numbers[b])}</sup>')
    return "".join(out)


def answer_html(report: AuditReport, selected_claim: Optional[int] = None, numbered: bool = False) -> str:
    """The answer with each hallucinated span marked by its claim's verdict; with `numbered`, each
    flagged stretch is followed by its claim's number (the number the claim list and inspector use)."""
    intervals = []
    numbers: dict[int, str] = {}
    for result in report.claims:
        flagged = list(result.hallucinated_spans)
        if result.verdict is Verdict.UNVERIFIED:
            intervals += [(s.start, s.end, "unverified", result.rationale) for s in result.claim.spans]
            flagged = list(result.claim.spans)
        for span in result.hallucinated_spans:
            intervals.append((span.start, span.end, result.verdict.value,
                              f"claim {result.claim.id + 1} · {result.verdict.value}: {result.rationale}"))
        if numbered and flagged:
            end = max(s.end for s in flagged)
            numbers[end] = ",".join(filter(None, [numbers.get(end), str(result.claim.id + 1)]))
    selected = next((r.claim.spans for r in report.claims if r.claim.id == selected_claim), [])
    return f'<div class="rt4-text" data-role="answer">{paint(report.answer, intervals, selected, numbers)}</div>'


def context_html(report: AuditReport, claim_ids: Optional[Iterable[int]] = None) -> str:
    """The context with evidence sentences highlighted (of the given claims, or of all claims), each
    followed by the numbers of the claims it is evidence for."""
    wanted = set(claim_ids) if claim_ids is not None else None
    rank = {"contradicts": 3, "supports": 2, "nearest": 1}
    best: dict[tuple[int, int], str] = {}
    owners: dict[tuple[int, int], list[int]] = {}
    for result in report.claims:
        if wanted is not None and result.claim.id not in wanted:
            continue
        for ev in result.evidence:
            key = (ev.start, ev.end)
            if rank[ev.relation] > rank.get(best.get(key, ""), 0):
                best[key] = ev.relation
            if result.claim.id + 1 not in owners.setdefault(key, []):
                owners[key].append(result.claim.id + 1)
    out, cursor = [], 0
    text = report.context
    for (start, end), relation in sorted(best.items()):
        if start < cursor:
            continue
        bg, line, label = EVIDENCE_STYLE[relation]
        claims = ",".join(map(str, owners[(start, end)]))
        out.append(esc(text[cursor:start]))
        out.append(f'<mark class="rt4-mark" data-evidence="{relation}" data-claims="{claims}" '
                   f'title="{esc(label)} (claim {claims})" style="background:{bg};border-bottom:{line}">'
                   f'{esc(text[start:end])}</mark><sup class="rt4-num">{claims}</sup>')
        cursor = end
    out.append(esc(text[cursor:]))
    return f'<div class="rt4-text" data-role="context">{"".join(out)}</div>'


def banner_html(report: AuditReport) -> str:
    counts = report.verdict_counts()
    colours = {"hallucinated": ("#fde2e1", "#8a1c17"), "faithful": ("#dcf3e3", "#1b5e20"),
               "unverified": ("#e8e8f0", "#333366"), "empty": ("#eeeeee", "#333333")}
    bg, fg = colours[report.status]
    head = {"hallucinated": "Hallucinated", "faithful": "No hallucination found", "unverified": "Not verified",
            "empty": "Nothing to check"}[report.status]
    detail = " · ".join(f"{n} {v}" for v, n in counts.items() if n) or "no claims"
    if report.score is not None:
        detail += f" · score {report.score:.2f}"
    threshold = (report.manifest.settings.get("audit") or {}).get("threshold")
    if threshold is not None and report.status in ("hallucinated", "faithful"):  # a threshold of the user's decides
        flagged = counts.get("contradicted", 0) + counts.get("baseless", 0)
        head += f" at your threshold {float(threshold):.2f}"
        if report.status == "faithful" and flagged:
            detail += " (below the threshold: its flagged claims do not flag the answer)"
    return (f'<div class="rt4-banner" data-status="{report.status}" style="background:{bg};color:{fg}">'
            f'{esc(head)} — {esc(detail)}</div>')


def coverage_text(report: AuditReport) -> str:
    c, cost = report.coverage, report.coverage.cost
    audit = report.manifest.settings.get("audit", {})
    shape = (f" of {audit['window_size']} every {audit['window_stride']}"
             if "window_size" in audit and "window_stride" in audit else "")
    text = (f"{counted(c.context_sentences, 'context sentence')} · {counted(c.windows, 'window')}{shape} · "
            f"{counted(c.window_checks, 'window check')} · {counted(cost.calls, 'judge call')}"
            + (f" (plan {c.planned_calls})" if c.planned_calls else "")
            + (f" ({cost.failed_calls} failed)" if cost.failed_calls else "") + f" + {cost.cached_calls} cached · "
            f"{cost.prompt_tokens:,} prompt + "
            f"{cost.completion_tokens:,} completion tokens · {c.elapsed_s:.2f} s · judge: {report.manifest.judge}")
    if report.manifest.model:
        text += f" ({report.manifest.model})"
    if report.reflection is not None:
        r = report.reflection
        spent = Cost.total(x.cost for x in r.rounds)
        text += (f" · reflection: {len(r.rounds)}/{r.max_rounds} rounds, {r.flips} flips, "
                 f"{spent.calls} calls, {spent.tokens:,} tokens"
                 + (", success" if r.success else (f", stopped: {r.failure}" if r.failure else ", cap reached")))
    return text


def claim_rows(report: AuditReport) -> list[dict]:
    """One plain row per claim, for tables."""
    rows = []
    for r in report.claims:
        rows.append({"#": r.claim.id + 1, "claim": r.claim.text, "verdict": r.verdict.value,
                     "local": r.local_verdict.value,
                     "evidence": " | ".join(f"[{e.relation}] {e.text}" for e in r.evidence[:3]),
                     "rationale": r.rationale,
                     "changed": len(set(r.history)) > 1,
                     "history": " → ".join(v.value for v in r.history) if len(r.history) > 1 else ""})
    return rows


def _history(result) -> str:
    """A note under the verdict when self-reflection changed it."""
    if len(set(result.history)) < 2:
        return ""
    steps = " → ".join(v.value for v in result.history)
    return f'<br><small data-changed="true">changed by reflection: {esc(steps)}</small>'


def claims_table_html(report: AuditReport) -> str:
    head = "<tr><th>#</th><th>Claim</th><th>Verdict</th><th>Evidence</th><th>Why</th></tr>"
    body = "".join(
        f"<tr><td>{r.claim.id + 1}</td><td>{esc(r.claim.text)}</td><td>{badge(r.verdict.value)}{_history(r)}"
        f"{'' if r.score is None else f'<br><small>score {r.score:.2f}</small>'}</td>"
        f"<td>{'<br>'.join(f'<i>{esc(e.relation)}</i>: {esc(e.text)}' for e in r.evidence[:3])}</td>"
        f"<td>{esc(r.rationale)}</td></tr>" for r in report.claims)
    return f'<table class="rt4-table">{head}{body}</table>'


def report_html(report: AuditReport, title: str = "rt4chart audit report", made: Optional[str] = None) -> str:
    """A self-contained HTML page (inline CSS, no scripts, no external assets); the flagged stretches of the
    answer carry their claim's number, as in the claims table; `made` (default now, UTC) dates it."""
    question = f"<h2>Question</h2><div class='rt4-text'>{esc(report.question)}</div>" if report.question else ""
    notes = "".join(f"<li>{esc(n)}</li>" for n in report.notes)
    manifest = esc(report.manifest.model_dump_json(indent=2))
    if made is None:
        from datetime import datetime, timezone

        made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    dated = f"<p class='rt4-made'>Made {esc(made)} by rt4chart {esc(report.manifest.rt4chart_version)}</p>"
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            f"<style>body{{max-width:980px;margin:2rem auto;padding:0 1rem;font-family:system-ui,sans-serif}}"
            f"{CSS}</style></head><body><h1>{esc(title)}</h1>{dated}{banner_html(report)}{legend_html()}{question}"
            f"<h2>Answer</h2>{answer_html(report, numbered=True)}<h2>Claims</h2>{claims_table_html(report)}"
            f"<h2>Context</h2>{context_html(report)}"
            + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
            + f"<h2>Coverage</h2><p>{esc(coverage_text(report))}</p>"
            f"<details><summary>Manifest</summary><pre>{manifest}</pre></details></body></html>")
