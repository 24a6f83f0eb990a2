"""A lexical index over context sentences: BM25 scoring of stems, vocabulary look-ups."""
from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Iterable, Iterator, Sequence

from rt4chart.core.types import Sentence
from rt4chart.text.lexicon import (
    Token,
    capitalized_runs,
    in_title_case,
    number_key,
    other_ordinal,
    run_initials,
    starts_sentence,
    tokenize,
)
from rt4chart.text.measures import Measure, may_hold, measures


class _PerSentence:
    """A per-sentence value made when first asked for. Only evidence sentences are looked at closely,
    and keeping every sentence's tokens and word sets would cost gigabytes for a context of 20 MB."""

    def __init__(self, count: int, make: Callable[[int], object]):
        self._count, self._make = count, make
        self._made: dict[int, object] = {}

    def __getitem__(self, i: int):
        if i not in self._made:
            self._made[i] = self._make(i)
        return self._made[i]

    def __len__(self) -> int:
        return self._count


def _written_as_names(tokens: list[Token], text: str) -> list[str]:
    """Stems of the words a sentence writes as names: capitalised, not opening it, in a sentence not in title case."""
    capitals = [t for t in tokens if t.capitalized]
    if not capitals or in_title_case(tokens):
        return []
    return [t.stem for t in capitals if not starts_sentence(text, t.start)]


def _terms(tokens: list[Token]) -> Iterator[str]:
    """A sentence's BM25 terms: the stems of its content words, and of each part of a hyphenated one ('action' and
    'adventur' of 'action-adventure'), which a claim may write on its own."""
    for t in tokens:
        if t.is_content:
            yield t.stem
            if "-" in t.stem and t.number is None:
                yield from (part for part in t.stem.split("-") if len(part) > 2 and not part.isdigit())


class SentenceIndex:
    """BM25 statistics and numbers of every context sentence, the context's vocabulary, and (made on
    demand) each sentence's tokens, stems, surface words and values."""

    def __init__(self, sentences: Sequence[Sentence], k1: float = 1.2, b: float = 0.75):
        self.sentences = list(sentences)
        n = len(self.sentences)
        self.numbers: list[frozenset[str]] = []
        self.term_counts: list[Counter[str]] = []
        initials: set[str] = set()
        lowers: set[str] = set()
        names: set[str] = set()
        for sentence in self.sentences:
            toks = tokenize(sentence.text)
            names.update(_written_as_names(toks, sentence.text))
            self.numbers.append(frozenset(number_key(t.number) for t in toks if t.number is not None))
            self.term_counts.append(Counter(_terms(toks)))
            lowers.update(t.lower for t in toks)
            initials.update(i for run in capitalized_runs(toks) for i in run_initials(run))
        self.tokens: _PerSentence = _PerSentence(n, lambda i: tokenize(self.sentences[i].text))
        self.stems: _PerSentence = _PerSentence(n, lambda i: frozenset(self.term_counts[i]))
        self.lowers: _PerSentence = _PerSentence(n, lambda i: frozenset(t.lower for t in self.tokens[i]))
        # the stems of its function words ('remained', 'provided', 'other'): a claim's 'remains', 'provides' or
        # 'Others' is a word the sentence writes, though no term of its own
        self.function_stems: _PerSentence = _PerSentence(n, lambda i: frozenset(
            t.stem for t in self.tokens[i] if not t.is_content and t.number is None and t.lower.isalpha()))
        self.measures: _PerSentence = _PerSentence(n, lambda i: tuple(measures(self.tokens[i])))
        self.lengths = [sum(c.values()) for c in self.term_counts]
        self.avg_length = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter[str] = Counter()
        for counts in self.term_counts:
            df.update(counts.keys())
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in df.items()}
        self.default_idf = math.log(1 + (n + 0.5) / 0.5) if n else 1.0
        self.vocabulary: frozenset[str] = frozenset(df)
        self.all_lowers: frozenset[str] = frozenset(lowers)
        self.all_numbers: frozenset[str] = frozenset().union(*self.numbers) if self.numbers else frozenset()
        self.run_initials: frozenset[str] = frozenset(initials)
        # stems the context writes as names in a plain sentence (not in 'The House Wants Cameron Gone')
        self.plain_names: frozenset[str] = frozenset(names)
        self._k1, self._b = k1, b

    def __len__(self) -> int:
        return len(self.sentences)

    def states_figure(self, t: Token) -> bool:
        """The context states the figure of number token `t` somewhere: as a number, or as an ordinal in its other
        spelling ('8th' where it says 'eighth')."""
        return (t.number is not None and number_key(t.number) in self.all_numbers) or other_ordinal(t) in self.all_lowers

    @property
    def all_measures(self) -> tuple[Measure, ...]:
        """Every duration and share the context gives (`rt4chart.text.measures`), from the sentences that hold a
        number or a word of one."""
        if not hasattr(self, "_all_measures"):
            self._all_measures = tuple(m for i, counts in enumerate(self.term_counts)
                                       if self.numbers[i] or may_hold(counts)
                                       for m in self.measures[i])
        return self._all_measures

    def score(self, query_stems: Iterable[str], sentence_id: int) -> float:
        """BM25 score of one sentence for a bag of query stems. Terms are summed in sorted order: a float
        sum over a set would depend on the hash seed, and so would every tie-break and threshold after it."""
        counts = self.term_counts[sentence_id]
        if not counts:
            return 0.0
        norm = self._k1 * (1 - self._b + self._b * self.lengths[sentence_id] / (self.avg_length or 1.0))
        total = 0.0
        for term in sorted(set(query_stems)):
            tf = counts.get(term, 0)
            if tf:
                total += self.idf[term] * tf * (self._k1 + 1) / (tf + norm)
        return total

    def rank(self, query_stems: Iterable[str], sentence_ids: Iterable[int], k: int) -> list[tuple[int, float]]:
        """The `k` best sentences among `sentence_ids` with a positive score, best first."""
        query = sorted(set(query_stems))
        scored = [(i, self.score(query, i)) for i in sentence_ids]
        scored = [pair for pair in scored if pair[1] > 0]
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]
