"""Judges decompose answers and verify claims; all share the interface in `base`."""
from rt4chart.judges.base import AuditInput, Judge, Judgement, Usage

__all__ = ["AuditInput", "Judge", "Judgement", "Usage"]
