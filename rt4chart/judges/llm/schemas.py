"""JSON schemas for structured outputs, and pydantic models that validate the replies.

The schemas follow OpenAI's strict mode: every property required, no additional properties.
Verdicts exclude `unverified` on purpose: only rt4chart decides that a call failed.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

LLM_VERDICTS = ["entailed", "contradicted", "baseless"]


def _object(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def decomposition_schema() -> dict:
    """Claims with the verbatim answer substrings they come from (for exact span location)."""
    claim = _object({"text": {"type": "string"},
                     "answer_substrings": {"type": "array", "items": {"type": "string"}}})
    return _object({"claims": {"type": "array", "items": claim}})


def verification_schema() -> dict:
    """One result per claim id: verdict, evidence sentence ids, unsupported substrings, reason."""
    result = _object({"claim_id": {"type": "integer"},
                      "verdict": {"type": "string", "enum": LLM_VERDICTS},
                      "evidence_sentence_ids": {"type": "array", "items": {"type": "integer"}},
                      "unsupported_text": {"type": "array", "items": {"type": "string"}},
                      "reason": {"type": "string"}})
    return _object({"results": {"type": "array", "items": result}})


class DecomposedClaim(BaseModel):
    text: str = Field(min_length=1)
    answer_substrings: list[str]


class Decomposition(BaseModel):
    claims: list[DecomposedClaim]


class ClaimVerification(BaseModel):
    claim_id: int
    verdict: Literal["entailed", "contradicted", "baseless"]
    evidence_sentence_ids: list[int]
    unsupported_text: list[str]
    reason: str


class Verification(BaseModel):
    results: list[ClaimVerification]


def reflection_schema() -> dict:
    """The judge's re-examination: `success` when nothing changes, else the revised claims."""
    revision = _object({"claim_id": {"type": "integer"},
                        "verdict": {"type": "string", "enum": LLM_VERDICTS},
                        "evidence_sentence_ids": {"type": "array", "items": {"type": "integer"}},
                        "reason": {"type": "string"}})
    return _object({"success": {"type": "boolean"}, "revisions": {"type": "array", "items": revision}})


class Revision(BaseModel):
    claim_id: int
    verdict: Literal["entailed", "contradicted", "baseless"]
    evidence_sentence_ids: list[int]
    reason: str


class Reflection(BaseModel):
    success: bool
    revisions: list[Revision]
