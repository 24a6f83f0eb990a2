"""Page: audit a CSV/TSV/JSONL file of RAG logs."""

import pandas as pd
import streamlit as st

from app_pages import _jobs, state
from app_pages._review import review_panel
from app_pages._shared import (
    CHART_CONFIG,
    SAMPLE_CSV,
    audit_config_note,
    current_judge,
    html,
    made_with,
    notice,
    read_upload,
    sample_bytes,
    show_report,
    show_table,
    text,
)
from app_pages._store import batch_fingerprint, open_run, results_of_run, run_spec_of, store
from rt4chart.batch import jobs
from rt4chart.core.errors import JudgeConfigError
from rt4chart.data.columns import (
    detect_columns,
    detect_gold_column,
    detect_group_columns,
    detect_spans_column,
    known_format,
)
from rt4chart.data.records import InputError, records_from_rows
from rt4chart.reporting.batch_report import batch_report_html
from rt4chart.reporting.figures import status_figure
from rt4chart.reporting.html import esc
from rt4chart.reporting.printable import printable
from rt4chart.reporting.rows import to_csv, to_jsonl
from rt4chart.reporting.views import DISAGREEMENTS, Filters, apply_filters, export_rows

DELIMITERS = {"by extension": None, ", (comma)": ",", "; (semicolon)": ";", "tab": "\t", "| (pipe)": "|"}


def load(name: str, data: bytes) -> None:
    """Read an upload (or the demo) into the session's dataset; the same bytes again change nothing."""
    delimiter = DELIMITERS[state.settings().get("delimiter") or "by extension"]
    digest = f"{state.content_hash(data)}:{delimiter or ''}"
    seen = state.kept(state.UPLOAD_SEEN, {})
    if seen.get("digest") == digest:
        if seen.get("error"):
            notice("error", seen["error"])
        return
    try:
        table = read_upload(name, data, delimiter)
        rows = list(table.rows())
    except InputError as exc:
        previous = state.results()
        stored = previous is not None and previous.run_id is not None
        closed = state.clear_dataset()
        message = str(exc)
        if closed is not None:
            message += (f" — {closed.name} was closed so that it is not audited by mistake"
                        + (" (its run is on the Runs page)" if stored or closed.run_id else ""))
        state.keep(state.UPLOAD_SEEN, {"digest": digest, "error": str(exc)})
        notice("error", message)
        return
    state.keep(state.UPLOAD_SEEN, {"digest": digest})
    known = known_format(table.columns)
    if table.format:
        state.say(state.RECOGNISED_NOTICE, f"{name} was read as {table.format}: {table.count} traces, each one "
                                           "record (its retrieved documents as numbered passages).")
    elif known is not None:
        state.say(state.RECOGNISED_NOTICE, f"{name} was read as {known[0]}: its columns are mapped below.")
    detected = detect_columns(table.columns, rows)
    mapping = {**detected, "gold": detect_gold_column(table.columns), "gold_spans": detect_spans_column(table.columns),
               "groups": detect_group_columns(table.columns)}
    state.set_dataset(state.Dataset(name=name, digest=digest, columns=table.columns, rows=rows, mapping=mapping,
                                    data=data, delimiter=delimiter))


st.title("Batch audit")
st.caption("Upload a CSV, TSV or JSONL file of RAG logs: context, answer, and optionally question, id, gold label, "
           "model/task columns. Rows are read exactly: a malformed file is refused with its line.")
c1, c2 = st.columns([5, 2])
upload = c1.file_uploader("CSV, TSV or JSONL file", type=["csv", "tsv", "txt", "jsonl", "json", "ndjson"],
                          key="w.upload")
c2.selectbox("CSV delimiter", list(DELIMITERS), **state.bind("delimiter"),
             help="Never guessed from the content: by extension means tab for .tsv and comma otherwise.")
if c2.button("Load the demo dataset", width="stretch"):
    load(f"demo: sample_data/{SAMPLE_CSV.name}", sample_bytes())
elif upload is not None:
    load(upload.name, upload.getvalue())

