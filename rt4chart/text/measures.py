"""Figures written in any of the usual ways: spans of time as days, shares as fractions.

- Durations: "the first six months", "half a year", "a half-year", "18 months", "a year and a half",
  "1.5 years", "two and a half years", "a fortnight", "90-day". A unit counts only after a quantity:
  "second" alone is an ordinal, and "the first year" gives no figure.
- Shares: "50%", "25 percent", "25 per cent", "half of", "a quarter", "three quarters", "two-thirds",
  "a fifth", "one in four", "1 out of 5".

Two phrases of one kind written in different units name the same figure when their values agree: durations
within 2% ("30 days" is "a month", "four weeks" is not), a percentage and a fraction within the percentage's
rounding ("67%" is "two thirds", "66%" and "30%" are not; "12.5%" is "one in eight"). Phrases in the same unit are
never restated ("100 days" / "101 days", "13%" / "13.8%"): their numbers are compared as written. The offline
judge uses it so that a claim restating a figure in other words is not read as giving a different one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from rt4chart.text.lexicon import Token, stem

DAYS, SHARE = "days", "share"
_YEAR = 365.2425
UNITS = {
    "second": 1 / 86400, "minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "week": 7.0, "fortnight": 14.0,
    "month": _YEAR / 12, "year": _YEAR, "decade": 10 * _YEAR, "century": 100 * _YEAR,
}
_PLURALS = {"centuries": "century"}
FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10}
_SMALL = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10}
MEASURE_STEMS = frozenset(stem(w) for w in (*UNITS, *(w + "s" for w in UNITS), *_PLURALS, *FRACTIONS,
                                             *(w + "s" for w in FRACTIONS)))
_ONE = {"a", "an", "one"}
DAYS_TOLERANCE = 0.02  # relative: a month is 30.4 days


@dataclass(frozen=True)
class Measure:
    """Tokens `first` to `last` (indices, inclusive) name `value` of `kind` (days, or a share in [0, 1]), written
    in `unit` ('month', 'percent', 'fraction', 'ratio'); a percentage is exact to `precision`."""

    first: int
    last: int
    kind: str
    value: float
    unit: str
    precision: float = 0.0

    def restates(self, other: "Measure") -> bool:
        if self.kind != other.kind or self.unit == other.unit:
            return False
        if self.kind == DAYS:
            return abs(self.value - other.value) <= DAYS_TOLERANCE * max(self.value, other.value)
        return abs(self.value - other.value) <= max(self.precision, other.precision) + 1e-9


def _singular(word: str, table: dict) -> Optional[str]:
    word = _PLURALS.get(word, word)
    if word in table:
        return word
    if word.endswith("s") and word[:-1] in table:
        return word[:-1]
    return None


def _count(tokens: Sequence[Token], i: int) -> Optional[float]:
    """The quantity token `i` stands for ('six', '1.5', 'a', 'one'), or None."""
    if i < 0:
        return None
    t = tokens[i]
    if t.number is not None:
        return t.number
    return 1.0 if t.lower in _ONE else None


def durations(tokens: Sequence[Token]) -> list[Measure]:
    """Every quantity-and-unit-of-time phrase of `tokens`, left to right, in days."""
    found: list[Measure] = []
    for j, t in enumerate(tokens):
        unit_word = _singular(t.lower, UNITS)
        if unit_word is None:
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
        found.append(Measure(first, last, DAYS, count * UNITS[unit_word], unit_word))
    return found


def _percent_measure(first: int, last: int, written: str, value: float) -> Measure:
    """A percentage is exact to half a unit of its last digit: '67%' is 0.665 to 0.675."""
    digits = written.split()[0].rstrip("%")
    decimals = len(digits.partition(".")[2])
    return Measure(first, last, SHARE, value / 100, "percent", 0.5 * 10 ** -decimals / 100)


# Complex on purpose: one branch per way English writes a share (50%, 25 per cent, one-third, two
# thirds, half of, one in four, 1 out of 5), read left to right in one pass.
def shares(tokens: Sequence[Token]) -> list[Measure]:
    """Every share phrase of `tokens`, left to right, as a fraction of the whole."""
    found: list[Measure] = []
    n = len(tokens)
    for j, t in enumerate(tokens):
        nxt = tokens[j + 1].lower if j + 1 < n else ""
        if t.number is not None and (t.lower.endswith("%") or t.lower.endswith("percent")):  # 50%, 25 percent
            found.append(_percent_measure(j, j, t.text, t.number))
        elif t.number is not None and nxt == "per" and j + 2 < n and tokens[j + 2].lower == "cent":
            found.append(_percent_measure(j, j + 2, t.text, t.number))                  # 25 per cent
        elif "-" in t.lower and t.number is None:                                       # one-third
            head, _, tail = t.lower.partition("-")
            part = _singular(tail, FRACTIONS)
            if head in _SMALL and part is not None and _SMALL[head] < FRACTIONS[part]:
                found.append(Measure(j, j, SHARE, _SMALL[head] / FRACTIONS[part], "fraction"))
        elif (part := _singular(t.lower, FRACTIONS)) is not None:
            count = _count(tokens, j - 1)
            if part == "half" and count is None:
                if nxt in ("of", "the"):                                               # half of, half the
                    found.append(Measure(j, j, SHARE, 0.5, "fraction"))
            elif count is not None and count < FRACTIONS[part] and (part != "half" or count == 1):
                found.append(Measure(j - 1, j, SHARE, count / FRACTIONS[part], "fraction"))  # two thirds
        elif t.number is not None or t.lower in _ONE:                                   # one in four, 1 out of 5
            count = _count(tokens, j)
            k = j + 1 if nxt == "in" else j + 2 if nxt == "out" and j + 2 < n and tokens[j + 2].lower == "of" else 0
            whole = _count(tokens, k + 1) if k and k + 1 < n and tokens[k + 1].number is not None else None
            if count is not None and whole and 0 < count < whole <= 100:
                found.append(Measure(j, k + 1, SHARE, count / whole, "ratio"))
    return found


def may_hold(stems: Iterable[str]) -> bool:
    """Whether a sentence with these stems can hold a figure that is not written with a number: a unit of time
    or a fraction word ('a year', 'half of', 'a quarter'), or a hyphenated fraction ('one-third'). A sentence
    without any of them, and without a number, has no measure."""
    for s in stems:
        if s in MEASURE_STEMS:
            return True
        head, dash, tail = s.partition("-")
        if dash and head in _SMALL and _singular(tail, FRACTIONS) is not None:
            return True
    return False


def measures(tokens: Sequence[Token]) -> list[Measure]:
    return durations(tokens) + shares(tokens)


def restated(mine: Sequence[Measure], theirs: Sequence[Measure]) -> set[int]:
    """Token indices of those of `mine` that restate one of `theirs` in another unit: the words that give a figure
    the other text gives in other words."""
    out: set[int] = set()
    for m in mine:
        if any(m.restates(other) for other in theirs):
            out.update(range(m.first, m.last + 1))
    return out
