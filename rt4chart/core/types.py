"""Typed values that flow through an audit; every one round-trips through JSON."""
from __future__ import annotations

from enum import Enum
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field


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


class Coverage(BaseModel):
    """How much work the audit did and what it cost."""

    context_sentences: int = 0
    windows: int = 0
    window_checks: int = 0
    planned_calls: int = 0   # the call plan: decomposition + windows with routed claims + global (+ reflection)
    judge_calls: int = 0     # every request sent, retries and failures included
    failed_calls: int = 0    # requests that failed or whose reply was unusable
    cached_calls: int = 0    # answered from the memo cache: nothing sent
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_s: float = 0.0
    reflection_rounds: int = 0
    model_pairs: int = 0     # (text, claim) pairs a local model read, pieces of long windows included
    model_tokens: int = 0


class ReflectionRound(BaseModel):
    """One round of self-reflection and what it cost."""

    round: int
    success: bool
    revisions: int = 0
    flips: int = 0
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
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
