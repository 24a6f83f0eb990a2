"""Views of audited rows: the filters of the batch page, agreement with a gold column, per-group
rates, and the rows a download exports (exactly the rows shown). Pure pandas, no Streamlit."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import pandas as pd

from rt4chart.evaluation.metrics import as_bool, hallucination_rate, wilson_interval

DISAGREEMENTS = ("false positives", "false negatives", "agreements")


def gold_flags(df: pd.DataFrame, gold_column: str) -> pd.Series:
    """The gold column as booleans (None where the cell is empty)."""
    return df[gold_column].map(lambda v: None if v is None or (isinstance(v, str) and not v.strip())
                               or (isinstance(v, float) and v != v) else as_bool(v))


def agreement(df: pd.DataFrame, gold_column: str) -> pd.Series:
    """Per row: 'false positive' (flagged, gold faithful), 'false negative' (not flagged, gold
    hallucinated), 'agreement', or '' (no gold, failed or unverified row)."""
    gold = gold_flags(df, gold_column)

    def one(pred, g) -> str:
        if g is None or pred is None or (isinstance(pred, float) and pred != pred):
            return ""
        if bool(pred) and not g:
            return "false positive"
        if not bool(pred) and g:
            return "false negative"
        return "agreement"

    return pd.Series([one(p, g) for p, g in zip(df["hallucinated"], gold)], index=df.index, dtype=object)


@dataclass
class Filters:
    """What the batch page's filter boxes ask for; empty means 'any'."""

    statuses: list[str] = field(default_factory=list)
    verdict: Optional[str] = None                       # rows with at least one claim of this verdict
    groups: dict[str, list[str]] = field(default_factory=dict)
    disagreement: Optional[str] = None                  # one of DISAGREEMENTS (needs `gold_column`)
    gold_column: Optional[str] = None


def apply_filters(df: pd.DataFrame, f: Filters) -> pd.DataFrame:
    view = df
    if f.statuses:
        view = view[view["status"].isin(f.statuses)]
    if f.verdict and f.verdict in view:
        view = view[view[f.verdict] > 0]
    for column, values in f.groups.items():
        if values and column in view:
            view = view[view[column].astype(str).isin(values)]
    if f.disagreement and f.gold_column and f.gold_column in view and len(view):
        wanted = {"false positives": "false positive", "false negatives": "false negative",
                  "agreements": "agreement"}[f.disagreement]
        view = view[agreement(view, f.gold_column) == wanted]
    return view


def export_rows(view: pd.DataFrame, texts: Optional[dict[str, dict]] = None) -> list[dict]:
    """The rows of `view` as plain dicts, in view order; with `texts` (id -> question/context/answer)
    the full texts are included, else only the short context preview."""
    rows = []
    for record in view.to_dict("records"):
        row = {k: (None if isinstance(v, float) and v != v else v) for k, v in record.items()}
        if texts is not None:
            row.pop("context_preview", None)
            full = texts.get(str(row["id"]), {})
            row.update({"question": full.get("question") or "", "context": full.get("context", ""),
                        "answer": full.get("answer", "")})
        rows.append(row)
    return rows


def count_hallucinated(flags: pd.Series) -> int:
    """Answers flagged hallucinated; `None` (unverified) must not count."""
    return int((flags == True).sum())  # noqa: E712 - an elementwise comparison, not a truth test


def group_rates(df: pd.DataFrame, group: str, gold_column: Optional[str] = None) -> pd.DataFrame:
    """Per value of `group`: answers, predicted rate with its 95% interval and, with a gold column,
    the gold rate with its interval and the rows where judge and gold disagree. Unverified rows are
    counted apart (neither rate includes them)."""
    out = []
    for value, part in df.groupby(df[group].astype(str), sort=True):
        rate = hallucination_rate(part["hallucinated"])
        low, high = rate.interval
        row = {group: value, "answers": len(part), "unverified": len(part) - rate.decided,
               "predicted_rate": rate.value, "predicted_low": low, "predicted_high": high}
        if gold_column and gold_column in part:
            gold = gold_flags(part, gold_column).dropna()
            gk, gn = int(sum(bool(g) for g in gold)), len(gold)
            glow, ghigh = wilson_interval(gk, gn)
            marks = agreement(part, gold_column)
            row.update({"gold_rate": gk / gn if gn else None, "gold_low": glow, "gold_high": ghigh,
                        "false_positives": int((marks == "false positive").sum()),
                        "false_negatives": int((marks == "false negative").sum())})
        out.append(row)
    frame = pd.DataFrame(out)
    if frame.empty:
        return frame
    key = "gold_rate" if gold_column and "gold_rate" in frame else "predicted_rate"
    return frame.sort_values([key, group], ascending=[False, True], na_position="last").reset_index(drop=True)
