"""Streamlit glue shared by the pages: the judge sidebar, the report view, notices and data loading.

Pages stay thin: everything that computes lives in `rt4chart` (tested without Streamlit), and every
value that crosses pages lives in `pages.state`. User text is never given to Markdown: it is shown
through escaped HTML (`text`, `notice`) or in data frames.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from app_pages import _reviewer, checkpoints, state
from rt4chart.core.config import settings_problem
from rt4chart.core.rows import Record
from rt4chart.core.types import AuditReport
from rt4chart.data.records import InputError, parse_rows
from rt4chart.data.tables import Table, table_from_bytes
from rt4chart.judges.cache import MemoCache, default_cache_path
from rt4chart.judges.factory import make_judge
from rt4chart.reporting.html import (
    CSS,
    answer_html,
    banner_html,
    claims_table_html,
    context_html,
    coverage_text,
    legend_html,
    notice_html,
    plain_html,
    report_html,
)
from rt4chart.reporting.printable import printable, printable_frame, printable_row

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_CSV = ROOT / "sample_data" / "rag_audit_sample.csv"
CHART_CONFIG = {"displayModeBar": False}  # the toolbar was drawn over the charts' titles
MAX_UPLOAD_MB = 25  # also .streamlit/config.toml's server.maxUploadSize


def html(block: str) -> None:
    """Render our own (escaped) HTML with the shared stylesheet."""
    st.html(f"<style>{CSS}</style>{printable(block)}")


def show_table(data, where=None, **kwargs):
    """A data frame of user text (lone surrogates shown as escapes: the page would fail to send them)."""
    if isinstance(data, list):  # rows of dicts: made printable before pandas (its Arrow strings refuse them)
        data = [printable_row(r) for r in data]
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    return (where or st).dataframe(printable_frame(frame), **kwargs)


def text(value: object, label: str = "") -> None:
    """User text as plain text (no Markdown, LaTeX or HTML)."""
    html(plain_html(value, label))


def notice(kind: str, message: object) -> None:
    """An info/warning/error box whose message may quote user input (file names, cells, columns)."""
    html(notice_html(kind, message))


@st.cache_resource(show_spinner=False)
def memo_cache(path: str) -> MemoCache:
    return MemoCache(path)


def cache() -> MemoCache:
    return memo_cache(str(default_cache_path()))


JUDGE_CHOICES = {"hybrid": "hybrid (exact checks + model)", "model": "model", "offline": "offline (word matching)",
                 "openai": "openai (LLM endpoint)"}


def judge_sidebar() -> None:
    """Judge settings (kept across pages); the openai fields appear only when it is chosen. The key is
    never echoed, stored on disk or exported."""
    s = state.settings()
    _reviewer.name()  # the name this browser kept, when the session has none yet
    with st.sidebar:
        st.subheader("Judge")
        st.radio("Verification backend", list(JUDGE_CHOICES), **state.bind("judge"),
                 format_func=JUDGE_CHOICES.get,
                 help="hybrid: the offline judge's exact checks (figures, dates, citations) plus a model that reads "
                      "meaning. model: the model alone. offline: word matching, deterministic, no model. openai: "
                      "any OpenAI-compatible endpoint.")
        if s["judge"] in ("model", "hybrid") and checkpoints.served_to_network():
            choices = ["", *checkpoints.listed()]
            if s.get("checkpoint") not in choices or state.widget("w.checkpoint", "") not in choices:
                s["checkpoint"] = ""  # a folder typed while served on loopback is not offered here
                state.forget_widget("w.checkpoint")
            st.selectbox("Checkpoint", choices, **state.bind("checkpoint"),
                         format_func=lambda c: c or "the verifier shipped with rt4chart",
                         help="Served to the network, the app opens only the shipped verifier and the folders "
                              "listed in RT4CHART_MODELS by whoever runs it.")
        elif s["judge"] in ("model", "hybrid"):
            st.text_input("Checkpoint", placeholder="the verifier shipped with rt4chart", **state.bind("checkpoint"),
                          help="A checkpoint folder (NLI classifier, claim checker or token classifier) or a "
                               "Hugging Face id already in the local cache; nothing is downloaded.")
        if s["judge"] == "openai":
            st.text_input("Base URL", placeholder=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
                          **state.bind("base_url"))
            st.text_input("Model", placeholder=os.environ.get("RT4CHART_MODEL", "gpt-4o-mini"), **state.bind("model"))
            st.text_input("API key", type="password", **state.bind("api_key"),
                          help="Leave empty to use OPENAI_API_KEY from the environment. Never stored or exported.")
            if os.environ.get("OPENAI_API_KEY") and not s.get("api_key"):
                st.caption("Using OPENAI_API_KEY from the environment.")
            c1, c2 = st.columns(2)
            c1.number_input("Timeout (s)", 1.0, 600.0, step=5.0, **state.bind("timeout_s"),
                            help="Seconds per LLM request; a request that times out is retried once.")
            c2.number_input("Attempts", 1, 10, **state.bind("max_attempts"),
                            help="Attempts per request for rate limits, server errors and dropped connections.")
            st.number_input("Model context (tokens, 0 = ask the server)", 0, 2_000_000, step=1024,
                            **state.bind("context_tokens"))
        offline = s["judge"] != "openai"
        st.toggle("Self-reflection", disabled=offline, **state.bind("reflect"),
                  help="The judge re-examines its verdicts until it declares success, within a round cap.")
        if offline:
            st.caption("Self-reflection needs an LLM judge: the offline, model and hybrid judges are "
                       "deterministic, so asking them again gives the same verdicts.")
        else:
            st.number_input("Max reflection rounds", 1, 10, **state.bind("max_rounds"))
        _reviewer.field("w.reviewer")
        _reviewer.keep_in_browser()


def audit_config_note() -> str:
    """The settings in effect, as one line (they are changed on the Settings page)."""
    try:
        c = state.audit_config()
    except ValidationError as exc:
        return f"The window settings are invalid ({settings_problem(exc)}); fix them on the Settings page."
    return (f"Windows of {c.window_size} sentences every {c.window_stride}, each claim checked in its "
            f"{c.windows_per_claim} best windows (Settings page) · judge: {state.settings()['judge']}"
            + (f" · self-reflection up to {c.max_rounds} rounds" if c.reflect else "")
            + (f" · **your threshold {c.threshold:.2f} is active**: an answer is flagged when its score is at least "
               "that" if c.threshold is not None else ""))


def made_with(manifest: dict) -> tuple[str, bool]:
    """The settings a result was made with, as one line, and whether they differ from the session's now."""
    audit = (manifest.get("settings") or {}).get("audit") or {}
    judge = manifest.get("judge", "?")
    line = (f"These results were made with judge {judge}, windows of {audit.get('window_size', '?')} sentences every "
            f"{audit.get('window_stride', '?')}, each claim in its {audit.get('windows_per_claim', '?')} best windows"
            + (f", threshold {audit['threshold']}" if audit.get("threshold") is not None else ""))
    try:
        now = state.audit_config()
    except ValidationError:
        return line, True
    differs = (judge != state.settings()["judge"] or audit.get("window_size") != now.window_size
               or audit.get("window_stride") != now.window_stride
               or audit.get("windows_per_claim") != now.windows_per_claim
               or audit.get("threshold") != now.threshold)
    return line, differs


