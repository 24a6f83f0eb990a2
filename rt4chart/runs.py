"""Use cases the CLI and the app share over the run store: agreement with reviews, and comparison of runs."""
from __future__ import annotations

import json

from rt4chart.data.columns import detect_group_columns
from rt4chart.store import agreement, compare


def agreement_of(store, run) -> dict:
    """How the judge agrees with the analysts' reviews of `run` (kappa, flag precision, span F1)."""
    reviews = store.reviews(run.id)
    rows = {row for row, _claim in reviews}
    reports = dict(store.reports(run.id, rows)) if rows else {}
    return agreement(reports, reviews).as_dict()


def comparison(store, a_ref: str, b_ref: str, groups=None):
    """Two stored runs side by side: paired rates, flips, group deltas, settings diff."""
    a, b = store.get_run(a_ref), store.get_run(b_ref)
    a_rows, b_rows = store.row_index(a.id), store.row_index(b.id)
    if groups is None:  # the runs' group columns, else those detected among the input's columns
        groups = [g for g in a.mapping.get("groups", []) if g in b.mapping.get("groups", [])]
        if not groups and a_rows and b_rows:
            columns = set(json.loads(a_rows[0]["result"])) & set(json.loads(b_rows[0]["result"]))
            groups = [g for g in detect_group_columns(sorted(columns))]
    return a, b, compare(a_rows, b_rows, a.manifest, b.manifest, groups)
