"""The coverage invariant of a decomposition: every answer sentence that asserts something is covered
by claims. A judge (an LLM above all) may return claims for only part of the answer; a sentence that no
claim covers would otherwise never be checked, and the answer could read as faithful. Such sentences
get the rule-based decomposer's clauses as claims of their own, so they are verified like the rest.
"""
from __future__ import annotations

import re

from rt4chart.core.types import Claim, Sentence, Span
from rt4chart.text.claims import is_meta, split_clauses

_WORD = re.compile(r"\w+")
MIN_COVERED = 0.5  # share of a piece's word characters that claims must cover


def covered_share(answer: str, start: int, end: int, spans: list[Span]) -> float:
    """Share of the word characters of answer[start:end] inside any of `spans`."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(answer, start, end)]
    total = sum(e - s for s, e in words)
    if not total:
        return 1.0
    inside = 0
    for s, e in words:
        for span in spans:
            inside += max(0, min(e, span.end) - max(s, span.start))
    return min(1.0, inside / total)


def ensure_coverage(claims: list[Claim], answer: str, sentences: list[Sentence]) -> tuple[list[Claim], int]:
    """`claims` plus rule-based claims for every uncovered clause of an asserting sentence, in answer
    order with ids renumbered from 0; also returns how many claims were added."""
    spans = [s for c in claims for s in c.spans]
    added: list[Claim] = []
    for sentence in sentences:
        if is_meta(sentence.text):
            continue
        for start, end in split_clauses(answer, sentence):
            if is_meta(answer[start:end]) or covered_share(answer, start, end, spans) >= MIN_COVERED:
                continue
            added.append(Claim(id=-1, text=answer[start:end], spans=[Span(start=start, end=end)],
                               sentence_index=sentence.index, origin="coverage"))
    if not added:
        return claims, 0
    ordered = sorted(claims + added, key=lambda c: (c.spans[0].start if c.spans else 0, c.origin != "judge"))
    return [c.model_copy(update={"id": i}) for i, c in enumerate(ordered)], len(added)
