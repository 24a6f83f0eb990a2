"""Page: dataset metrics of the current batch audit — headline figures first, then the charts."""
import streamlit as st

from app_pages import state
from app_pages._shared import CHART_CONFIG, html, show_table
from rt4chart.evaluation.metrics import fmt, hallucination_rate
from rt4chart.reporting.figures import (
    claims_per_answer_figure,
    confusion_figure,
    frame,
    precision_recall_figure,
    rate_by_group_figure,
    rate_figure,
    top_contexts,
    top_issues,
    verdict_mix_figure,
)
from rt4chart.reporting.html import esc
from rt4chart.reporting.rows import gold_scores, reflection_effect
from rt4chart.reporting.views import agreement
from rt4chart.store.analysis import MIN_REVIEWS, reviewed_figure

st.title("Dataset metrics")
res = state.results()
if res is None:
    st.info("Run a batch audit first (Batch audit page; the demo dataset takes one click).")
    st.stop()

df = frame(res.rows)
failed = len(res.rows) - len(df)
rate = hallucination_rate(df["hallucinated"] if len(df) else [])
k, n, (low, high) = rate.count, rate.decided, rate.interval
head = st.columns(4)
head[0].metric("Answers audited", len(df), help=f"{failed} failed rows are not counted" if failed else None)
head[1].metric("Hallucination rate", f"{k / n:.1%}" if n else "–", help=f"{k} of {n}; 95% Wilson interval")
head[2].metric("95% interval", f"{low:.0%}–{high:.0%}" if n else "–")
head[3].metric("Unverified", int((df["status"] == "unverified").sum()) if len(df) else 0,
               help="Judge failures: neither faithful nor hallucinated, in no rate")

gold = res.mapping.get("gold")
scores = None
if gold and gold in df:
    html(f"<b>Against gold labels ({esc(gold)})</b>")
    scores = gold_scores(res.rows, gold, gold_spans_column=res.mapping.get("gold_spans"), answers=res.answers)
    g = st.columns(4)
    g[0].metric("Precision", fmt(scores.precision))
    g[1].metric("Recall", fmt(scores.recall))
    g[2].metric("F1", fmt(scores.f1))
    g[3].metric("Balanced accuracy", fmt(scores.balanced_accuracy))
    if scores.span_records:
        st.caption(f"Character-span P/R/F1 over {scores.span_records} answers with gold spans: "
                   f"{fmt(scores.span_precision)} / {fmt(scores.span_recall)} / {fmt(scores.span_f1)}")
    marks = agreement(df, gold)
    left, right = st.columns([1, 2])
    kind = left.selectbox("Disagreements with gold", ["false positives", "false negatives"], key="w.metrics.disagree")
    wanted = df[marks == kind[:-1]]
    left.caption(f"{len(wanted)} {kind}: flagged by the judge but faithful in gold" if kind == "false positives"
                 else f"{len(wanted)} {kind}: hallucinated in gold but not flagged by the judge")
    if left.button("Open these rows in the batch drill-down", disabled=wanted.empty):
        res.filters["disagreement"] = kind
        state.set_drill(str(wanted["id"].iloc[0]))
        st.switch_page("app_pages/batch.py")
    show_table(wanted[["id", "status", "contradicted", "baseless", "hallucinated_text"]], where=right, hide_index=True,
                    width="stretch", height=220)
else:
    st.caption("Map a gold label column on the Batch page to see precision, recall, F1, balanced accuracy, the "
               "confusion matrix and the judge's disagreements with gold.")

if res.run_id:
    from app_pages._store import store
    from rt4chart.runs import agreement_of

    agree = agreement_of(store(), store().get_run(res.run_id))
    st.markdown("**Judge vs analysts** — how far to trust the judge on this data (reviews on the Batch page)")
    a = st.columns(4)
    a[0].metric("Rows reviewed", agree["rows_reviewed"])
    a[1].metric("Cohen's κ (answer label)", reviewed_figure(agree["kappa"], agree["rows_compared"]),
                help=f"over {agree['rows_compared']} reviewed rows the judge decided; shown from {MIN_REVIEWS}")
    a[2].metric("Precision of flags", reviewed_figure(agree["flag_precision"], agree["flags_reviewed"]),
                help=f"{agree['flags_reviewed']} flagged claims reviewed; shown from {MIN_REVIEWS}")
    a[3].metric("Span F1 vs reviewed spans", reviewed_figure(agree["span_f1"], agree["rows_compared"]))

c1, c2 = st.columns(2)
c1.plotly_chart(rate_figure(df), width="stretch", key="metrics.rate", config=CHART_CONFIG)
c2.plotly_chart(verdict_mix_figure(df), width="stretch", key="metrics.mix", config=CHART_CONFIG)
for i, group in enumerate(res.mapping.get("groups", [])):
    if group in df:
        st.plotly_chart(rate_by_group_figure(df, group, gold if scores is not None else None), width="stretch",
                        key=f"metrics.group.{i}", config=CHART_CONFIG)
c3, c4 = st.columns(2)
c3.plotly_chart(claims_per_answer_figure(df), width="stretch", key="metrics.claims", config=CHART_CONFIG)
if scores is not None:
    c4.plotly_chart(confusion_figure(scores), width="stretch", key="metrics.confusion", config=CHART_CONFIG)
    if scores.scored:
        threshold = (res.manifest.get("settings") or {}).get("threshold")
        p1, p2 = st.columns(2)
        p1.plotly_chart(precision_recall_figure(scores.scored, threshold), width="stretch", key="metrics.pr",
                        config=CHART_CONFIG)
        p2.metric("AUROC (ranking by score)", fmt(scores.auroc))
        p2.metric("Average precision", fmt(scores.auprc))
        p2.caption("Sort the Batch page's results by the score column to review the likeliest hallucinations "
                   "first; pick your own threshold on the Settings page.")

st.subheader("Answers with the most issues")
show_table(top_issues(df, 10), hide_index=True, width="stretch")
st.subheader("Contexts with the most issues")
show_table(top_contexts(df, 10), hide_index=True, width="stretch")

effect = reflection_effect(res.rows, gold if scores is not None else None)
if effect["answers"]:
    st.subheader("Self-reflection")
    r = st.columns(4)
    r[0].metric("Answers reflected", effect["answers"])
    r[1].metric("With a verdict flip", effect["with_flips"])
    r[2].metric("Decision changed", effect["decision_changed"])
    if effect["fixed"] is not None:
        r[3].metric("Changes that helped / hurt", f"{effect['fixed']} / {effect['broken']}")
