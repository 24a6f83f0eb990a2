"""Build a judge by name; the heavy OpenAI client is imported only when asked for."""
from __future__ import annotations

from rt4chart.core.errors import JudgeConfigError
from rt4chart.judges.base import Judge

JUDGES = ("offline", "openai")


def make_judge(name: str = "offline", **options) -> Judge:
    """`offline` (default, no network) or `openai` (any OpenAI-compatible endpoint)."""
    key = (name or "offline").strip().lower()
    if key == "offline":
        from rt4chart.judges.offline.judge import OfflineJudge, OfflineSettings

        return OfflineJudge(OfflineSettings(**options) if options else None)
    if key == "openai":
        from rt4chart.judges.llm.judge import OpenAIJudge

        return OpenAIJudge.from_options(**options)
    raise JudgeConfigError(f"unknown judge {name!r}; choose one of: {', '.join(JUDGES)}")