def read_upload(name: str, data: bytes, delimiter: Optional[str] = None) -> Table:
    """An uploaded CSV/TSV/JSONL file, read by the same reader as the command line, or an InputError."""
    size_mb = len(data) / 1e6
    if size_mb > MAX_UPLOAD_MB:
        raise InputError(f"{name} is {size_mb:.0f} MB; the dashboard audits files up to {MAX_UPLOAD_MB} MB. "
                         f"For larger files use the command line, which streams: rt4chart batch {name} -o out.jsonl")
    return table_from_bytes(data, name, delimiter)


def current_judge():
    """The judge chosen in the sidebar; raises a clear error when the openai judge lacks a key."""
    s = state.settings()
    if s["judge"] == "openai":
        return make_judge("openai", model=s.get("model") or None, base_url=s.get("base_url") or None,
                          api_key=s.get("api_key") or None, cache=cache(), timeout_s=float(s["timeout_s"]),
                          max_attempts=int(s["max_attempts"]), context_tokens=int(s["context_tokens"]) or None,
                          key_hint="the API key field in the sidebar")
    if s["judge"] in ("model", "hybrid"):
        return model_judge(s["judge"], checkpoints.allowed(s.get("checkpoint") or None))
    return make_judge("offline")


@st.cache_resource(show_spinner="Loading the model…")
def model_judge(name: str, checkpoint: Optional[str]):
    """One model judge per process and checkpoint (loading a model takes a moment)."""
    return make_judge(name, model=checkpoint)


def _claim_label(report: AuditReport, claim_id: int) -> str:
    result = report.claims[claim_id]
    changed = " · changed by reflection" if len(set(result.history)) > 1 else ""
    score = f" · score {result.score:.2f}" if result.score is not None else ""
    return f"Claim {claim_id + 1} · {result.verdict.value}{score}{changed}"


