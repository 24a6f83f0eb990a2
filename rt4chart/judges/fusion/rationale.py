"""A learned verdict's rationale: its probability against the threshold, and the signals that moved it most."""
from __future__ import annotations

from rt4chart.judges.fusion.learned import Contribution
from rt4chart.judges.fusion.signals import NAMES, Readings

SHOWN = 3          # signals named on each side
MATTERS = 0.25     # logit units from which a signal is named


def _named(c: Contribution, readings: Readings) -> str:
    name = NAMES.get(c.feature, c.feature)
    if c.feature.endswith("_entail") or c.feature.endswith("_contra"):
        what = "P entailed" if c.feature.endswith("_entail") else "P contradicted"
        value = readings.best_entail() if c.feature == "best_entail" else getattr(readings, c.feature)
        return f"{name} ({what} {value:.2f})"
    return name


def explain(p: float, threshold: float, contributions: list[Contribution], readings: Readings) -> str:
    """'P(hallucinated) 0.81, flagged from 0.40: raised by …; lowered by …'."""
    ranked = sorted((c for c in contributions if abs(c.logit) >= MATTERS), key=lambda c: -abs(c.logit))
    up = [_named(c, readings) for c in ranked if c.logit > 0][:SHOWN]
    down = [_named(c, readings) for c in ranked if c.logit < 0][:SHOWN]
    head = (f"P(hallucinated) {p:.2f}, flagged from {threshold:.2f}" if p >= threshold
            else f"P(hallucinated) {p:.2f}, below the flag at {threshold:.2f}")
    parts = [head]
    if up:
        parts.append("raised by " + ", ".join(up))
    if down:
        parts.append("lowered by " + ", ".join(down))
    return "; ".join(parts)