if (same_name := state.take_notice(state.SAME_RUN_NOTICE)) is not None:
    notice("info", f"This batch (the same rows, mapping, judge and settings) is already stored as run “{same_name}”: "
                   "it is open below instead of a second identical run.")
for key, kind in ((state.STORE_ERROR, "warning"), (state.REOPENED, "info")):
    if state.has_notice(key):
        message = state.take_notice(key)
        notice(kind, message if kind == "warning" else f"Reopened the last run: {message} (Runs page for others).")
if state.has_notice(state.RECOGNISED_NOTICE):
    notice("info", state.take_notice(state.RECOGNISED_NOTICE))


def finish_job(job) -> None:
    """A watched job that ended: its stored run becomes the results (of the uploaded dataset when it is still
    open, else opened as the dataset), and how it ended is said once."""
    watched = state.watched_job() or {}
    state.set_watched_job(None)
    if "job" in st.query_params:
        del st.query_params["job"]
    if job.status == "done" and job.run_id:
        current = state.dataset()
        run = store().get_run(job.run_id)
        if current is not None and watched.get("digest") == current.digest:
            state.set_results(results_of_run(run, current.digest, dict(watched.get("mapping") or current.mapping)))
            st.query_params["run"] = run.id
        else:
            open_run(run.id)
        first = int(job.extra.get("first_done", 0))
        resumed = (f" It resumed the cancelled run: {first} rows were taken as they were stored, {job.total - first} "
                   "audited now." if first else "")
        state.say(state.JOB_NOTICE, ("success", f"Stored as run “{run.name}” (Runs page): {job.message}.{resumed}"))
    elif job.status == "cancelled":
        state.say(state.JOB_NOTICE, (
            "warning", f"The batch of {job.total} rows was stopped before it finished (Cancel): the {job.done} rows it "
                       "audited are kept as a cancelled run on the Runs page, and running the same batch again goes "
                       "on from there."))
    else:
        state.say(state.JOB_NOTICE, ("error", f"The batch job failed: {job.message}"))


def watch_job() -> None:
    """The batch job this session waits for (or the one the address names, after a reload): its progress until it
    ends. Leaving the page stops only the watching; the job goes on, and every page lists it in the sidebar."""
    watched = state.watched_job()
    if watched is None and (named := st.query_params.get("job")):
        watched = {"id": str(named), "digest": None, "mapping": None}
        state.set_watched_job(watched)
    if watched is None:
        return
    job = _jobs.state_of(watched["id"])
    if job is None:
        state.set_watched_job(None)
        return
    if job.status in jobs.FINAL:
        finish_job(job)
        return

    @st.fragment(run_every=1.0)
    def live() -> None:
        now = _jobs.state_of(watched["id"])
        if now is None or now.status in jobs.FINAL:
            st.rerun()
            return
        if now.status == "interrupted":  # its worker died (the machine or the app stopped)
            if now.launches >= jobs.MAX_AUTOMATIC_LAUNCHES:  # a worker that keeps dying is not launched forever
                state.say(state.JOB_NOTICE, (
                    "error", f"The batch job's worker stopped {now.launches} times (job {now.request.id}; its log is "
                             "in the job's folder on the server). The rows it audited are kept; run the batch again "
                             "to go on."))
                state.set_watched_job(None)
                st.rerun()
                return
            jobs.launch(now.folder)  # it goes on from its journal
        share = now.done / now.total if now.total else 0.0
        st.progress(min(1.0, share), text=f"{now.request.title[:60]}: {_jobs.progress_line(now)}")
        st.button("Cancel", key=f"w.job.cancel.{now.request.id}", on_click=_jobs.cancel, args=(now.request.id,),
                  help="Stops the batch; the rows audited so far are kept as a cancelled run.")
        st.caption("The batch runs as a job on the server: you can open other pages, reload or close this tab; it "
                   "goes on, and the sidebar of every page lists it.")

    live()


watch_job()
if (job_notice := state.take_notice(state.JOB_NOTICE)) is not None:
    notice(*job_notice)
ds = state.dataset()
if ds is None:
    st.info("Upload a file, or load the demo dataset (20 rows with gold labels).")
    st.stop()

