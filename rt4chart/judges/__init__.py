"""Judges decompose answers and verify claims; all share the interface in `base`."""
from .base import AuditInput, Judge, Judgement, Usage

__all__ = ["AuditInput", "Judge", "Judgement", "Usage"]