def show_report(report: AuditReport, key: str) -> None:
    """One audit: banner, answer with numbered flags, one-click flag -> claim, its evidence in the context,
    all claims (wrapping table), coverage and downloads."""
    html(banner_html(report) + legend_html())
    for note in report.notes:
        notice("info", note)
    flagged = [r.claim.id for r in report.claims if r.verdict.is_hallucination or r.verdict.value == "unverified"]
    pick_key = f"{key}.claim"
    if flagged:
        st.pills("Flagged claims (numbers as in the answer): select one to see its evidence", flagged,
                 format_func=lambda i: _claim_label(report, i), key=f"{key}.flag",
                 on_change=lambda: state.set_widget(pick_key, state.widget(f"{key}.flag")))
    choices = [None] + [r.claim.id for r in report.claims]
    if state.widget(pick_key) not in choices:
        state.set_widget(pick_key, None)
    selected: Optional[int] = st.selectbox(
        "Inspect any claim", choices, key=pick_key,
        format_func=lambda i: "(all claims)" if i is None else _claim_label(report, i))
    left, right = st.columns(2)
    with left:
        st.markdown("**Answer** — flagged text marked, with its claim number")
        if report.question:
            text(report.question, "Question:")
        html(answer_html(report, selected_claim=selected, numbered=True))
    with right:
        st.markdown("**Context** — evidence sentences, with the numbers of their claims")
        html(context_html(report, [selected] if selected is not None else None))
    if selected is not None:
        _claim_detail(report, selected)
    with st.expander("All claims with verdicts, evidence and reasons", expanded=selected is None):
        html(claims_table_html(report))
    st.caption(coverage_text(report))
    c1, c2 = st.columns(2)
    c1.download_button("Download JSON report", report.to_json(indent=2), file_name="rt4chart-report.json",
                       mime="application/json", key=f"{key}.json", on_click="ignore")
    c2.download_button("Download HTML report", report_html(report), file_name="rt4chart-report.html",
                       mime="text/html", key=f"{key}.html", on_click="ignore")


def _claim_detail(report: AuditReport, claim_id: int) -> None:
    result = report.claims[claim_id]
    with st.container(border=True):
        text(result.claim.text, f"Claim {claim_id + 1}:")
        text(f"{result.verdict.value} (local OR-join: {result.local_verdict.value}) — {result.rationale}",
             "Verdict:")
        for ev in result.evidence:
            text(ev.text, f"Evidence, {ev.relation}, context sentence {ev.sentence_index + 1}:")
        if not result.evidence:
            st.caption("No context sentence supports or contradicts this claim.")
        if len(set(result.history)) > 1:
            st.warning("Changed by self-reflection: " + " → ".join(v.value for v in result.history))
        if result.local:
            show_table(pd.DataFrame([{"window": w.window_index + 1,
                                        "sentences": f"{report.windows[w.window_index].first + 1}–"
                                                     f"{report.windows[w.window_index].last + 1}",
                                        "local verdict": w.verdict.value,
                                        "evidence sentences": ", ".join(str(i + 1) for i in w.evidence),
                                        "why": w.rationale} for w in result.local]),
                         hide_index=True, width="stretch")
            if report.manifest.judge == "hybrid" and result.local_verdict.value == "entailed":
                st.caption("The model reads a claim in no window after the first one that entails it: "
                           "the OR-join is decided there (proofs are still checked in every window).")
        else:
            st.caption("No window matched this claim lexically; only the global check judged it.")


def sample_bytes() -> bytes:
    return SAMPLE_CSV.read_bytes()


def sample_rows() -> list[dict]:
    return parse_rows(sample_bytes(), SAMPLE_CSV.name)


def example_record(row_id: str = "harbor-4") -> Record:
    row = next(r for r in sample_rows() if r["id"] == row_id)
    return Record(id=row["id"], context=row["context"], answer=row["answer"], question=row["question"] or None)


def run_in_page(script: str) -> None:
    """Run one line of the app's own JavaScript in the page (a 1-pixel frame of this origin); never user text."""
    if hasattr(st, "iframe"):
        st.iframe(f"<script>{script}</script>", height=1)
    else:  # Streamlit before 1.56
        import streamlit.components.v1 as components

        components.html(f"<script>{script}</script>", height=0)


def scroll_into_view(selector: str) -> None:
    """Bring the first element matching `selector` (a constant of the app's) into view once it is drawn."""
    run_in_page("setTimeout(() => { const e = parent.document.querySelector(" + repr(selector) + "); "
                "if (e) e.scrollIntoView({block: 'start'}); }, 250);")
