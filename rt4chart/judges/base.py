"""The narrow interface every judge implements, and the values it returns."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Optional

from rt4chart.core.cost import Cost
from rt4chart.core.types import Claim, Sentence, Span, Verdict, Window
from rt4chart.text.retrieval import SentenceIndex


@dataclass
class Judgement:
    """A judge's verdict on one claim, with the context sentences behind it."""

    verdict: Verdict
    supporting: list[int] = field(default_factory=list)
    contradicting: list[int] = field(default_factory=list)
    nearest: list[int] = field(default_factory=list)  # closest sentences to a claim they do not support
    rationale: str = ""
    unsupported: list[Span] = field(default_factory=list)  # answer offsets of the unsupported words
    score: Optional[float] = None  # how likely the claim is hallucinated, in [0, 1]; 0.5 is the verdict's boundary
    rule: str = ""  # which of the judge's rules decided (offline: "figure", "missing_content", "found", ...)
    signals: dict[str, float] = field(default_factory=dict)  # the measured strengths behind that rule


@dataclass
class AuditInput:
    """What a judge sees of one audit: the texts, their sentences and a lexical index of the context."""

    context: str
    answer: str
    question: Optional[str]
    context_sentences: list[Sentence]
    answer_sentences: list[Sentence]
    index: SentenceIndex
    notes: list[str] = field(default_factory=list)  # what a judge wants the reader of the report to know


class Judge(ABC):
    """Decomposes an answer into claims and verifies claims against context sentences."""

    name: str = "judge"
    model: Optional[str] = None
    supports_reflection: bool = False
    makes_calls: bool = False  # one call per step (decomposition, each window, global): the plan is countable

    @abstractmethod
    def decompose(self, audit: AuditInput, usage: Cost) -> list[Claim]:
        """Atomic claims of the answer, each mapped to answer character spans."""

    @abstractmethod
    def verify_window(self, claims: list[Claim], window: Window, audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        """Local verdicts of `claims` against the sentences of one window, keyed by claim id."""

    @abstractmethod
    def verify_global(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        """Final verdicts against the whole context; `hints` are the OR-joined local verdicts."""

    def reflect(self, claims: list[Claim], current: dict[int, Judgement], audit: AuditInput,
                usage: Cost) -> "ReflectionStep":
        """Re-examine the current verdicts (LLM judges only; see `supports_reflection`)."""
        raise NotImplementedError(f"the {self.name} judge does not reflect")

    def settings(self) -> dict:
        """Settings that change results (recorded in the manifest)."""
        return {}

    def prompt_hashes(self) -> dict[str, str]:
        return {}

    def score_calibration(self) -> tuple[float, float]:
        """(a, b) of the Platt calibration of this judge's scores ((1, 0): none); see rt4chart.auditing.scores."""
        return (1.0, 0.0)

    def endpoint_info(self) -> dict:
        """What was discovered about the endpoint (response format, context size); recorded in manifests."""
        return {}

    def rebuild_options(self) -> dict:
        """Options that rebuild this judge elsewhere with `make_judge(name, **options)` — never secrets
        (used to ship the judge to Dask workers)."""
        raise NotImplementedError(f"the {self.name} judge cannot be rebuilt on another process")

    def secret_options(self) -> dict[str, str]:
        """Options `rebuild_options` leaves out because they are secrets (the API key); empty for most judges."""
        return {}


@dataclass
class ReflectionStep:
    """One round of self-reflection: did the judge declare success, and what it revised.
    `failure` is set when the reply was unusable; the caller keeps the last valid verdicts."""

    success: bool
    revisions: dict[int, Judgement] = field(default_factory=dict)
    failure: str = ""
