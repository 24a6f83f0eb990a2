"""Page: audit a CSV/JSONL file of RAG logs."""
import time

import pandas as pd
import streamlit as st

from pages._shared import (audit_config, cache, current_judge, enter_through_app, read_upload, sample_rows,
                           show_report)
from rt4chart.batch import run_records
from rt4chart.io import InputError, detect_columns, records_from_rows
from rt4chart.judges.llm_client import JudgeConfigError
from rt4chart.results import detect_gold_column, detect_group_columns, result_row, to_csv, to_jsonl

enter_through_app()  # a deep link on a fresh server must still get the app's navigation

st.title("Batch audit")
st.caption("Upload a CSV or JSONL of RAG logs (context, answer, optional question, id, gold label, model/task).")

upload = st.file_uploader("CSV or JSONL file", type=["csv", "tsv", "jsonl", "json"], key="batch.upload")
if st.button("Load the demo dataset"):
    st.session_state["batch.rows"] = sample_rows()
    st.session_state["batch.source"] = "demo: sample_data/rag_audit_sample.csv"
elif upload is not None and st.session_state.get("batch.source") != upload.name:
    try:
        st.session_state["batch.rows"] = read_upload(upload.name, upload.getvalue())
        st.session_state["batch.source"] = upload.name
    except InputError as exc:
        st.session_state.pop("batch.rows", None)
        st.error(str(exc))

rows = st.session_state.get("batch.rows")
if rows:
    columns = list(dict.fromkeys(c for r in rows[:100] for c in r))
    guess = detect_columns(columns)
    none = "(none)"
    options = [none] + columns
    st.subheader(f"{len(rows)} row{'s' if len(rows) != 1 else ''} from {st.session_state.get('batch.source')}")
    c = st.columns(7)
    roles = {}
    for col, role in zip(c[:4], ("context", "answer", "question", "id")):
        default = guess.get(role)
        roles[role] = col.selectbox(role, options, index=options.index(default) if default in options else 0,
                                    key=f"batch.map.{role}")
    gold_default = detect_gold_column(columns)
    roles["gold"] = c[4].selectbox("gold label", options, key="batch.map.gold",
                                   index=options.index(gold_default) if gold_default else 0)
    spans_default = next((x for x in columns if x.lower() in ("gold_spans", "spans", "hallucinated_spans")), None)
    roles["gold_spans"] = c[5].selectbox("gold spans (JSON)", options, key="batch.map.gold_spans",
                                         index=options.index(spans_default) if spans_default else 0)
    groups = c[6].multiselect("group columns", columns, default=detect_group_columns(columns), key="batch.map.groups")
    st.dataframe(pd.DataFrame(rows[:10]), hide_index=True, width="stretch")

    if st.button("Run batch audit", type="primary"):
        mapping = {k: (v if v != none else None) for k, v in roles.items() if k in ("context", "answer", "question", "id")}
        try:
            records = list(records_from_rows(rows, mapping, st.session_state.get("batch.source", "upload")))
            judge = current_judge()
        except (InputError, JudgeConfigError, ValueError) as exc:
            st.error(str(exc))
        else:
            bar = st.progress(0.0, text="Starting…")
            started = time.perf_counter()
            results, reports = [], {}
            extra = [c for c in dict.fromkeys([roles["gold"], roles["gold_spans"], *groups]) if c and c != none]
            for done, row in enumerate(run_records(records, judge, audit_config(), cache=cache()), 1):
                results.append(result_row(row, extra))
                if row.report is not None:
                    reports[row.record.id] = row.report
                elapsed = time.perf_counter() - started
                eta = elapsed / done * (len(records) - done)
                bar.progress(done / len(records), text=f"{done}/{len(records)} rows · ETA {eta:.0f} s")
            bar.progress(1.0, text=f"Done: {len(records)} rows in {time.perf_counter() - started:.1f} s")
            st.session_state["batch.results"] = results
            st.session_state["batch.reports"] = reports
            st.session_state["batch.meta"] = {"gold": roles["gold"] if roles["gold"] != none else None,
                                              "gold_spans": roles["gold_spans"] if roles["gold_spans"] != none else None,
                                              "groups": groups, "answers": {r.id: r.answer for r in records}}

results = st.session_state.get("batch.results")
if results:
    df = pd.DataFrame(results)
    errors = df[df["status"] == "error"]
    if len(errors):
        st.warning(f"{len(errors)} rows failed and were skipped; the rest of the run completed.")
        st.dataframe(errors[["id", "error"]], hide_index=True, width="stretch")
    st.subheader("Results")
    f1, f2, f3 = st.columns(3)
    status = f1.multiselect("status", sorted(df["status"].unique()), key="batch.filter.status")
    verdict = f2.selectbox("has a claim that is", ["(any)", "contradicted", "baseless", "unverified"],
                           key="batch.filter.verdict")
    meta = st.session_state.get("batch.meta", {})
    group_filters = {}
    for g in meta.get("groups", []):
        group_filters[g] = f3.multiselect(g, sorted(df[g].astype(str).unique()), key=f"batch.filter.{g}")
    view = df
    if status:
        view = view[view["status"].isin(status)]
    if verdict != "(any)":
        view = view[view[verdict] > 0]
    for g, values in group_filters.items():
        if values:
            view = view[view[g].astype(str).isin(values)]
    st.dataframe(view, hide_index=True, width="stretch")
    d1, d2 = st.columns(2)
    d1.download_button("Download CSV", to_csv(results), file_name="rt4chart-batch.csv", mime="text/csv")
    d2.download_button("Download JSONL", to_jsonl(results), file_name="rt4chart-batch.jsonl",
                       mime="application/json")

    reports = st.session_state.get("batch.reports", {})
    ids = [i for i in view["id"] if i in reports]
    if ids:
        st.subheader("Drill down")
        if st.session_state.get("batch.drill") not in ids:  # e.g. a link from Insights to a filtered-out row
            st.session_state.pop("batch.drill", None)
        chosen = st.selectbox("Row", ids, key="batch.drill")
        show_report(reports[chosen], key="batch.view")
