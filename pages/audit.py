"""Page: audit one answer against its context."""
import streamlit as st

from pages._shared import audit_config, current_judge, enter_through_app, example_record, show_report
from rt4chart.io import InputError, decode_bytes
from rt4chart.judges.llm_client import JudgeConfigError
from rt4chart.pipeline import audit

enter_through_app()  # a deep link on a fresh server must still get the app's navigation

st.title("Audit an answer")
st.caption("Paste the retrieved context and the answer; rt4chart traces every claim back to the context.")

if st.button("Load an example"):
    example = example_record()
    st.session_state["audit.context"] = example.context
    st.session_state["audit.answer"] = example.answer
    st.session_state["audit.question"] = example.question or ""
    st.session_state.pop("audit.report", None)

with st.expander("Upload .txt files instead of pasting"):
    for field in ("context", "answer"):
        upload = st.file_uploader(f"{field.title()} file", type=["txt", "md"], key=f"audit.upload_{field}")
        if upload is not None:
            try:
                st.session_state[f"audit.{field}"] = decode_bytes(upload.getvalue(), upload.name)
            except InputError as exc:
                st.error(str(exc))

left, right = st.columns(2)
left.text_area("Context (retrieved passages or source document)", key="audit.context", height=260)
right.text_area("Answer to audit", key="audit.answer", height=180)
right.text_input("Question (optional)", key="audit.question")

if st.button("Audit", type="primary"):
    context = st.session_state.get("audit.context", "")
    answer = st.session_state.get("audit.answer", "")
    if not answer.strip():
        st.warning("The answer is empty: paste an answer to audit.")
    else:
        try:
            with st.spinner("Auditing…"):
                st.session_state["audit.report"] = audit(context, answer, st.session_state.get("audit.question"),
                                                         judge=current_judge(), config=audit_config())

        except (JudgeConfigError, InputError, ValueError) as exc:
            st.error(str(exc))

report = st.session_state.get("audit.report")
if report is not None:
    show_report(report, key="audit.view")
