"""What the offline judge and its context checks read a claim against: the claim's tokens (offsets into the
answer) and the pool of stems, words and numbers that evidence sentences supply."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Optional, Sequence

from rt4chart.core.types import Claim, Span
from rt4chart.text.lexicon import LONG_FORMS, SHORT_FORMS, Token, country_forms, number_key, other_ordinal, tokenize
from rt4chart.text.measures import Measure, measures, restated
from rt4chart.text.passages import telling_spans


class EvidencePool:
    """What the evidence sentences and the question supply: stems, surface words, numbers."""

    def __init__(self, index, evidence: list[int], question: list[Token], prefix: int = 0):
        self.question_stems = {t.stem for t in question}
        self.stems = set(self.question_stems).union(*(index.stems[i] for i in evidence))
        self.prefix = prefix
        self.prefixes = {st[:prefix] for st in self.stems if len(st) >= prefix} if prefix else set()
        self.lowers = {t.lower for t in question}.union(*(index.lowers[i] for i in evidence))
        self.numbers = {number_key(t.number) for t in question if t.number is not None}.union(
            *(index.numbers[i] for i in evidence))
        self._question, self._index, self._evidence = question, index, evidence
        self.restated: set[int] = set()  # id(claim token) of words restating a figure of the evidence
        self._function_stems: Optional[set[str]] = None  # gathered when a word is not found otherwise (rare)

    def mark_restated(self, tokens: list[Token], mine: Sequence[Measure]) -> None:
        """The claim's words that give one of the evidence's durations or shares in other words ('half a year'
        for 'six months', '67%' for 'two thirds') are supported, numbers and units alike. `mine`: the claim's
        figures (`measures(tokens)`); the evidence's are only looked at when the claim has one."""
        if mine:
            theirs = measures(self._question) + [m for i in self._evidence for m in self._index.measures[i]]
            self.restated = {id(tokens[i]) for i in restated(mine, theirs)}

    def function_stems(self) -> set[str]:
        """The stems of the evidence sentences' function words ('remained', 'provided'), gathered once, when first
        asked: most claim words are found before they are needed."""
        if self._function_stems is None:
            self._function_stems = set().union(*(self._index.function_stems[i] for i in self._evidence))
        return self._function_stems

    def supports(self, t: Token) -> bool:
        if id(t) in self.restated:
            return True
        if t.number is not None:
            found = number_key(t.number) in self.numbers or t.lower in self.lowers
        else:
            found = (t.stem in self.stems or t.lower in self.lowers
                     or t.stem in self.function_stems()  # 'remains' where the evidence says 'remained'
                     or SHORT_FORMS.get(t.lower) in self.stems  # 'TVs' where the evidence says 'television', and back
                     or bool(LONG_FORMS.get(t.stem, frozenset()) & self.lowers)
                     or bool(country_forms(t) & self.lowers)  # 'US' where the evidence says 'American'
                     or (bool(self.prefix) and len(t.stem) >= self.prefix and t.stem[:self.prefix] in self.prefixes))
        return found or other_ordinal(t) in self.lowers  # '8th' where the evidence says 'eighth' (asked last: rare)


def claim_tokens(claim: Claim, answer: str) -> list[Token]:
    """Tokens of the claim's answer spans that state its fact, with offsets into the answer: words that only say
    who tells it ("Passage 3 provides instructions for", "The author argues that") are left out
    (`text.passages.telling_spans`). A fresh list; the tokens are frozen and shared: each claim is tokenized once,
    not once per window and step."""
    return list(_span_tokens(tuple((span.start, answer[span.start:span.end]) for span in claim.spans)))


@lru_cache(maxsize=512)
def _span_tokens(pieces: tuple[tuple[int, str], ...]) -> tuple[Token, ...]:
    return tuple(replace(t, start=t.start + start, end=t.end + start) for start, text in pieces
                 for t in _fact_tokens(text))


def _fact_tokens(text: str) -> list[Token]:
    telling = telling_spans(text)
    tokens = tokenize(text)
    kept = [t for t in tokens if not any(a <= t.start < b for a, b in telling)]
    return kept or tokens  # a claim that is all telling ('The article says so') keeps its words


def with_unit(number: Token, tokens: list[Token]) -> Span:
    """The span of a number and the unit word right after it ('90 metres', '3 people')."""
    i = next(k for k, t in enumerate(tokens) if t is number)
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    end = nxt.end if nxt is not None and nxt.is_content and nxt.number is None and not nxt.capitalized else number.end
    return Span(start=number.start, end=end)
