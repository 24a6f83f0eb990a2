"""Typed values that flow through an audit; every one round-trips through JSON."""
from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from rt4chart.core.cost import Cost, folded, unfolded


class Verdict(str, Enum):
    """What the context says about a claim. `unverified` means the judge failed."""

    ENTAILED = "entailed"
    CONTRADICTED = "contradicted"
    BASELESS = "baseless"
    UNVERIFIED = "unverified"

    @property
    def is_hallucination(self) -> bool:
        return self in (Verdict.CONTRADICTED, Verdict.BASELESS)


class Span(BaseModel):
    """Half-open character range [start, end) into a text."""

    model_config = ConfigDict(frozen=True)
    start: int = Field(ge=0)
    end: int = Field(ge=0)

    def slice(self, text: str) -> str:
        return text[self.start:self.end]


class Sentence(BaseModel):
    """A sentence of a text with its exact offsets: `text == source[start:end]`."""

    model_config = ConfigDict(frozen=True)
    index: int
    start: int
    end: int
    text: str


class Window(BaseModel):
    """A run of consecutive context sentences [first, last] checked together."""

    model_config = ConfigDict(frozen=True)
    index: int
    first: int
    last: int

    def sentence_ids(self) -> range:
        return range(self.first, self.last + 1)


class Claim(BaseModel):
    """An atomic statement of the answer and the answer characters it comes from."""

    id: int
    text: str
    spans: list[Span]
    sentence_index: int = 0
    origin: Literal["judge", "coverage"] = "judge"  # "coverage": added for a sentence the judge left out
    about_context: bool = False  # "… is not mentioned in the passages": true exactly when the context lacks it


Relation = Literal["supports", "contradicts", "nearest"]


class Evidence(BaseModel):
    """A context sentence that supports or contradicts a claim, or is the nearest one to a baseless claim."""

    sentence_index: int
    start: int
    end: int
    text: str
    relation: Relation


class WindowVerdict(BaseModel):
    """The local verdict of one claim against one window."""

    window_index: int
    verdict: Verdict
    evidence: list[int] = Field(default_factory=list)
    rationale: str = ""


class ClaimResult(BaseModel):
    """Everything the audit found about one claim."""

    claim: Claim
    local: list[WindowVerdict] = Field(default_factory=list)
    local_verdict: Verdict
    verdict: Verdict
    evidence: list[Evidence] = Field(default_factory=list)
    rationale: str = ""
    hallucinated_spans: list[Span] = Field(default_factory=list)
    history: list[Verdict] = Field(default_factory=list)
    score: Optional[float] = None  # how likely hallucinated, in [0, 1]; None when the judge failed


class Costed(BaseModel):
    """A model that holds one `Cost` and writes it as the flat keys of `_wire` (wire key -> Cost field), in the
    key order of `_order`: what it wrote before the cost was one value, byte for byte, and what it reads."""

    _wire: ClassVar[dict[str, str]] = {}
    _order: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _fold(cls, data: Any) -> Any:
        return folded(data, cls._wire)

    @model_serializer(mode="wrap")
    def _unfold(self, handler: SerializerFunctionWrapHandler) -> dict:
        return unfolded(handler(self), self._wire, self._order)


class Coverage(Costed):
    """How much work the audit did and what it cost. `planned_calls` is the call plan: decomposition +
    windows with routed claims + global (+ reflection); `cost.calls` is written as `judge_calls`."""

    _wire: ClassVar[dict[str, str]] = {"judge_calls": "calls", "failed_calls": "failed_calls",
                                       "cached_calls": "cached_calls", "prompt_tokens": "prompt_tokens",
                                       "completion_tokens": "completion_tokens", "model_pairs": "model_pairs",
                                       "model_tokens": "model_tokens"}
    _order: ClassVar[tuple[str, ...]] = (
        "context_sentences", "windows", "window_checks", "planned_calls", "judge_calls", "failed_calls",
        "cached_calls", "prompt_tokens", "completion_tokens", "elapsed_s", "reflection_rounds", "model_pairs",
        "model_tokens")

    context_sentences: int = 0
    windows: int = 0
    window_checks: int = 0
    planned_calls: int = 0
    cost: Cost = Field(default_factory=Cost)
    elapsed_s: float = 0.0
    reflection_rounds: int = 0


class ReflectionRound(Costed):
    """One round of self-reflection and what it cost (its calls, cached calls and tokens)."""

    _wire: ClassVar[dict[str, str]] = {"calls": "calls", "cached_calls": "cached_calls",
                                       "prompt_tokens": "prompt_tokens", "completion_tokens": "completion_tokens"}
    _order: ClassVar[tuple[str, ...]] = ("round", "success", "revisions", "flips", "calls", "cached_calls",
                                         "prompt_tokens", "completion_tokens", "failure")

    round: int
    success: bool
    revisions: int = 0
    flips: int = 0
    cost: Cost = Field(default_factory=Cost)
    failure: str = ""


class ReflectionSummary(BaseModel):
    """Self-reflection of the judge over one answer: rounds until success or the cap."""

    max_rounds: int
    rounds: list[ReflectionRound] = Field(default_factory=list)
    success: bool = False
    flips: int = 0            # verdict changes summed over rounds and claims
    changed_claims: int = 0   # claims whose final verdict differs from the pre-reflection one
    failure: str = ""


class Manifest(BaseModel):
    """What is needed to reproduce a result: judge, model, settings, prompt hashes."""

    rt4chart_version: str
    judge: str
    model: Optional[str] = None
    settings: dict = Field(default_factory=dict)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    endpoint: dict = Field(default_factory=dict)  # discovered, not chosen: response format, context size


AnswerStatus = Literal["hallucinated", "faithful", "unverified", "empty"]


class AuditReport(BaseModel):
    """The result of auditing one answer against its context."""

    context: str
    answer: str
    question: Optional[str] = None
    status: AnswerStatus
    hallucinated: Optional[bool]
    score: Optional[float] = None  # the answer's: its most likely hallucinated claim's score
    spans: list[Span] = Field(default_factory=list)
    claims: list[ClaimResult] = Field(default_factory=list)
    context_sentences: list[Sentence] = Field(default_factory=list)
    windows: list[Window] = Field(default_factory=list)
    coverage: Coverage = Field(default_factory=Coverage)
    manifest: Manifest
    reflection: Optional[ReflectionSummary] = None
    notes: list[str] = Field(default_factory=list)

    def verdict_counts(self) -> dict[str, int]:
        counts = {v.value: 0 for v in Verdict}
        for result in self.claims:
            counts[result.verdict.value] += 1
        return counts

    def to_json(self, **kwargs) -> str:
        return self.model_dump_json(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> "AuditReport":
        return cls.model_validate_json(text)
