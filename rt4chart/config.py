"""Settings of an audit that do not depend on the judge."""
from __future__ import annotations

from pydantic import BaseModel, Field, model_validator


class AuditConfig(BaseModel):
    """Windowing and routing of the local verification step.

    Defaults were chosen by measurement on the dev benchmarks (docs/benchmarks.md): 6-sentence
    windows every 3 sentences keep most evidence pairs inside one window while bounding prompt size.
    """

    window_size: int = Field(default=6, ge=1, le=200)
    window_stride: int = Field(default=3, ge=1, le=200)
    windows_per_claim: int = Field(default=3, ge=1, le=1000,
                                   description="a claim is checked in its best-matching windows only")
    reflect: bool = False
    max_rounds: int = Field(default=3, ge=1, le=10)

    @model_validator(mode="after")
    def _stride_fits(self) -> "AuditConfig":
        if self.window_stride > self.window_size:
            raise ValueError(f"window_stride ({self.window_stride}) must not exceed window_size "
                             f"({self.window_size}), or sentences between windows are never checked")
        return self
