"""Scores: how likely a claim, and an answer, is hallucinated, in [0, 1].

A judge scores each claim so that 0.5 is exactly its verdict's boundary (above: contradicted or
baseless). An answer's score keeps that boundary — it reaches 0.5 exactly when one of its claims does,
as the AND-join of verdicts says — and within each side it grows with the evidence of all claims
(a noisy-OR: two doubtful claims make a doubtful answer more doubtful than one). A calibration of the
form sigmoid(a · logit(score) + b) then maps it to an observed frequency (Platt scaling, fitted on the dev
files with cross-validation by benchmarks/calibrate_scores.py); the boundary lands on sigmoid(b), the
default threshold, so the default decisions stay the verdicts'.
"""
from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Iterable, Optional


def _noisy_or(values: Iterable[float]) -> float:
    return 1.0 - math.prod(1.0 - v for v in values)


def aggregate(claim_scores: list[float]) -> float:
    """The answer's raw score from its claims' scores (an answer without claims scores 0)."""
    if not claim_scores:
        return 0.0
    if max(claim_scores) >= 0.5:
        return 0.5 + 0.5 * _noisy_or(2 * (s - 0.5) for s in claim_scores if s >= 0.5)
    return 0.5 * _noisy_or(claim_scores)  # below the boundary, however many doubtful claims


def logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def calibrate(raw: float, slope: float = 1.0, bias: float = 0.0) -> float:
    """sigmoid(slope · logit(raw) + bias): monotone (rankings and AUROC do not change); the verdicts'
    boundary 0.5 maps to sigmoid(bias), the default threshold."""
    return 1.0 / (1.0 + math.exp(-(slope * logit(raw) + bias)))


def answer_score(claim_scores: list[Optional[float]], calibration: tuple[float, float] = (1.0, 0.0)
                 ) -> Optional[float]:
    """None when every claim failed (nothing is known); else the calibrated aggregate."""
    known = [s for s in claim_scores if s is not None]
    if claim_scores and not known:
        return None
    return calibrate(aggregate(known), *calibration)


PLACES = 6  # scores and thresholds are shown (and exported) with this many decimals


def shown(score: float, flagged: bool) -> float:
    """A score as shown and exported: rounded to PLACES decimals towards its own decision (up when it is
    flagged, down when not), so that `shown score >= shown threshold` gives exactly the decisions made on
    the exact values — in an exported table as in the app's precision-recall chart."""
    step = Decimal(1).scaleb(-PLACES)
    exact = Decimal(repr(score))
    return float(exact.quantize(step, rounding=ROUND_CEILING if flagged else ROUND_FLOOR))


def shown_threshold(threshold: float) -> float:
    """The threshold as shown: rounded up, so a flagged score (shown rounded up) still reaches it and an
    unflagged one (shown rounded down, below the exact threshold) stays below it."""
    return shown(threshold, True)


def boundary(calibration: tuple[float, float] = (1.0, 0.0)) -> float:
    """The calibrated score of the verdicts' boundary: the default threshold (today's decisions)."""
    return calibrate(0.5, *calibration)
