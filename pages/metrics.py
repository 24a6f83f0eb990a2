"""Page: dataset metrics of the last batch audit."""
import streamlit as st

from pages._shared import enter_through_app
from rt4chart.figures import (claims_per_answer_figure, confusion_figure, frame, rate_by_group_figure, rate_figure,
                              top_contexts, top_issues, verdict_mix_figure)
from rt4chart.metrics import fmt
from rt4chart.results import gold_scores, reflection_effect

enter_through_app()  # a deep link on a fresh server must still get the app's navigation

st.title("Dataset metrics")
results = st.session_state.get("batch.results")
if not results:
    st.info("Run a batch audit first (Batch audit page; the demo dataset takes one click).")
    st.stop()

meta = st.session_state.get("batch.meta", {})
df = frame(results)
errors = len(results) - len(df)
st.caption(f"{len(df)} audited rows" + (f" ({errors} failed rows excluded)" if errors else ""))
c1, c2 = st.columns(2)
c1.plotly_chart(rate_figure(df), width="stretch", key="metrics.rate")
c2.plotly_chart(verdict_mix_figure(df), width="stretch", key="metrics.mix")
for i, group in enumerate(meta.get("groups", [])):
    if group in df:
        st.plotly_chart(rate_by_group_figure(df, group), width="stretch", key=f"metrics.group.{i}")
st.plotly_chart(claims_per_answer_figure(df), width="stretch", key="metrics.claims")
left, right = st.columns(2)
left.subheader("Answers with the most issues")
left.dataframe(top_issues(df, 10), hide_index=True, width="stretch")
right.subheader("Contexts with the most issues")
right.dataframe(top_contexts(df, 10), hide_index=True, width="stretch")

gold = meta.get("gold")
effect = reflection_effect(results, gold if gold and gold in df else None)
if effect["answers"]:
    st.subheader("Self-reflection")
    r = st.columns(4)
    r[0].metric("Answers reflected", effect["answers"])
    r[1].metric("With a verdict flip", effect["with_flips"])
    r[2].metric("Decision changed", effect["decision_changed"])
    if effect["fixed"] is not None:
        r[3].metric("Changes that helped / hurt", f"{effect['fixed']} / {effect['broken']}")

if gold and gold in df:
    st.subheader(f"Against gold labels ({gold})")
    s = gold_scores(results, gold, gold_spans_column=meta.get("gold_spans"), answers=meta.get("answers"))
    m = st.columns(4)
    m[0].metric("Precision", fmt(s.precision))
    m[1].metric("Recall", fmt(s.recall))
    m[2].metric("F1", fmt(s.f1))
    m[3].metric("Balanced accuracy", fmt(s.balanced_accuracy))
    st.plotly_chart(confusion_figure(s), width="stretch", key="metrics.confusion")
    if s.span_records:
        st.write(f"Character-span P/R/F1 over {s.span_records} answers with gold spans: "
                 f"{fmt(s.span_precision)} / {fmt(s.span_recall)} / {fmt(s.span_f1)}")
else:
    st.caption("Map a gold label column on the Batch page to see precision, recall, F1 and the confusion matrix.")
