"""Use cases the CLI and the app share over the run store: agreement with reviews, and comparison of runs."""
from __future__ import annotations

import json
from typing import Iterable, Optional

from rt4chart.data.columns import detect_gold_column, detect_group_columns
from rt4chart.evaluation.metrics import Scores, as_bool, bootstrap_intervals, hallucination_rate
from rt4chart.store import agreement, compare
from rt4chart.store.analysis import ClaimChanges, claim_changes


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


def claim_flips(store, a, b, pairs: list[tuple[str, str]]) -> ClaimChanges:
    """Claim verdicts that changed between two runs on the rows they share (`pairs`: id in A, id in B)."""
    a_reports = dict(store.reports(a.id, [x for x, _ in pairs]))
    b_reports = dict(store.reports(b.id, [y for _, y in pairs]))
    return claim_changes((y, a_reports[x], b_reports[y]) for x, y in pairs if x in a_reports and y in b_reports)


def _against_gold(rows: list[dict], flat: list[dict], gold: str) -> Scores:
    """The verified rows with a gold label, counted against it (and their scores, for AUROC)."""
    s = Scores()
    for r, f in zip(rows, flat):
        if r["hallucinated"] is None or f.get(gold) in (None, ""):
            continue
        y, yhat = as_bool(f[gold]), bool(r["hallucinated"])
        if isinstance(f.get("score"), (int, float)):
            s.scored.append((float(f["score"]), y))
        s.tp += y and yhat
        s.fp += (not y) and yhat
        s.fn += y and not yhat
        s.tn += (not y) and not yhat
    return s


def run_figures(store, run, row_ids: Optional[Iterable[str]] = None) -> dict:
    """What one run did on the rows `row_ids` (default: all): rows, hallucination rate, judge calls, tokens and
    time per row, and — when the run has a gold column — precision, recall, F1 and balanced accuracy
    against it. The numbers the Compare page shows side by side to answer "did my change help?"."""
    keep = set(row_ids) if row_ids is not None else None
    rows = [r for r in store.row_index(run.id) if keep is None or r["row_id"] in keep]
    flat = [json.loads(r["result"]) for r in rows]
    rate = hallucination_rate(r["hallucinated"] for r in rows)
    out: dict = {"rows": len(rows), "rate": rate.value, "hallucinated": rate.count, "decided": rate.decided,
           "judge_calls": sum(int(f.get("judge_calls") or 0) for f in flat),
           "tokens": sum(int(f.get("tokens") or 0) for f in flat),
           "elapsed_s": round(sum(float(f.get("elapsed_s") or 0.0) for f in flat), 2)}
    gold = (run.mapping or {}).get("gold") or (detect_gold_column(list(flat[0])) if flat else None)  # CLI runs
    if gold:
        s = _against_gold(rows, flat, gold)
        out.update(gold=gold, gold_rows=s.tp + s.fp + s.fn + s.tn, precision=s.precision, recall=s.recall, f1=s.f1,
                   balanced_accuracy=s.balanced_accuracy, auroc=s.auroc,
                   intervals=bootstrap_intervals([(True, True)] * s.tp + [(False, True)] * s.fp
                                                 + [(True, False)] * s.fn + [(False, False)] * s.tn))
    return out


def report_of_run(store, ref: str) -> str:
    """The stakeholders' HTML report of a stored run (what the app's Batch page downloads), made from the store:
    its flat rows, the full reports, the gold, group and span columns it was run with (or detected among the
    input's columns), the answers and the manifest."""
    from rt4chart.data.columns import detect_spans_column
    from rt4chart.reporting.batch_report import batch_report_html

    run = store.get_run(ref)
    rows = store.results(run.id)
    records = store.records(run.id)
    names = sorted({c for r in records[:200] for c in (r.get("extra") or {})} | {c for r in rows[:200] for c in r})
    gold = run.mapping.get("gold") or detect_gold_column(names)
    reports = dict(store.reports(run.id, [str(r["id"]) for r in rows if r.get("status") != "error"]))
    return batch_report_html(rows, reports, run.mapping.get("groups") or detect_group_columns(names), gold,
                             run.mapping.get("gold_spans") or detect_spans_column(names),
                             {str(r["id"]): r["answer"] for r in records}, run.manifest,
                             title=f"rt4chart batch audit — {run.name}")


def gold_of_run(store, run) -> Optional[dict]:
    """The run's answers scored against its gold column (P/R/F1/BA/AUROC over verified rows; `run_figures`), or
    None when the run has no gold column or no row with a gold label."""
    f = run_figures(store, run)
    if not f.get("gold") or not f["gold_rows"]:
        return None
    return {"column": f["gold"], "n": f["gold_rows"], "precision": f["precision"], "recall": f["recall"],
            "f1": f["f1"], "balanced_accuracy": f["balanced_accuracy"], "auroc": f["auroc"]}
