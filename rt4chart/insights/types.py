"""Typed values of dataset insights: action items with their supporting rows, and the run report."""
from __future__ import annotations

from typing import ClassVar, Optional

from pydantic import BaseModel, Field

from rt4chart.core.cost import Cost
from rt4chart.core.types import Costed


class AuditedRow(BaseModel):
    """What insights need of one audited answer."""

    id: str
    answer: str = ""
    question: Optional[str] = None
    claims: list[dict] = Field(default_factory=list)  # {"text", "verdict", "evidence": [text, ...]}
    status: str = ""

    @property
    def issues(self) -> int:
        return sum(c.get("verdict") in ("contradicted", "baseless") for c in self.claims)

    @property
    def unverified(self) -> bool:
        """The judge failed on this row: it has no known issue, but it is not known to be clean either."""
        return not self.issues and (self.status == "unverified"
                                    or any(c.get("verdict") == "unverified" for c in self.claims))


class ActionItem(BaseModel):
    id: str
    title: str
    description: str
    rows: list[str] = Field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.rows)


class InsightsReport(Costed):
    _wire: ClassVar[dict[str, str]] = {"calls": "calls", "cached_calls": "cached_calls",
                                       "prompt_tokens": "prompt_tokens", "completion_tokens": "completion_tokens"}
    _order: ClassVar[tuple[str, ...]] = (
        "items", "interesting_rows", "warmup_rows", "warmup_steps", "parallel_rows", "skipped_rows", "unverified_rows",
        "calls", "cached_calls", "prompt_tokens", "completion_tokens", "elapsed_s", "parallel_wall_s",
        "sequential_estimate_s", "failures")

    items: list[ActionItem] = Field(default_factory=list)
    interesting_rows: list[str] = Field(default_factory=list)
    warmup_rows: list[str] = Field(default_factory=list)
    warmup_steps: int = 0
    parallel_rows: int = 0
    skipped_rows: int = 0      # rows the judge verified and found no issue in
    unverified_rows: int = 0   # rows the judge failed on: skipped too, but never called "without issues"
    cost: Cost = Field(default_factory=Cost)
    elapsed_s: float = 0.0
    parallel_wall_s: float = 0.0
    sequential_estimate_s: float = 0.0
    failures: list[str] = Field(default_factory=list)

    @property
    def saved_s(self) -> float:
        """Time the parallel phase saved against asking the same rows one after another."""
        return max(0.0, self.sequential_estimate_s - self.parallel_wall_s)

    def to_markdown(self) -> str:
        lines = ["# What this RAG system should fix", ""]
        for n, item in enumerate(sorted(self.items, key=lambda i: (-i.count, i.id)), 1):
            lines.append(f"{n}. **{item.title}** ({item.count} rows) — {item.description}")
            if item.rows:
                lines.append(f"   - examples: {', '.join(item.rows[:10])}")
        lines += ["", f"Interesting rows (added something new in the parallel phase): "
                      f"{', '.join(self.interesting_rows) or 'none'}",
                  f"Warm-up: {self.warmup_steps} sequential steps over {len(self.warmup_rows)} rows; parallel phase: "
                  f"{self.parallel_rows} rows ({self.skipped_rows} rows without issues skipped"
                  + (f", {self.unverified_rows} unverified rows skipped: the judge failed on them"
                     if self.unverified_rows else "") + ").",
                  f"Cost: {self.cost.calls} calls ({self.cost.cached_calls} cached), {self.cost.prompt_tokens:,} prompt + "
                  f"{self.cost.completion_tokens:,} completion tokens, {self.elapsed_s:.1f} s; the parallel phase took "
                  f"{self.parallel_wall_s:.1f} s instead of about {self.sequential_estimate_s:.1f} s one by one."]
        if self.failures:
            lines += ["", "Failures:"] + [f"- {f}" for f in self.failures]
        return "\n".join(lines) + "\n"
