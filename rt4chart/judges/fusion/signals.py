"""What the learned fusion sees of one claim: which offline rule decided and how strongly, the model's
readings at four granularities, and the claim's shape. The same function builds the features when the
fusion is trained (benchmarks/fusion_signals.py) and when it scores a claim, so the two cannot drift."""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

from rt4chart.core.types import Claim
from rt4chart.judges.base import AuditInput, Judgement

RULES = ("figure", "antonym", "negation", "slot", "citation", "unknown_name_or_number", "missing_content",
         "scattered", "restates_question", "no_content")  # the offline rules; "found" (entailed) is the baseline
GRANULARITIES = ("sentence", "neighbours", "window", "whole")
_DIGIT = re.compile(r"\d")
_CLIP = 6.0


@dataclass(frozen=True)
class Readings:
    """The model's best P(entailed) and P(contradicted) of a claim, read against: its best-matching sentence
    alone, that sentence with its neighbours, the best window piece (local step), and the best-matching
    sentences of the whole context (global step)."""

    sentence_entail: float
    sentence_contra: float
    neighbours_entail: float
    neighbours_contra: float
    window_entail: float
    window_contra: float
    whole_entail: float
    whole_contra: float

    def best_entail(self) -> float:
        return max(self.sentence_entail, self.neighbours_entail, self.window_entail, self.whole_entail)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return max(-_CLIP, min(_CLIP, math.log(p / (1 - p))))


def features(claim: Claim, lexical: Judgement, proof: bool, readings: Readings, audit: AuditInput,
             claims_in_answer: int) -> dict[str, float]:
    """The named features of one claim (all finite floats)."""
    signals = lexical.signals
    out: dict[str, float] = {f"rule_{r}": float(lexical.rule == r) for r in RULES}
    out["offline_flagged"] = float(lexical.verdict.is_hallucination)
    out["offline_logit"] = max(-4.0, min(4.0, _logit(lexical.score if lexical.score is not None else 0.5)))
    out["proof"] = float(proof)
    out["unmatched_share"] = float(signals.get("unmatched_share", 0.0))
    out["unmatched_idf_share"] = float(signals.get("unmatched_idf_share", 0.0))
    out["unmatched_weight"] = math.log1p(float(signals.get("unmatched_weight", 0.0)))
    out["hard_missing"] = min(4.0, float(signals.get("hard_missing", 0.0)))
    for name, value in asdict(readings).items():
        out[name] = _logit(value)
    out["best_entail"] = _logit(readings.best_entail())
    out["content_words"] = math.log1p(float(signals.get("content_words", 0.0)))
    out["has_digit"] = float(bool(_DIGIT.search(claim.text)))
    out["question_given"] = float(bool(audit.question))
    out["claims_in_answer"] = math.log1p(claims_in_answer)
    out["context_sentences"] = math.log1p(len(audit.context_sentences))
    return out


SIGNALS = (tuple(f"rule_{r}" for r in RULES)
           + ("offline_flagged", "offline_logit", "proof", "unmatched_share", "unmatched_idf_share", "unmatched_weight",
              "hard_missing")
           + tuple(f"{g}_{k}" for g in GRANULARITIES for k in ("entail", "contra"))
           + ("best_entail", "content_words", "has_digit", "question_given", "claims_in_answer", "context_sentences"))
NAMES = {  # how a rationale names a feature
    **{f"rule_{r}": f"the word check's '{r.replace('_', ' ')}' rule" for r in RULES},
    "offline_flagged": "the word check's flag", "offline_logit": "the word check's score",
    "proof": "an exact figure proof", "unmatched_share": "the share of unmatched content words",
    "unmatched_idf_share": "the share of unmatched rare words", "unmatched_weight": "the weight of unmatched words",
    "hard_missing": "names or numbers the context never states",
    "sentence_entail": "the model's reading of the best sentence", "sentence_contra": "the model's contradiction reading of the best sentence",
    "neighbours_entail": "the model's reading of the best sentence with its neighbours",
    "neighbours_contra": "the model's contradiction reading of the best sentence with its neighbours",
    "window_entail": "the model's reading of the best window", "window_contra": "the model's contradiction reading of the best window",
    "whole_entail": "the model's reading of the whole context", "whole_contra": "the model's contradiction reading of the whole context",
    "best_entail": "the model's best reading", "content_words": "the claim's length", "has_digit": "a figure in the claim",
    "question_given": "the question", "claims_in_answer": "the answer's length", "context_sentences": "the context's length",
}
