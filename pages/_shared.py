"""Streamlit glue shared by the pages: judge settings, the report view, and data loading.

Pages stay thin; everything that computes lives in `rt4chart` (tested without Streamlit).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pandas as pd
import streamlit as st

from rt4chart.cache import MemoCache, default_cache_path
from rt4chart.config import AuditConfig
from rt4chart.io import InputError, Record, parse_rows
from rt4chart.judges.factory import make_judge
from rt4chart.render import CSS, answer_html, banner_html, claim_rows, context_html, coverage_text, legend_html, report_html
from rt4chart.types import AuditReport

ROOT = Path(__file__).resolve().parents[1]


def enter_through_app() -> None:
    """A deep link into a fresh server runs a page directly in Streamlit's legacy `pages/` mode, without
    app.py's navigation and sidebar; run app.py's navigation instead (it switches the server to
    `st.navigation` for good and runs the requested page)."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        import importlib.util

        spec = importlib.util.spec_from_file_location("rt4chart_app_entry", ROOT / "app.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # app.py calls main(): navigation, sidebar, the requested page
        st.stop()


SAMPLE_CSV = ROOT / "sample_data" / "rag_audit_sample.csv"
MAX_UPLOAD_MB = 25


def html(block: str) -> None:
    """Render our own (escaped) HTML with the shared stylesheet."""
    st.html(f"<style>{CSS}</style>{block}")


@st.cache_resource(show_spinner=False)
def memo_cache(path: str) -> MemoCache:
    return MemoCache(path)


def cache() -> MemoCache:
    return memo_cache(str(default_cache_path()))


def audit_config() -> AuditConfig:
    """Window settings chosen on the Settings page (defaults until changed)."""
    defaults = AuditConfig()
    return AuditConfig(window_size=st.session_state.get("settings.window_size", defaults.window_size),
                       window_stride=st.session_state.get("settings.window_stride", defaults.window_stride),
                       windows_per_claim=st.session_state.get("settings.windows_per_claim",
                                                              defaults.windows_per_claim),
                       reflect=bool(st.session_state.get("judge.reflect"))
                       and st.session_state.get("judge.name", "offline") != "offline",
                       max_rounds=st.session_state.get("judge.max_rounds", defaults.max_rounds))


def judge_sidebar() -> None:
    """Judge selector; the openai fields appear only when it is chosen. The key is never echoed."""
    with st.sidebar:
        st.subheader("Judge")
        st.radio("Verification backend", ["offline", "openai"], key="judge.name",
                 help="offline: deterministic, no network, no model. openai: any OpenAI-compatible endpoint.")
        if st.session_state.get("judge.name") == "openai":
            st.text_input("Base URL", key="judge.base_url", placeholder=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"))
            st.text_input("Model", key="judge.model", placeholder=os.environ.get("RT4CHART_MODEL", "gpt-4o-mini"))
            st.text_input("API key", key="judge.api_key", type="password",
                          help="Leave empty to use OPENAI_API_KEY from the environment. Never stored or exported.")
            if os.environ.get("OPENAI_API_KEY") and not st.session_state.get("judge.api_key"):
                st.caption("Using OPENAI_API_KEY from the environment.")
        offline = st.session_state.get("judge.name", "offline") == "offline"
        st.toggle("Self-reflection", key="judge.reflect", disabled=offline,
                  help="The judge re-examines its verdicts until it declares success, within a round cap.")
        if offline:
            st.caption("Self-reflection needs an LLM judge: the offline judge is deterministic, so asking it "
                       "again gives the same verdicts.")
        else:
            st.number_input("Max reflection rounds", 1, 10, 3, key="judge.max_rounds")


def current_judge():
    """The judge chosen in the sidebar; raises a clear error when the openai judge lacks a key."""
    name = st.session_state.get("judge.name", "offline")
    if name == "openai":
        return make_judge("openai", model=st.session_state.get("judge.model") or None,
                          base_url=st.session_state.get("judge.base_url") or None,
                          api_key=st.session_state.get("judge.api_key") or None, cache=cache())
    return make_judge("offline")


def show_report(report: AuditReport, key: str) -> None:
    """The full view of one audit: banner, marked answer, evidence in context, claims, coverage, downloads."""
    html(banner_html(report) + legend_html())
    for note in report.notes:
        st.info(note)
    rows = claim_rows(report)
    labels = ["(all claims)"] + [f"{r['#']}. [{r['verdict']}]{' (changed by reflection)' if r['changed'] else ''} "
                                 f"{r['claim'][:80]}" for r in rows]
    choice = st.selectbox("Inspect a claim (shows its evidence and per-window verdicts)", range(len(labels)),
                          format_func=lambda i: labels[i], key=f"{key}.claim")
    left, right = st.columns(2)
    selected: Optional[int] = report.claims[choice - 1].claim.id if choice else None
    with left:
        st.markdown("**Answer** — hallucinated spans marked")
        if report.question:
            st.caption(f"Question: {report.question}")
        html(answer_html(report, selected_claim=selected))
    with right:
        st.markdown("**Context** — evidence sentences highlighted")
        html(context_html(report, [selected] if selected is not None else None))
    if selected is not None:
        result = report.claims[choice - 1]
        st.markdown(f"**Claim {choice}:** {result.claim.text}")
        st.write(f"Final verdict: `{result.verdict.value}` (local OR-join: `{result.local_verdict.value}`) — "
                 f"{result.rationale}")
        if len(set(result.history)) > 1:
            st.warning("Changed by self-reflection: " + " → ".join(v.value for v in result.history))
        elif len(result.history) > 1:
            with st.expander("Reflection history"):
                st.write(" → ".join(v.value for v in result.history))
        if result.local:
            st.dataframe(pd.DataFrame([{"window": w.window_index + 1,
                                        "sentences": f"{report.windows[w.window_index].first + 1}–"
                                                     f"{report.windows[w.window_index].last + 1}",
                                        "local verdict": w.verdict.value,
                                        "evidence sentences": ", ".join(str(i + 1) for i in w.evidence),
                                        "why": w.rationale} for w in result.local]),
                         hide_index=True, width="stretch")
        else:
            st.caption("No window matched this claim lexically; only the global check judged it.")
    st.markdown("**Claims**")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=f"{key}.table")
    st.caption(coverage_text(report))
    c1, c2 = st.columns(2)
    c1.download_button("Download JSON report", report.to_json(indent=2), file_name="rt4chart-report.json",
                       mime="application/json", key=f"{key}.json")
    c2.download_button("Download HTML report", report_html(report), file_name="rt4chart-report.html",
                       mime="text/html", key=f"{key}.html")


def read_upload(name: str, data: bytes) -> list[dict]:
    """Rows of an uploaded CSV/JSONL file, or an InputError with an actionable message."""
    size_mb = len(data) / 1e6
    if size_mb > MAX_UPLOAD_MB:
        raise InputError(f"{name} is {size_mb:.0f} MB; the dashboard audits files up to {MAX_UPLOAD_MB} MB. "
                         f"For larger files use the command line, which streams: rt4chart predict {name} -o out.jsonl")
    return parse_rows(data, name)


def sample_rows() -> list[dict]:
    return parse_rows(SAMPLE_CSV.read_bytes(), SAMPLE_CSV.name)


def example_record(row_id: str = "harbor-4") -> Record:
    row = next(r for r in sample_rows() if r["id"] == row_id)
    return Record(id=row["id"], context=row["context"], answer=row["answer"], question=row["question"] or None)