html(f"<h3>{len(ds.rows)} row{'s' if len(ds.rows) != 1 else ''} from {'run ' if ds.run_id else ''}"
     f"{esc(ds.name)}</h3>")
if not ds.rows:
    notice("warning", f"{ds.name} has no records (only a header, or nothing but blank lines): there is nothing to "
                      "audit and nothing was stored. Upload a file with rows, or load the demo dataset.")
    st.stop()
st.markdown("**Column mapping** — detected from the column names and contents; change any box.")
m = ds.mapping


def mapping_store() -> dict:
    return state.dataset().mapping


options = [None] + ds.columns
name_of = {None: "(none)"}
r1 = st.columns(4)
for col, role, label in zip(r1, ("context", "answer", "question", "id"), ("Context", "Answer", "Question", "Row id")):
    col.selectbox(label, options, format_func=lambda c: printable(name_of.get(c, c)), placeholder="(none)",
                  **state.bind(role, f"w.map.{role}", mapping_store))
r2 = st.columns([1, 1, 2])
r2[0].selectbox("Gold label (optional)", options, format_func=lambda c: printable(name_of.get(c, c)), placeholder="(none)",
                **state.bind("gold", "w.map.gold", mapping_store))
r2[1].selectbox("Gold spans, JSON (optional)", options, format_func=lambda c: printable(name_of.get(c, c)), placeholder="(none)",
                **state.bind("gold_spans", "w.map.gold_spans", mapping_store))
r2[2].multiselect("Group columns (model, task, …)", ds.columns,
                  **state.bind("groups", "w.map.groups", mapping_store, []))
with st.expander("Preview (first 10 rows)"):
    show_table(ds.rows[:10], hide_index=True, width="stretch")
st.caption(audit_config_note())

if st.button("Run batch audit", type="primary", disabled=state.watched_job() is not None):
    roles = {k: m.get(k) for k in ("context", "answer", "question", "id")}
    try:
        records = list(records_from_rows(ds.rows, roles, ds.name, columns=ds.columns))
        judge, config = current_judge(), state.audit_config()
    except (InputError, JudgeConfigError, ValueError) as exc:
        notice("error", exc)
    else:
        spec = run_spec_of(judge, config, dict(m), ds)
        fingerprint = batch_fingerprint(spec, ds)
        same = None if judge.makes_calls else store().same_run(fingerprint)  # a deterministic judge: same result
        if same is not None:
            open_run(same.id)
            state.say(state.SAME_RUN_NOTICE, same.name)
            st.rerun()
        job = _jobs.start(ds, run_name=spec.run_name, judge=judge, config=config, mapping=dict(m),
                          fingerprint=fingerprint)
        state.set_watched_job({"id": job.request.id, "digest": ds.digest, "mapping": dict(m)})
        st.query_params["job"] = job.request.id
        st.rerun()  # the job's progress shows at the top of the page

res = state.results()
if res is None:
    st.stop()
if not res.rows:  # a run stored without rows (an older version stored header-only files): nothing to show
    st.info("This run has no rows.")
    st.stop()
if res.manifest:
    line, differs = made_with(res.manifest)
    if differs:
        notice("info", f"{line}. The settings in effect now (above) differ: run the batch again to apply them.")
    else:
        st.caption(line + ".")
df = pd.DataFrame(res.rows)
errors = df[df["status"] == "error"]
if len(errors):
    notice("warning", f"{len(errors)} rows failed and are listed here; the rest of the run completed.")
    show_table(errors[["id", "error"]], hide_index=True, width="stretch")
unverified = int((df["status"] == "unverified").sum())
if unverified:
    notice("warning", f"{unverified} answers are unverified (the judge failed on them): they count as neither "
                      "faithful nor hallucinated; their claims say why.")

st.subheader("Results")
gold = res.mapping.get("gold")
f = st.columns(4)
statuses = f[0].multiselect("Status", sorted(df["status"].unique()), **state.bind("statuses", "w.filter.status",
                                                                                  lambda: res.filters, []))
verdict = f[1].selectbox("Has a claim that is", [None, "contradicted", "baseless", "unverified"],
                         format_func=lambda v: "(any)" if v is None else printable(v),
                         **state.bind("verdict", "w.filter.verdict", lambda: res.filters))
