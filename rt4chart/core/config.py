"""Settings of an audit that do not depend on the judge."""
from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, Field, ValidationError, model_validator

from rt4chart.core import defaults


def settings_problem(exc: ValidationError) -> str:
    """A validation error of the settings in words a user reads: which setting, what is wrong with it."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(x) for x in error.get("loc", ())) or "settings"
        parts.append(f"{where.replace('_', '-')}: {error.get('msg', 'invalid')} (got {error.get('input')!r})"
                     if where != "settings" else str(error.get("msg", "invalid")).removeprefix("Value error, "))
    return "; ".join(parts)


class AuditConfig(BaseModel):
    """Windowing and routing of the local verification step.

    Defaults were chosen by measurement on the dev benchmarks (docs/benchmarks.md, "Windows"): with
    8-sentence windows every 4 sentences, two thirds of the claims have both of their best evidence
    sentences inside one window, at 6.4 LLM calls per answer (6-sentence windows: 58% and 7.6 calls;
    12: 77% and 5.0 calls, but each local check reads twice as much text).
    """

    window_size: int = Field(default=defaults.WINDOW_SIZE, ge=1, le=200)
    window_stride: int = Field(default=defaults.WINDOW_STRIDE, ge=1, le=200)
    windows_per_claim: int = Field(default=defaults.WINDOWS_PER_CLAIM, ge=1, le=1000,
                                   description="a claim is checked in its best-matching windows only")
    reflect: bool = False
    max_rounds: int = Field(default=defaults.MAX_ROUNDS, ge=1, le=10)
    threshold: Optional[float] = Field(default=defaults.THRESHOLD, ge=0.0, le=1.0,
                                       description="an answer is hallucinated when its score reaches this; None: "
                                                   "the judge's own boundary (exactly its verdicts)")

    @model_validator(mode="after")
    def _stride_fits(self) -> "AuditConfig":
        if self.window_stride > self.window_size:
            raise ValueError(f"window_stride ({self.window_stride}) must not exceed window_size "
                             f"({self.window_size}), or sentences between windows are never checked")
        return self
