"""Plotly figures of an audited dataset (pure functions of result rows; no Streamlit)."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import plotly.graph_objects as go

from .metrics import Scores, wilson_interval
from .render import STYLE

VERDICTS = ("contradicted", "baseless", "unverified", "entailed")


def frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    return df[df["status"] != "error"]


def _hallucinated(flags: pd.Series) -> int:
    """Answers flagged hallucinated; `None` (unverified) must not count."""
    return int((flags == True).sum())  # noqa: E712 - an elementwise comparison, not a truth test


def _layout(fig: go.Figure, title: str) -> go.Figure:
    fig.update_layout(title=title, margin=dict(l=40, r=20, t=50, b=40), height=340, template="plotly_white")
    return fig


def rate_figure(df: pd.DataFrame) -> go.Figure:
    """Share of hallucinated answers with its 95% Wilson interval."""
    n = len(df)
    k = _hallucinated(df["hallucinated"]) if n else 0
    low, high = wilson_interval(k, n)
    rate = k / n if n else 0.0
    fig = go.Figure(go.Bar(x=["hallucinated answers"], y=[rate], marker_color=STYLE["contradicted"]["fg"],
                           error_y=dict(type="data", symmetric=False, array=[high - rate], arrayminus=[rate - low]),
                           text=[f"{rate:.0%} ({k}/{n})"], textposition="outside"))
    fig.update_yaxes(range=[0, 1], tickformat=".0%")
    return _layout(fig, f"Hallucination rate: {rate:.1%} (95% CI {low:.1%}–{high:.1%})")


def verdict_mix_figure(df: pd.DataFrame) -> go.Figure:
    """How many claims got each verdict."""
    totals = [int(df[v].sum()) if v in df and len(df) else 0 for v in VERDICTS]
    fig = go.Figure(go.Bar(x=list(VERDICTS), y=totals, text=totals, textposition="outside",
                           marker_color=[STYLE[v]["fg"] for v in VERDICTS]))
    return _layout(fig, "Claims by verdict")


def rate_by_group_figure(df: pd.DataFrame, group: str) -> go.Figure:
    """Hallucination rate per value of a group column (model, task, ...) with 95% intervals."""
    rows = []
    for value, part in df.groupby(group, dropna=False):
        n = len(part)
        k = _hallucinated(part["hallucinated"])
        low, high = wilson_interval(k, n)
        rows.append((str(value), k / n if n else 0.0, low, high, n))
    rows.sort(key=lambda r: -r[1])
    fig = go.Figure(go.Bar(x=[r[0] for r in rows], y=[r[1] for r in rows],
                           error_y=dict(type="data", symmetric=False, array=[r[3] - r[1] for r in rows],
                                        arrayminus=[r[1] - r[2] for r in rows]),
                           text=[f"{r[1]:.0%} (n={r[4]})" for r in rows], textposition="outside",
                           marker_color=STYLE["baseless"]["fg"]))
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return _layout(fig, f"Hallucination rate by {group}")


def claims_per_answer_figure(df: pd.DataFrame) -> go.Figure:
    fig = go.Figure(go.Histogram(x=df["claims"] if len(df) else [], marker_color="#1565c0"))
    fig.update_xaxes(title="claims per answer")
    fig.update_yaxes(title="answers")
    return _layout(fig, "Claims per answer")


def confusion_figure(s: Scores) -> go.Figure:
    """2x2 confusion matrix, hallucinated = positive class."""
    z = [[s.tp, s.fn], [s.fp, s.tn]]
    fig = go.Figure(go.Heatmap(z=z, x=["predicted hallucinated", "predicted faithful"],
                               y=["gold hallucinated", "gold faithful"], text=z, texttemplate="%{text}",
                               colorscale="Blues", showscale=False))
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, "Confusion matrix")


def top_issues(df: pd.DataFrame, n: int = 10, context_column: Optional[str] = None) -> pd.DataFrame:
    """The answers with the most contradicted + baseless claims."""
    if df.empty:
        return df
    issues = df.assign(issues=df["contradicted"] + df["baseless"])
    columns = ["id", "issues", "contradicted", "baseless", "hallucinated_text"]
    if context_column and context_column in issues:
        columns.insert(1, context_column)
    return issues.sort_values(["issues", "id"], ascending=[False, True]).head(n)[columns]


def top_contexts(df: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The retrieved contexts behind the most contradicted + baseless claims (answers sharing a context)."""
    if df.empty or "context_id" not in df:
        return df
    grouped = (df.assign(issues=df["contradicted"] + df["baseless"])
                 .groupby("context_id", as_index=False)
                 .agg(context=("context_preview", "first"), answers=("id", "count"), issues=("issues", "sum"),
                      hallucinated_answers=("hallucinated", _hallucinated)))
    return grouped.sort_values(["issues", "context_id"], ascending=[False, True]).head(n)