disagreement = None
if gold:
    disagreement = f[2].selectbox(f"Judge vs gold ({gold})", [None, *DISAGREEMENTS],
                                  format_func=lambda v: "(all rows)" if v is None else printable(v),
                                  **state.bind("disagreement", "w.filter.disagreement", lambda: res.filters))
group_filters = {}
for g in res.mapping.get("groups", []):
    if g in df:
        group_filters[g] = f[3].multiselect(printable(g), sorted(df[g].astype(str).unique()), format_func=printable,
                                            **state.bind(f"group.{g}", f"w.filter.group.{g}", lambda: res.filters, []))
view = apply_filters(df, Filters(statuses=statuses, verdict=verdict, groups=group_filters,
                                 disagreement=disagreement, gold_column=gold))
st.plotly_chart(status_figure(view if not view.empty else df), width="stretch", key="batch.status",
                config=CHART_CONFIG)  # the rows the filters show
FIRST = ["id", "status", "score", "hallucinated_text", "claims", "contradicted", "baseless", "unverified", "entailed"]
ordered = view[[c for c in FIRST if c in view] + [c for c in view if c not in FIRST]]  # the verdict first
picked = show_table(ordered, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                    key="w.results.table")
if picked is not None and picked.selection.rows:  # a row clicked: open it in the drill-down below
    chosen_id = str(ordered.iloc[picked.selection.rows[0]]["id"])
    if chosen_id in res.reports and chosen_id != state.drill():
        state.set_drill(chosen_id)
        state.forget_widget("w.drill")
st.caption(f"{len(view)} of {len(df)} rows shown · click a column header to sort, a row to open it below")

full = st.checkbox("Include question, context and answer in full in the downloads", key="w.export.full")
d1, d2, d3 = st.columns(3)
if view.empty:
    st.caption("No rows match the filters: nothing to download.")
texts = res.texts if full else None
shown = set(view["id"].astype(str))
title = f"rt4chart batch audit — {ds.name}" + (f" ({len(view)} of {len(df)} rows)" if len(view) != len(df) else "")
# the files are made when a button is clicked (on another thread), not on every rerun of the page; a click
# never reruns the page: the rerun's start empties the queue that carries the file back (the button then
# spun for 3 minutes and gave nothing: Streamlit 1.67 keeps no backend_operation_response when it clears)
d1.download_button("Download CSV", lambda: to_csv(export_rows(view, texts)), file_name="rt4chart-batch.csv",
                   mime="text/csv", disabled=view.empty, on_click="ignore")
d2.download_button("Download JSONL", lambda: to_jsonl(export_rows(view, texts)), file_name="rt4chart-batch.jsonl",
                   mime="application/json", disabled=view.empty, on_click="ignore")
d3.download_button("Download HTML report", lambda: batch_report_html(
    [r for r in res.rows if str(r["id"]) in shown], res.reports, res.mapping.get("groups", []), gold,
    res.mapping.get("gold_spans"), res.answers, res.manifest, title=title),
    file_name="rt4chart-batch-report.html", mime="text/html", disabled=view.empty, on_click="ignore")

ids = [str(i) for i in view["id"] if str(i) in res.reports]
if ids:
    st.subheader("Drill down")
    named = st.query_params.get("row")
    first_look = state.first_time(state.ROW_ADOPTED)
    if named in ids and first_look:  # a shared link or a reload: its row opens
        state.set_drill(named)
    if state.drill() not in ids:  # a new filter, or a link (Insights, Metrics) to a row: show one that is listed
        state.set_drill(ids[0])
    if state.widget("w.drill") != state.drill():
        state.set_widget("w.drill", state.drill())
    chosen = st.selectbox("Row", ids, key="w.drill", format_func=printable, on_change=lambda: state.set_drill(state.widget("w.drill")))
    if res.run_id and st.query_params.get("row") != chosen:
        st.query_params["row"] = chosen  # the open row is in the address (with its run): a link opens it
    text(chosen, "Row id:")
    report = res.reports[chosen]
    if res.run_id:
        review_panel(res.run_id, chosen, report, res.rows)
    show_report(report, key="batch.view")
