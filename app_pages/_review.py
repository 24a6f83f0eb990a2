"""Analyst review in the batch drill-down: is each flagged claim right, which verdict is right instead,
the answer's label and a note — stored with the reviewer's name and time, one review per change, so two
analysts on the same run never overwrite each other."""
from __future__ import annotations

import streamlit as st

from app_pages import _reviewer, state
from app_pages._shared import notice, run_in_page, text
from app_pages._store import store
from rt4chart.core.types import AuditReport

CLAIM_CHOICES = ("not reviewed", "judge is right", "judge is wrong")
KEYS_HELP = ("Keys (not while typing in a box): **r** the judge is right, **w** it is wrong (on the first claim not "
             "yet reviewed), **s** save, **n** next row in the queue.")
# Installed once per browser document: it clicks the same controls a mouse would, so a key and a click are one path
HOTKEYS = """(() => {
  const doc = parent.document;
  if (doc.rt4ReviewKeys) return;
  doc.rt4ReviewKeys = true;
  const typing = (t) => t && (t.isContentEditable || /^(TEXTAREA|SELECT)$/.test(t.tagName)
    || (t.tagName === 'INPUT' && !/^(radio|checkbox|button|submit)$/.test(t.type)));
  const label = (g, name) => [...g.querySelectorAll('label')].find(l => l.innerText.trim() === name);
  const button = (start) => [...doc.querySelectorAll('button')].find(b => !b.disabled && b.innerText.trim().startsWith(start));
  const open = () => [...doc.querySelectorAll('[role=radiogroup]')].find(g => {
    const on = g.querySelector('input[type=radio]:checked');
    return label(g, 'judge is right') && on && on.closest('label').innerText.trim() === 'not reviewed';
  });
  doc.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing(e.target)) return;
    const k = e.key.toLowerCase();
    let target = null;
    if (k === 'r' || k === 'w') { const g = open(); target = g && label(g, k === 'r' ? 'judge is right' : 'judge is wrong'); }
    else if (k === 's') target = button('Save review');
    else if (k === 'n') target = button('Next in the review queue');
    if (target) { e.preventDefault(); target.click(); }
  });
})();"""
VERDICTS = (None, "entailed", "contradicted", "baseless")
LABELS = ("not reviewed", "hallucinated", "faithful")


def review_queue(rows: list[dict], reviewed: set[str]) -> list[str]:
    """Rows to review next: not yet reviewed; the judge's least certain first when scores exist (closest
    to 0.5), else flagged answers first, then unverified ones, then the rest; input order breaks ties."""
    def rank(item):
        position, row = item
        score = row.get("score")
        if isinstance(score, (int, float)):
            return (0, abs(score - 0.5), position)
        order = {"hallucinated": 0, "unverified": 1}.get(row.get("status"), 2)
        return (1, order, position)

    todo = [(i, r) for i, r in enumerate(rows) if str(r["id"]) not in reviewed and r.get("status") != "error"]
    return [str(r["id"]) for _, r in sorted(todo, key=rank)]


def _synced(key: str, stored) -> None:
    """A widget the analyst has not touched in this session shows what the store holds now (another
    analyst may have saved meanwhile); a touched one keeps the analyst's value until it is saved."""
    base = f"{key}.base"
    if not state.has_widget(key) or state.widget(key) == state.widget(base):
        state.set_widget(key, stored)
        state.set_widget(base, stored)


def _changed(key: str) -> bool:
    return state.has_widget(key) and state.widget(key) != state.widget(f"{key}.base")


def _saved(key: str) -> None:
    state.set_widget(f"{key}.base", state.widget(key))


def _claim_controls(prefix: str, index: int, result, report: AuditReport, old) -> None:
    """One claim with the proof the judge used, and the analyst's choice (the right verdict when it is wrong)."""
    _synced(f"{prefix}.{index}", CLAIM_CHOICES[0] if old is None or old.judge_right is None else (
        CLAIM_CHOICES[1] if old.judge_right else CLAIM_CHOICES[2]))
    likely = "entailed" if result.verdict.is_hallucination else "baseless"  # the usual correction
    _synced(f"{prefix}.{index}.verdict", old.verdict if old and old.verdict in VERDICTS[1:] else likely)
    text(result.claim.text, f"Claim {index + 1}")  # the claim itself, beside its review (escaped)
    flagged = " … ".join(report.answer[sp.start:sp.end] for sp in result.hallucinated_spans)
    if flagged and flagged != result.claim.text:
        text(flagged, "Flagged:")
    for ev in result.evidence[:2]:  # the proof the judge used, so the choice needs no scrolling
        text(ev.text, {"supports": "Evidence (supports):", "contradicts": "Evidence (contradicts):",
                       "nearest": "Nearest sentence (does not support):"}.get(ev.relation, "Evidence:"))
    if result.rationale:
        text(result.rationale, "Why:")  # escaped: a rationale quotes the answer
    c1, c2 = st.columns([3, 2])
    picked = c1.radio(f"Claim {index + 1} — judge: {result.verdict.value}", CLAIM_CHOICES, horizontal=True,
                      key=f"{prefix}.{index}")
    if picked == CLAIM_CHOICES[2]:
        c2.selectbox(f"Right verdict of claim {index + 1}", VERDICTS, key=f"{prefix}.{index}.verdict",
                     format_func=lambda v: "(say which)" if v is None else v)


