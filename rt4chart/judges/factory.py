"""Build a judge by name; the heavy OpenAI client is imported only when asked for."""
from __future__ import annotations

from typing import Any

from rt4chart.core.errors import JudgeConfigError
from rt4chart.judges.base import Judge
from rt4chart.judges.names import JUDGES

__all__ = ["JUDGES", "make_judge"]


def make_judge(name: str = "offline", **options) -> Judge:
    """`offline` (lexical, no model), `model` (a checkpoint read offline; the shipped verifier by default),
    `hybrid` (offline proofs + the model) or `openai` (any OpenAI-compatible endpoint)."""
    key = (name or "offline").strip().lower()
    if key in ("model", "hybrid"):
        from rt4chart.judges.model.judge import HybridJudge, ModelJudge, ModelSettings

        if options.get("model") is None:
            options.pop("model", None)
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
        settings = ModelSettings(**values)
        return ModelJudge(settings) if key == "model" else HybridJudge(settings)
    if key == "offline":
        from rt4chart.judges.offline.judge import OfflineJudge, OfflineSettings

        return OfflineJudge(OfflineSettings(**options) if options else None)
    if key == "openai":
        from rt4chart.judges.llm.judge import OpenAIJudge

        return OpenAIJudge.from_options(**options)
    raise JudgeConfigError(f"unknown judge {name!r}; choose one of: {', '.join(JUDGES)}")
