"""The coverage invariant of a decomposition: every answer sentence that asserts something is covered
by claims. A judge (an LLM above all) may return claims for only part of the answer; a sentence that no
claim covers would otherwise never be checked, and the answer could read as faithful. Such sentences
get the rule-based decomposer's clauses as claims of their own, so they are verified like the rest.
"""
from __future__ import annotations

import re
from bisect import bisect_right

from rt4chart.core.types import Claim, Sentence, Span
from rt4chart.text.claims import asserting_pieces

_WORD = re.compile(r"\w+")
MIN_COVERED = 0.5  # share of a piece's word characters that claims must cover


def _merged(spans: list[Span]) -> list[tuple[int, int]]:
    """The spans as sorted, disjoint (start, end) intervals."""
    out: list[tuple[int, int]] = []
    for s, e in sorted((sp.start, sp.end) for sp in spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def covered_share(answer: str, start: int, end: int, intervals: list[tuple[int, int]]) -> float:
    """Share of the word characters of answer[start:end] inside the sorted, disjoint `intervals` (`_merged`):
    each word finds its first interval by bisection, so the cost is words x log intervals."""
    ends = [e for _, e in intervals]
    total = inside = 0
    for m in _WORD.finditer(answer, start, end):
        s, e = m.start(), m.end()
        total += e - s
        k = bisect_right(ends, s)
        while k < len(intervals) and intervals[k][0] < e:
            inside += max(0, min(e, intervals[k][1]) - max(s, intervals[k][0]))
            k += 1
    if not total:
        return 1.0
    return min(1.0, inside / total)


def ensure_coverage(claims: list[Claim], answer: str, sentences: list[Sentence]) -> tuple[list[Claim], int]:
    """`claims` plus rule-based claims for every uncovered clause of an asserting sentence, in answer
    order with ids renumbered from 0; also returns how many claims were added."""
    spans = _merged([s for c in claims for s in c.spans])
    added: list[Claim] = []
    for sentence in sentences:
        for start, end, about in asserting_pieces(answer, sentence):  # the pieces the rule decomposer checks
            if covered_share(answer, start, end, spans) >= MIN_COVERED:
                continue
            added.append(Claim(id=-1, text=answer[start:end], spans=[Span(start=start, end=end)],
                               sentence_index=sentence.index, about_context=about, origin="coverage"))
    if not added:
        return claims, 0
    ordered = sorted(claims + added, key=lambda c: (c.spans[0].start if c.spans else 0, c.origin != "judge"))
    return [c.model_copy(update={"id": i}) for i, c in enumerate(ordered)], len(added)