def _save_changes(s, run_id: str, row_id: str, prefix: str, claims: int, reviewer: str) -> int:
    """One review per box this session changed (claims, then the answer's label and note); how many were saved."""
    saved = 0
    for index in range(claims):
        key, verdict_key = f"{prefix}.{index}", f"{prefix}.{index}.verdict"
        if not (_changed(key) or _changed(verdict_key)):
            continue
        picked = state.widget(key)
        right = None if picked == CLAIM_CHOICES[0] else picked == CLAIM_CHOICES[1]
        verdict = state.widget(verdict_key) if picked == CLAIM_CHOICES[2] else None
        s.add_review(run_id, row_id, reviewer=reviewer, claim=index, judge_right=right, verdict=verdict)
        _saved(key)
        if state.has_widget(verdict_key):
            _saved(verdict_key)
        saved += 1
    if _changed(f"{prefix}.label") or _changed(f"{prefix}.note"):
        # what this session did not change is taken from the store as it is now, not from a stale box
        fresh = s.reviews(run_id).get((row_id, None))
        label = state.widget(f"{prefix}.label") if _changed(f"{prefix}.label") else (
            fresh.label if fresh and fresh.label else LABELS[0])
        note = state.widget(f"{prefix}.note") if _changed(f"{prefix}.note") else (fresh.note if fresh else "")
        s.add_review(run_id, row_id, reviewer=reviewer, label=None if label == LABELS[0] else label, note=note)
        _saved(f"{prefix}.label")
        _saved(f"{prefix}.note")
        saved += 1
    return saved


def review_panel(run_id: str, row_id: str, report: AuditReport, rows: list[dict]) -> None:
    """Only what this session changed is written, one review per change; nothing another analyst saved
    is overwritten by an untouched box."""
    s = store()
    latest = s.reviews(run_id)
    reviewer = _reviewer.name()
    with st.expander("Review this row (judge right or wrong?)", expanded=True):
        if not reviewer:  # a review is credited to a person: ask who, before any control
            st.markdown("**Who is reviewing?** Your name is recorded with each review (kept in this browser).")
            _reviewer.field(f"w.review.name.{run_id}", "Your name")
            return
        prefix = f"w.review.{run_id}.{row_id}"
        st.caption(KEYS_HELP)
        run_in_page(HOTKEYS)
        for index, result in enumerate(report.claims):
            _claim_controls(prefix, index, result, report, latest.get((row_id, index)))
        answer = latest.get((row_id, None))
        _synced(f"{prefix}.label", answer.label if answer and answer.label in LABELS else LABELS[0])
        _synced(f"{prefix}.note", answer.note if answer else "")
        l1, l2 = st.columns([2, 3])
        l1.radio("Answer label", LABELS, horizontal=True, key=f"{prefix}.label")
        l2.text_input("Note", key=f"{prefix}.note")
        if answer is not None:
            st.caption(f"Last answer review by {answer.reviewer} at {answer.created}")
        save, next_ = st.columns(2)
        if save.button("Save review", type="primary", key=f"{prefix}.save"):
            saved = _save_changes(s, run_id, row_id, prefix, len(report.claims), reviewer)
            notice("success", f"Saved {saved} change{'s' if saved != 1 else ''} as {reviewer}.")
            latest = s.reviews(run_id)  # what the queue below must count now
        reviewed = {row for (row, claim), r in latest.items() if claim is None and r.label}
        queue = [r for r in review_queue(rows, reviewed) if r != row_id]
        if next_.button(f"Next in the review queue ({len(queue)} left)", disabled=not queue, key=f"{prefix}.next"):
            state.set_drill(queue[0])
            st.rerun()
