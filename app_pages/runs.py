"""Page: the runs kept in the run store — open one (results, drill-down, metrics come back without
re-running), rename, tag, delete."""
import pandas as pd
import streamlit as st

from app_pages import state
from app_pages._shared import notice, show_table
from app_pages._store import open_run, store
from rt4chart.core.errors import InputError
from rt4chart.store import safe_url
from rt4chart.store.provider_jobs import JobBook
from rt4chart.store.provider_rounds import waiting_batches

st.title("Runs")
s = store()
st.caption(f"Every batch audit (here or `rt4chart batch`) is kept in the run store {safe_url(s.url)} "
           "(set RT4CHART_DB to share one PostgreSQL store with a team).")


def _cancel_batch() -> None:
    """Runs before the page is drawn again, so the table already says "cancel requested"."""
    key = state.widget("w.runs.batch")
    try:
        job = JobBook(store()).request_cancel(key)
        state.say(state.BATCH_NOTICE, ("info", (
            f"Cancel requested for batch {job.key[:12]}: the process waiting on the provider cancels its batches "
            f"at its next poll (if none is running, rt4chart runs resume {job.key[:12]} does it). What the "
            "provider answered is kept; the rest ends unverified.")))
    except InputError as exc:
        state.say(state.BATCH_NOTICE, ("error", str(exc)))


jobs = [j for j in JobBook(s).all() if j.status == "waiting"]
if jobs:  # CLI batches going through a provider's batch interface: stored as runs when their last round is in
    st.subheader("Waiting on a provider")
    requests: dict[str, int] = {}
    for w in waiting_batches(s):
        requests[w["batch"]] = requests.get(w["batch"], 0) + w["requests"]
    show_table([{"batch": j.key[:12], "input": j.source, "via": j.via, "where it stands": j.line,
                 "requests in flight": requests.get(j.key[:12], 0), "updated": str(j.updated)[:16]} for j in jobs],
               hide_index=True, width="stretch")
    st.caption("Batches of `rt4chart batch --via batch-api|batch-file`, as the process waiting on them last "
               "wrote. That process collects them (after a kill: `rt4chart runs resume KEY`); the run is listed "
               "below when its last round is in.")
    st.selectbox("Batch", [j.key for j in jobs], format_func=lambda k: f"{k[:12]} · "
                 f"{next(j.source for j in jobs if j.key == k)}", key="w.runs.batch")
    st.button("Cancel this batch", key="w.runs.cancel_batch", on_click=_cancel_batch)
said = state.take_notice(state.BATCH_NOTICE)
if said:
    notice(*said)
runs = s.list_runs()
if not runs:
    st.info("No runs yet: run a batch audit (Batch audit page, or `rt4chart batch FILE -o OUT`).")
    st.stop()

table = pd.DataFrame([{"name": r.name, "rate": r.as_dict()["rate"], "rows": r.rows, "hallucinated": r.hallucinated,
                       "unverified": r.unverified, "failed": r.failed, "judge": r.judge + (f" / {r.model}" if r.model
                                                                                          else ""),
                       "created": r.created.replace("T", " ")[:16], "tags": ", ".join(r.tags), "status": r.status}
                      for r in runs])
clicked = show_table(table, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                     key="w.runs.table",
                     column_config={"rate": st.column_config.NumberColumn("hallucination rate", format="percent")})
st.caption("Click a run to open it in the batch page; choose one below to compare, rename, tag or delete it.")
if clicked is not None and clicked.selection.rows:  # a run clicked: opened, as its button below does
    open_run(runs[clicked.selection.rows[0]].id)
    st.switch_page("app_pages/batch.py")

by_id = {r.id: r for r in runs}
current = state.results()
choice = st.selectbox("Run", list(by_id), format_func=lambda i: f"{by_id[i].name} · {by_id[i].created}",
                      index=list(by_id).index(current.run_id) if current and current.run_id in by_id else 0,
                      key="w.runs.pick")
run = by_id[choice]
c1, c2, c3 = st.columns(3)
if c1.button("Open in the batch page", type="primary"):
    open_run(run.id)
    st.switch_page("app_pages/batch.py")
if c2.button("Compare with another run"):
    state.set_widget("w.compare.a", run.id)
    st.switch_page("app_pages/compare.py")

with st.expander("Rename, tag or delete"):
    name = st.text_input("Name", value=run.name, key=f"w.runs.name.{run.id}")
    tags = st.text_input("Tags (comma-separated)", value=", ".join(run.tags), key=f"w.runs.tags.{run.id}")
    if st.button("Save name and tags"):
        try:
            if name != run.name:
                s.rename(run.id, name)
            s.set_tags(run.id, tags.split(","))
            st.rerun()
        except InputError as exc:
            notice("error", exc)
    confirm = st.checkbox(f"Yes, delete this run and its {run.rows} rows and reviews", key=f"w.runs.confirm.{run.id}")
    if st.button("Delete run", disabled=not confirm):
        s.delete(run.id)
        if current is not None and current.run_id == run.id:
            state.close_dataset_and_results()
        st.rerun()
