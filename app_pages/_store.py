"""The app's side of the run store: one Store per database URL, opening a run as the session's dataset
and results, saving a batch audit as a run, and reopening the last run after a reload."""
from __future__ import annotations

from datetime import datetime
from typing import Optional

import streamlit as st

from app_pages import state
from rt4chart.batch.spec import RunSpec
from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import Rt4chartError
from rt4chart.core.rows import RowResult
from rt4chart.data.columns import detect_gold_column, detect_group_columns, detect_spans_column
from rt4chart.judges.base import Judge
from rt4chart.store import RunInfo, Store, default_url, pack
from rt4chart.store.lazy import StoredReports


@st.cache_resource(show_spinner=False)
def _store_for(url: str) -> Store:
    return Store(url)


def store() -> Store:
    """The app's run store; one that cannot be used (damaged, foreign, newer schema, unreachable) stops the page
    with the store's one-line message instead of a traceback (Streamlit does not cache a failed open)."""
    from app_pages._shared import notice

    try:
        return _store_for(default_url())
    except Rt4chartError as exc:
        notice("error", f"{exc}. Pages that need the run store (Runs, Compare, batch audits) wait for it; "
                        "the Audit page works without it.")
        st.stop()
        raise  # st.stop() raises; this line is for the type checker


def open_run(run_id: str) -> RunInfo:
    """Make a stored run the session's dataset and results (its reports load on demand)."""
    s = store()
    run = s.get_run(run_id)
    records = s.records(run.id)
    rows = s.results(run.id)
    columns = {role: run.mapping.get(role) or role for role in ("context", "answer", "question", "id")}
    table = []
    for r in records:
        row = dict(r.get("extra") or {})
        row.update({columns["id"]: r["id"], columns["context"]: r["context"], columns["answer"]: r["answer"]})
        if r.get("question") is not None:
            row[columns["question"]] = r["question"]
        table.append(row)
    names = list(dict.fromkeys(c for row in table[:200] for c in row))
    mapping = {**columns, "gold": run.mapping.get("gold") or detect_gold_column(names),
               "gold_spans": run.mapping.get("gold_spans") or detect_spans_column(names),
               "groups": run.mapping.get("groups") or detect_group_columns(names)}
    digest = f"run:{run.id}"
    state.set_dataset(state.Dataset(name=run.name, digest=digest, columns=names, rows=table, mapping=mapping,
                                    run_id=run.id))
    state.set_results(results_of_run(run, digest, mapping, records=records, rows=rows))
    s.mark_opened(run.id)
    state.adopt_run_settings(run.manifest)
    st.query_params["run"] = run.id  # the address names the open run at once (a rerun may follow)
    return run


def results_of_run(run: RunInfo, digest: str, mapping: dict, records: Optional[list] = None,
                   rows: Optional[list] = None) -> "state.Results":
    """A stored run as the session's results for the dataset `digest` (its reports load on demand)."""
    s = store()
    records = s.records(run.id) if records is None else records
    rows = s.results(run.id) if rows is None else rows
    return state.Results(
        digest=digest, rows=rows, mapping=dict(mapping), run_id=run.id, manifest=run.manifest,
        reports=StoredReports(s, run.id, [r["id"] for r in rows if r["status"] != "error"]),
        answers={r["id"]: r["answer"] for r in records},
        texts={r["id"]: {"question": r.get("question"), "context": r["context"], "answer": r["answer"]}
               for r in records})


def run_spec_of(judge: Judge, config: AuditConfig, mapping: dict, dataset) -> RunSpec:
    """The app batch's settings as the engine's one value: the session's judge, settings and cache, and the
    app's run store, the run named after the dataset and the time."""
    from app_pages._shared import cache

    name = dataset.name.rsplit(" 20", 1)[0] if dataset.run_id else dataset.name
    return RunSpec(judge=judge, config=config, cache=cache(), mapping=mapping, store=store(),
                   run_name=f"{name} {datetime.now().strftime('%Y-%m-%d %H:%M')}",
                   delimiter=dataset.delimiter if dataset.data is not None else None)


def batch_fingerprint(spec: RunSpec, dataset) -> str:
    """What makes two app batches the same: the dataset's rows as its job reads them, the mapping and the settings
    (the fingerprint its job's run is stored with, so a stored run is found again before a job is made)."""
    import hashlib

    from rt4chart.batch import jobs
    from rt4chart.batch.run import batch_fingerprint as fingerprint_of

    data = dataset.data if dataset.data is not None else jobs.input_bytes(dataset.rows)
    return fingerprint_of("", spec, hashlib.sha256(data).hexdigest())


def save_single_audit(report, run_id: Optional[str], name: str, row_id: str) -> RunInfo:
    """Keep one audited answer in a run: a new run named `name`, or appended to the run `run_id`."""
    from rt4chart.core.rows import Record

    s = store()
    if run_id:
        run = s.get_run(run_id)
        position = len(s.stored_positions(run.id))
        taken = {r["row_id"] for r in s.row_index(run.id)}
        base, n = row_id, 1
        while row_id in taken:
            n += 1
            row_id = f"{base}#{n}"
    else:
        run = s.create_run(name, judge=report.manifest.judge, model=report.manifest.model, source="single audits",
                           manifest=report.manifest.model_dump())
        position = 0
    record = Record(id=row_id, context=report.context, answer=report.answer, question=report.question,
                    row=position + 1)
    s.add_rows(run.id, [pack(position, RowResult(record, report=report))])
    return s.finish_run(run.id)


def keep_run_in_url() -> None:
    """The open run's id in the page address (`?run=…`), so a reload, a bookmark or a shared link opens this
    run — never whichever run someone else (a CLI batch, a colleague on a shared store) stored last."""
    res = state.results()
    run_id = res.run_id if res is not None else None
    if run_id:  # set on every run: a value set just before st.rerun() may never have reached the browser
        st.query_params["run"] = run_id


def reopen_last_run() -> None:
    """Once per browser session: with nothing loaded, reopen the run the address names (a reload loses
    nothing); without one, nothing is opened."""
    if not state.first_time(state.REOPEN_TRIED):
        return
    if state.dataset() is not None:
        return
    run_id = st.query_params.get("run")
    if not run_id:
        return
    try:
        run = _store_for(default_url()).find_run(run_id)  # not store(): a broken store must not stop this page
        if run is None:
            state.say(state.STORE_ERROR, f"The run {run_id} in the address is not in the run store.")
            return
        open_run(run.id)
        state.say(state.REOPENED, run.name)
    except Exception as exc:  # noqa: BLE001 - a store that cannot be read must not stop the app
        state.say(state.STORE_ERROR, f"The run store could not be read ({type(exc).__name__}: {exc}).")
