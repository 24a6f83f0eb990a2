"""The judges by name: one registration each (a name, a line of help, a builder that imports its judge only when
it is built), so the CLI's choices, `make_judge` and every engine that rebuilds a judge read the same list.
Light on purpose: `rt4chart --help` reads the names without importing any judge."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from rt4chart.core.errors import JudgeConfigError

if TYPE_CHECKING:
    from rt4chart.judges.base import Judge


@dataclass(frozen=True)
class Registration:
    name: str
    summary: str
    build: Callable[..., "Judge"]


_REGISTRY: dict[str, Registration] = {}


def register(name: str, summary: str) -> Callable[[Callable[..., "Judge"]], Callable[..., "Judge"]]:
    """Decorator: `builder(**options) -> Judge` becomes the judge called `name`; a name is registered once."""
    def add(builder: Callable[..., "Judge"]) -> Callable[..., "Judge"]:
        if name in _REGISTRY:
            raise ValueError(f"a judge named {name!r} is already registered")
        _REGISTRY[name] = Registration(name, summary, builder)
        return builder
    return add


def judge_names() -> tuple[str, ...]:
    """The registered names, in the order they were registered."""
    return tuple(_REGISTRY)


def registration(name: str) -> Registration:
    """The registration of `name` (any case, surrounding spaces ignored), or a JudgeConfigError naming the choices."""
    key = (name or "").strip().lower()
    if key not in _REGISTRY:
        raise JudgeConfigError(f"unknown judge {name!r}; choose one of: {', '.join(_REGISTRY)}")
    return _REGISTRY[key]


# Experiments that measured worse and left the code (docs/benchmarks.md keeps their figures): a spec or stored
# run written before they left still names them, at the behaviour that stayed, and is accepted without them.
RETIRED_OPTIONS: dict[str, Any] = {"compare_quantities": False, "hybrid_model_contradicts": False}


def checked_settings(kind: str, settings_type: type, options: dict[str, Any]) -> Any:
    """`settings_type(**options)`, or a JudgeConfigError naming an unknown option (a spec from a file, a job or a
    worker is input) or a retired experiment asked for."""
    from dataclasses import fields

    options = dict(options)
    for name, kept in RETIRED_OPTIONS.items():
        if name in options and options.pop(name) != kept:
            raise JudgeConfigError(f"the {kind} judge option {name!r} was an experiment and is no longer available "
                                   f"(it measured worse: docs/benchmarks.md); drop it from the settings")
    known = {f.name for f in fields(settings_type)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise JudgeConfigError(f"unknown {kind} judge option(s): {', '.join(unknown)}; "
                               f"known: {', '.join(sorted(known))}")
    return settings_type(**options)


@register("offline", "lexical rules and exact proofs; no model, no network")
def _offline(**options: Any) -> "Judge":
    from rt4chart.judges.offline.judge import OfflineJudge, OfflineSettings

    return OfflineJudge(checked_settings("offline", OfflineSettings, options) if options else None)


def _model_settings(kind: str, options: dict[str, Any]):
    from rt4chart.judges.model.judge import ModelSettings

    if options.get("model") is None:
        options.pop("model", None)
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    return checked_settings(kind, ModelSettings, values)


@register("model", "a verifier checkpoint read offline (the shipped one by default)")
def _model(**options: Any) -> "Judge":
    from rt4chart.judges.model.judge import ModelJudge

    return ModelJudge(_model_settings("model", options))


@register("hybrid", "the offline judge's exact proofs, then the verifier")
def _hybrid(**options: Any) -> "Judge":
    from rt4chart.judges.model.judge import HybridJudge

    return HybridJudge(_model_settings("hybrid", options))


@register("openai", "any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp)")
def _openai(**options: Any) -> "Judge":
    from rt4chart.judges.llm.judge import OpenAIJudge

    return OpenAIJudge.from_options(**options)
