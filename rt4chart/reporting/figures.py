"""Plotly figures of an audited dataset (pure functions of result rows; no Streamlit)."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import plotly.graph_objects as go

from rt4chart.evaluation.metrics import Scores, hallucination_rate
from rt4chart.reporting.html import ACCENT, MARKER, STATUS_COLOURS, STYLE, esc
from rt4chart.reporting.views import count_hallucinated, group_rates

VERDICTS = ("contradicted", "baseless", "unverified", "entailed")


def frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    return df[df["status"] != "error"]


def _layout(fig: go.Figure, title: str) -> go.Figure:
    fig.update_layout(title=title, margin=dict(l=40, r=20, t=50, b=40), height=340, template="plotly_white")
    return fig


def rate_figure(df: pd.DataFrame) -> go.Figure:
    """Share of hallucinated answers with its 95% Wilson interval."""
    r = hallucination_rate(df["hallucinated"]) if len(df) else hallucination_rate([])
    k, n, (low, high), rate = r.count, r.decided, r.interval, r.value or 0.0
    fig = go.Figure(go.Bar(x=[f"hallucinated answers ({k}/{n})"], y=[rate], marker_color=STYLE["contradicted"]["fg"],
                           error_y=dict(type="data", symmetric=False, array=[high - rate], arrayminus=[rate - low]),
                           text=[f"{rate:.0%}"], textposition="inside", insidetextanchor="start",
                           textfont=dict(color="white")))
    fig.update_yaxes(range=[0, 1], tickformat=".0%")
    return _layout(fig, f"Hallucination rate: {rate:.1%} (95% CI {low:.1%}–{high:.1%})")


def verdict_mix_figure(df: pd.DataFrame) -> go.Figure:
    """How many claims got each verdict."""
    totals = [int(df[v].sum()) if v in df and len(df) else 0 for v in VERDICTS]
    fig = go.Figure(go.Bar(x=list(VERDICTS), y=totals, text=totals, textposition="outside",
                           marker_color=[STYLE[v]["fg"] for v in VERDICTS]))
    return _layout(fig, "Claims by verdict")


def status_figure(df: pd.DataFrame) -> go.Figure:
    """Answers by status (a compact summary above the batch results)."""
    order = ["hallucinated", "faithful", "unverified", "empty", "error"]
    colours = STATUS_COLOURS
    counts = df["status"].value_counts() if len(df) else pd.Series(dtype=int)
    shown = [s for s in order if counts.get(s, 0)]
    fig = go.Figure(go.Bar(y=shown, x=[int(counts[s]) for s in shown], orientation="h", text=[int(counts[s]) for s in shown],
                           textposition="inside", insidetextanchor="start", textfont=dict(color="white"),
                           marker_color=[colours[s] for s in shown]))
    fig.update_layout(height=60 + 28 * len(shown), margin=dict(l=10, r=10, t=10, b=10), template="plotly_white",
                      yaxis=dict(autorange="reversed"))
    return fig


def rate_by_group_figure(df: pd.DataFrame, group: str, gold_column: Optional[str] = None) -> go.Figure:
    """Hallucination rate per value of a group column (model, task, ...) with 95% intervals; with a gold
    column, the gold rate beside the judge's. Labels sit inside the bars' base so error bars never cross
    them; group values are escaped (Plotly reads a little HTML in labels)."""
    rates = group_rates(df, group, gold_column)
    x = [f"{esc(v)} (n={n})" for v, n in zip(rates[group], rates["answers"])] if len(rates) else []
    traces = [("predicted", "judge", STYLE["baseless"]["fg"])]
    if gold_column and "gold_rate" in rates:
        traces.append(("gold", "gold labels", ACCENT))
    fig = go.Figure()
    for prefix, name, colour in traces:
        y = [v if v == v and v is not None else 0.0 for v in rates.get(f"{prefix}_rate", [])]
        fig.add_trace(go.Bar(
            name=name, x=x, y=y, marker_color=colour,
            error_y=dict(type="data", symmetric=False, array=[h - v for h, v in zip(rates[f"{prefix}_high"], y)],
                         arrayminus=[v - lo for lo, v in zip(rates[f"{prefix}_low"], y)]),
            text=[f"{v:.0%}" for v in y], textposition="inside", insidetextanchor="start",
            textfont=dict(color="white")))
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom"))
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    title = f"Hallucination rate by {esc(group)}" + (": judge vs gold labels" if len(traces) > 1 else "")
    return _layout(fig, title)


def claims_per_answer_figure(df: pd.DataFrame) -> go.Figure:
    fig = go.Figure(go.Histogram(x=df["claims"] if len(df) else [], marker_color=ACCENT))
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


def precision_recall_figure(pairs: list[tuple[float, bool]], threshold: Optional[float] = None) -> go.Figure:
    """Precision and recall against gold labels at every score threshold; the current one marked."""
    from rt4chart.evaluation.metrics import precision_recall_curve

    points = precision_recall_curve(pairs)
    fig = go.Figure(go.Scatter(x=[r for _, _, r in points], y=[p for _, p, _ in points], mode="lines+markers",
                               marker=dict(size=4), line=dict(color=ACCENT), name="precision-recall",
                               text=[f"threshold {t:.3f}" for t, _, _ in points],
                               hovertemplate="recall %{x:.2f}, precision %{y:.2f}<br>%{text}<extra></extra>"))
    if threshold is not None and points:
        here = min(points, key=lambda p: abs(p[0] - threshold) if p[0] >= threshold else 9)
        fig.add_trace(go.Scatter(x=[here[2]], y=[here[1]], mode="markers", marker=dict(size=12, color=MARKER),
                                 name=f"threshold in use ({threshold:.3f})"))
    fig.update_xaxes(title="recall", range=[0, 1.02])
    fig.update_yaxes(title="precision", range=[0, 1.02])
    fig.update_layout(legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom"))
    return _layout(fig, "Precision and recall at every threshold")


def top_issues(df: pd.DataFrame, n: int = 10, context_column: Optional[str] = None) -> pd.DataFrame:
    """The answers with the most contradicted + baseless claims (answers without any are not listed)."""
    if df.empty:
        return df
    issues = df.assign(issues=df["contradicted"] + df["baseless"])
    issues = issues[issues["issues"] > 0]
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
                      hallucinated_answers=("hallucinated", count_hallucinated)))
    grouped = grouped[grouped["issues"] > 0]
    columns = ["issues", "hallucinated_answers", "answers", "context_id", "context"]  # counts first: always visible
    return grouped.sort_values(["issues", "context_id"], ascending=[False, True]).head(n)[columns]
