"""Spans of time written in any of the usual ways, as a number of days.

"the first six months", "half a year", "a half-year", "18 months", "a year and a half", "1.5 years",
"two and a half years", "a fortnight", "90-day" all name a length of time; two of them name the same figure
when their days agree (within 2%: "30 days" is "a month", "four weeks" is not). The offline judge uses it so
that a claim restating a duration in other units is not read as giving a different figure.

A unit counts only after a quantity: "second" alone is an ordinal, and "the first year" gives no figure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from rt4chart.text.lexicon import Token, stem

_YEAR = 365.2425
UNITS = {
    "second": 1 / 86400, "minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "week": 7.0, "fortnight": 14.0,
    "month": _YEAR / 12, "year": _YEAR, "decade": 10 * _YEAR, "century": 100 * _YEAR,
}
_PLURALS = {"centuries": "century"}
UNIT_STEMS = frozenset(stem(w) for w in (*UNITS, *(w + "s" for w in UNITS), *_PLURALS))
_ONE = {"a", "an", "one"}
TOLERANCE = 0.02


@dataclass(frozen=True)
class Duration:
    """Tokens `first` to `last` (indices, inclusive) name `days` days."""

    first: int
    last: int
    days: float

    def covers(self, i: int) -> bool:
        return self.first <= i <= self.last


def _unit(t: Token) -> Optional[float]:
    word = _PLURALS.get(t.lower, t.lower)
    if word in UNITS:
        return UNITS[word]
    if word.endswith("s") and word[:-1] in UNITS:
        return UNITS[word[:-1]]
    return None


def _count(tokens: Sequence[Token], i: int) -> Optional[float]:
    """The quantity token `i` stands for ('six', '1.5', 'a', 'one'), or None."""
    if i < 0:
        return None
    t = tokens[i]
    if t.number is not None:
        return t.number
    return 1.0 if t.lower in _ONE else None


def durations(tokens: Sequence[Token]) -> list[Duration]:
    """Every quantity-and-unit phrase of `tokens`, left to right."""
    found: list[Duration] = []
    for j, t in enumerate(tokens):
        unit = _unit(t)
        if unit is None:
            continue
        first, count = j - 1, _count(tokens, j - 1)
        if count is None:
            continue
        lower = tokens[first].lower
        if lower in _ONE and first >= 1 and tokens[first - 1].lower == "half":   # half a year
            first, count = first - 1, 0.5
        elif lower == "half" and first >= 1 and tokens[first - 1].lower in _ONE:
            whole = _count(tokens, first - 3) if first >= 3 and tokens[first - 2].lower == "and" else None
            if whole is not None:
                first, count = first - 3, whole + 0.5                          # two and a half years
            else:
                first = first - 1                                            # a half year
        last = j
        if (j + 3 < len(tokens) and tokens[j + 1].lower == "and" and tokens[j + 2].lower in _ONE
                and tokens[j + 3].lower == "half"):
            last, count = j + 3, count + 0.5                                  # a year and a half
        found.append(Duration(first, last, count * unit))
    return found


def same_duration(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(a, b)


def restated(tokens: Sequence[Token], theirs: Sequence[float]) -> set[int]:
    """Indices of `tokens` inside a duration that equals one of `theirs` (days): words that restate a figure
    the other text gives in other units."""
    out: set[int] = set()
    for d in durations(tokens):
        if any(same_duration(d.days, v) for v in theirs):
            out.update(range(d.first, d.last + 1))
    return out
