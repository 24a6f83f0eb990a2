"""Build a judge by name (see `registry`); the heavy OpenAI client is imported only when asked for."""
from __future__ import annotations

from rt4chart.judges.base import Judge
from rt4chart.judges.registry import registration

__all__ = ["make_judge"]


def make_judge(name: str = "offline", **options) -> Judge:
    """`offline` (lexical, no model), `model` (a checkpoint read offline; the shipped verifier by default),
    `hybrid` (offline proofs + the model) or `openai` (any OpenAI-compatible endpoint)."""
    return registration(name or "offline").build(**options)
