"""Page: what should this RAG system fix? Action items from the current batch audit (LLM judge)."""
import json

import streamlit as st

from app_pages import _background, state
from app_pages._shared import current_judge, notice, text
from app_pages.state import content_hash
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


def _task_key(judge) -> str:
    """The same rows, judge and settings are the same task (never the key: it is no part of the spec)."""
    from rt4chart.judges.spec import JudgeSpec

    return content_hash(json.dumps([res.digest, res.run_id, sorted(res.reports), int(warmup), int(workers),
                                    JudgeSpec.of(judge).to_json()]).encode())


if st.button("Find action items", type="primary"):
    try:
        judge = current_judge()
        client = client_of(judge)
        rows = rows_from_reports(res.reports)
        state.keep(state.INSIGHTS_TASK, _background.start(
            _task_key(judge), lambda: build_insights(rows, client, warmup=int(warmup), workers=int(workers))).key)
        state.keep(state.INSIGHTS_REPORT, None)
    except (JudgeConfigError, ValueError) as exc:
        notice("error", exc)

task = _background.task(state.kept(state.INSIGHTS_TASK))
if task is not None and task.running:
    @st.fragment(run_every=1.0)
    def waiting() -> None:
        if not task.running:
            st.rerun()
        st.info(f"Finding action items… {task.elapsed_s:.0f} s so far (a warm-up row by row, then the rest in "
                "parallel).", icon=":material/hourglass_top:")
        st.caption("The calls go on on the server: you can open other pages or reload; this page shows the result "
                   "when it is ready.")

    waiting()
elif task is not None:
    found, error = task.outcome()
    state.keep(state.INSIGHTS_TASK, None)
    if error is None:
        state.keep(state.INSIGHTS_REPORT, found)
    elif isinstance(error, (JudgeConfigError, ValueError)):
        notice("error", error)
    else:
        notice("error", f"Finding action items failed ({type(error).__name__}: {error}); the replies received are "
                        "kept in the cache, so running it again pays only for the rest.")

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
    d1.download_button("Download Markdown", report.to_markdown(), file_name="rt4chart-insights.md", on_click="ignore")
    d2.download_button("Download JSON", report.model_dump_json(indent=2), file_name="rt4chart-insights.json", on_click="ignore")
