"""Page: what should this RAG system fix? Action items from the current batch audit (LLM judge)."""
import streamlit as st

from app_pages import state
from app_pages._shared import current_judge, notice, text
from rt4chart.core.errors import JudgeConfigError
from rt4chart.insights.engine import build_insights, client_of, rows_from_reports
from rt4chart.insights.patterns import issue_patterns

st.title("Insights")
st.caption("Action items for the team that owns the RAG system, learned from the audited rows: a sequential "
           "warm-up on the rows with the most issues, then the other rows in parallel.")

res = state.results()
if res is None or not res.reports:
    st.info("Run a batch audit first (Batch audit page); insights are built from its audited rows.")
    st.stop()


def show_items(items, key: str) -> None:
    for n, item in enumerate(items, 1):
        with st.container(border=True):
            text(f"{item.title} — {item.count} rows", f"{n}.")
            text(item.description)
            c_rows, c_open = st.columns([3, 1])
            chosen = c_rows.selectbox("Example row", item.rows[:50], key=f"{key}.rows.{item.id}")
            if c_open.button("Open in the batch drill-down", key=f"{key}.open.{item.id}"):
                state.set_drill(chosen)
                st.switch_page("app_pages/batch.py")


st.subheader("Issue patterns (no LLM needed)")
st.caption("The flagged claims grouped by the kind of reason the judge gave, the patterns in the most rows first.")
if st.button("Find issue patterns"):
    with st.spinner("Reading the flagged rows…"):
        flagged = [str(r["id"]) for r in res.rows if r.get("hallucinated") and str(r["id"]) in res.reports]
        state.keep(state.INSIGHT_PATTERNS, issue_patterns(res.reports, flagged))
patterns = state.kept(state.INSIGHT_PATTERNS)
if patterns is not None:
    if not patterns:
        st.info("No flagged claims in these results.")
    show_items(patterns, "insights.patterns")

st.subheader("Action items (LLM)")
if state.settings()["judge"] != "openai":
    st.info("Action items are written by an LLM: pick **openai** in the sidebar and fill in the base URL, model and "
            "key (or set the environment variables before starting the app).")
    st.stop()

c1, c2 = st.columns(2)
warmup = c1.number_input("Warm-up rows (sequential)", 1, 100, 10, key="insights.warmup")
workers = c2.number_input("Parallel calls", 1, 32, 4, key="insights.workers")
if st.button("Find action items", type="primary"):
    try:
        with st.spinner("Reading the audited rows…"):
            state.keep(state.INSIGHTS_REPORT, build_insights(rows_from_reports(res.reports), client_of(current_judge()),
                                                              warmup=int(warmup), workers=int(workers)))
    except (JudgeConfigError, ValueError) as exc:
        notice("error", exc)

report = state.kept(state.INSIGHTS_REPORT)
if report is not None:
    for failure in report.failures:
        notice("warning", failure)
    if not report.items:
        st.info("No action items: the audited rows show no hallucinated claims, or the judge found no pattern.")
    show_items(report.items, "insights")
    text(", ".join(report.interesting_rows) or "none", "Interesting rows (added something new in the parallel phase):")
    st.caption(f"{report.warmup_steps} warm-up steps · {report.parallel_rows} rows in parallel · "
               f"{report.skipped_rows} rows without issues skipped"
               + (f" · {report.unverified_rows} unverified rows skipped" if report.unverified_rows else "")
               + f" · {report.cost.calls} calls ({report.cost.cached_calls} cached) · "
               f"{report.cost.tokens:,} tokens · {report.elapsed_s:.1f} s · parallel "
               f"phase {report.parallel_wall_s:.1f} s instead of ~{report.sequential_estimate_s:.1f} s sequentially")
    d1, d2 = st.columns(2)
    d1.download_button("Download Markdown", report.to_markdown(), file_name="rt4chart-insights.md")
    d2.download_button("Download JSON", report.model_dump_json(indent=2), file_name="rt4chart-insights.json")
