"""Page: audit one answer against its context."""
import hashlib

import streamlit as st

from app_pages import state
from app_pages._shared import (
    audit_config_note,
    current_judge,
    example_record,
    notice,
    scroll_into_view,
    show_report,
)
from app_pages._store import save_single_audit, store
from rt4chart.auditing.pipeline import audit
from rt4chart.core.errors import JudgeConfigError
from rt4chart.data.records import InputError, decode_bytes

st.title("Audit an answer")
st.caption("Paste the retrieved context and the answer; rt4chart traces every claim back to the context.")
inputs = state.audit_inputs()
if inputs.pop("running", False):  # the last run was interrupted (Cancel, or a click elsewhere)
    notice("warning", "The audit was cancelled before it finished; nothing was kept.")


def load_example() -> None:
    example = example_record()
    inputs.update(context=example.context, answer=example.answer, question=example.question or "", report=None)
    for field in ("context", "answer", "question"):
        state.set_widget(f"w.audit.{field}", inputs[field])


st.button("Load an example", on_click=load_example)

with st.expander("Upload .txt files instead of pasting"):
    for field in ("context", "answer"):
        upload = st.file_uploader(f"{field.title()} file", type=["txt", "md"], key=f"audit.upload_{field}")
        digest = hashlib.sha256(upload.getvalue()).hexdigest() if upload is not None else None
        if digest is not None and inputs.get(f"upload_{field}") != digest:  # a new file, once: typing wins after
            inputs[f"upload_{field}"] = digest
            try:
                inputs[field] = decode_bytes(upload.getvalue(), upload.name)
                state.set_widget(f"w.audit.{field}", inputs[field])
            except InputError as exc:
                notice("error", exc)

left, right = st.columns(2)
inputs["context"] = left.text_area("Context (retrieved passages or source document)", height=260,
                                   **state.bind("context", "w.audit.context", state.audit_inputs))
inputs["answer"] = right.text_area("Answer to audit", height=180,
                                   **state.bind("answer", "w.audit.answer", state.audit_inputs))
inputs["question"] = right.text_input("Question (optional)",
                                      **state.bind("question", "w.audit.question", state.audit_inputs))
st.caption(audit_config_note())

go, stop = st.columns([1, 6])
if go.button("Audit", type="primary"):
    if not inputs["answer"].strip():
        notice("warning", "The answer is empty: paste an answer to audit.")
    else:
        cancel = stop.empty()
        cancel.button("Cancel", help="Stops the audit after the judge call in progress.")
        bar = st.progress(0.0, text="Starting…")
        inputs["running"] = True  # stays set if Streamlit stops this run (Cancel): the next run says so
        try:
            inputs.pop("kept", None)  # a new result: not kept in any run yet
            inputs["report"] = audit(inputs["context"], inputs["answer"], inputs["question"] or None,
                                     judge=current_judge(), config=state.audit_config(),
                                     progress=lambda step, fraction: bar.progress(fraction, text=step.capitalize()))
            inputs["made_with"] = state.verdict_settings()  # to say when the sidebar no longer matches it
            inputs["scroll"] = True  # the new result is brought into view once drawn (an error stays in sight)
        except (JudgeConfigError, InputError, ValueError) as exc:
            notice("error", exc)
        inputs.pop("running", None)
        bar.empty()
        cancel.empty()

if inputs.get("report") is not None:
    shown = inputs["report"]
    if (shown.context, shown.answer, shown.question or "") != (inputs["context"], inputs["answer"],
                                                              inputs["question"] or ""):
        notice("warning", "The result below is for the texts as they were when you pressed Audit; they have "
                          "changed since. Press Audit to check the texts above.")
    if changed := state.changed_since(inputs.get("made_with") or state.verdict_settings()):
        notice("warning", "The result below was made with other settings (" + "; ".join(changed) + "). Press "
                          "Audit to check the texts with the settings chosen now.")
    show_report(inputs["report"], key="audit.view")
    if inputs.pop("scroll", False):
        scroll_into_view(".rt4-banner")
    def keep() -> None:  # a callback: runs before the page is drawn, so the run list below includes it
        target = state.widget("w.audit.keep.run")
        row = (state.widget("w.audit.keep.row") or "").strip() or "audit-1"
        if inputs.get("kept"):  # one result is kept once: a second click must not store a second copy
            state.say(state.KEPT_AUDIT_NOTICE, ("info", f"This result is already kept as {inputs['kept']}; "
                                                        "audit again to keep a new result."))
            return
        try:
            run = save_single_audit(inputs["report"], target,
                                    (state.widget("w.audit.keep.name") or "").strip() or "single audits", row)
            inputs["kept"] = f"row {row} of run “{run.name}”"
            state.say(state.KEPT_AUDIT_NOTICE, ("success", f"Saved as row {row} of run “{run.name}” ({run.rows} rows)."))
        except InputError as exc:
            state.say(state.KEPT_AUDIT_NOTICE, ("error", str(exc)))

    with st.expander("Keep this audit in a run (Runs page)", expanded=state.has_notice(state.KEPT_AUDIT_NOTICE)):
        runs = store().list_runs()
        by_id = {r.id: r for r in runs}
        target = st.selectbox("Run", [None] + list(by_id), key="w.audit.keep.run",
                              format_func=lambda i: "(a new run)" if i is None else by_id[i].name)
        c1, c2 = st.columns(2)
        c1.text_input("Name of the new run", value="single audits", key="w.audit.keep.name",
                      disabled=target is not None)
        c2.text_input("Row id", value="audit-1", key="w.audit.keep.row")
        st.button("Save to the run", on_click=keep)
        if (kept := state.take_notice(state.KEPT_AUDIT_NOTICE)) is not None:
            notice(*kept)
