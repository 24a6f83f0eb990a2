"""Figures written in any of the usual ways: spans of time as days, shares as fractions.

- Durations: "the first six months", "half a year", "a half-year", "18 months", "a year and a half",
  "1.5 years", "two and a half years", "a fortnight", "90-day". A unit counts only after a quantity:
  "second" alone is an ordinal, and "the first year" gives no figure.
- Shares: "50%", "25 percent", "25 per cent", "half of", "a quarter", "three quarters", "two-thirds",
  "a fifth", "one in four", "1 out of 5".
- Physical quantities: a number and its unit of temperature, length, area, mass, volume or speed: "350°F",
  "175 degrees Celsius", "5 miles", "8 km", "2,000 acres", "10 lb", "1.5 litres", "60 mph".
- Centuries: by their ordinal ("the 18th century", "the late 18th and early 20th centuries") or their hundreds
  ("the 1700s"), as the year they start.

Two phrases of one kind written in different units name the same figure when their values agree: durations
within 2% ("30 days" is "a month", "four weeks" is not), a percentage and a fraction within the percentage's
rounding ("67%" is "two thirds", "66%" and "30%" are not; "12.5%" is "one in eight"). Phrases in the same unit are
never restated ("100 days" / "101 days", "13%" / "13.8%"): their numbers are compared as written. A physical
quantity restates one in another unit of its kind when they agree within 3% or within half a unit of the last
digit either is written to ("350°F" is "175°C" and "180°C"; "5 miles" is "8 km"; "3 feet" is "1 m"; "350°F" is not
"150°C"). The offline judge uses it so that a claim restating a figure in other words ("bake at 350°F (175°C)"
against "bake at 350°F") is not read as giving a different one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from rt4chart.text.lexicon import Token, is_ordinal, stem

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
PHYSICAL_TOLERANCE = 0.03  # relative: 350°F is 176.7°C, written 175°C or 180°C


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
        """The same figure in other words: another unit within the tolerance, or the same unit spelled otherwise
        and the same value exactly ('5.68 meters' for '5.68 m'; '6.213 km' is not '6 kilometers')."""
        if self.kind != other.kind:
            return False
        if self.unit == other.unit:
            return abs(self.value - other.value) <= 1e-9
        if self.kind == DAYS:
            return abs(self.value - other.value) <= DAYS_TOLERANCE * max(self.value, other.value)
        if self.kind in PHYSICAL_KINDS:
            return abs(self.value - other.value) <= max(PHYSICAL_TOLERANCE * max(abs(self.value), abs(other.value)),
                                                         self.precision, other.precision)
        return abs(self.value - other.value) <= max(self.precision, other.precision) + 1e-9


def _singular(word: str, table: dict) -> Optional[str]:
    word = _PLURALS.get(word, word)
    if word in table:
        return word
    if word.endswith("s") and word[:-1] in table:
        return word[:-1]
    return None


def _count(tokens: Sequence[Token], i: int) -> Optional[float]:
    """The quantity token `i` stands for ('six', '1.5', 'a', 'one'), or None: an ordinal ('19th') counts nothing."""
    if i < 0:
        return None
    t = tokens[i]
    if t.number is not None:
        return None if is_ordinal(t) else t.number
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


# unit word -> its canonical name and the factor to its kind's base unit; temperatures are converted apart
_LENGTH = {"mm": ("mm", 0.001), "millimetre": ("mm", 0.001), "millimeter": ("mm", 0.001),
           "cm": ("cm", 0.01), "centimetre": ("cm", 0.01), "centimeter": ("cm", 0.01),
           "m": ("m", 1.0), "metre": ("m", 1.0), "meter": ("m", 1.0),
           "km": ("km", 1000.0), "kilometre": ("km", 1000.0), "kilometer": ("km", 1000.0),
           "inch": ("in", 0.0254), "inches": ("in", 0.0254), "ft": ("ft", 0.3048), "foot": ("ft", 0.3048),
           "feet": ("ft", 0.3048), "yd": ("yd", 0.9144), "yard": ("yd", 0.9144), "mi": ("mi", 1609.344),
           "mile": ("mi", 1609.344)}
_MASS = {"mg": ("mg", 0.001), "milligram": ("mg", 0.001), "g": ("g", 1.0), "gram": ("g", 1.0),
         "kg": ("kg", 1000.0), "kilogram": ("kg", 1000.0), "lb": ("lb", 453.59237), "lbs": ("lb", 453.59237),
         "pound": ("lb", 453.59237), "oz": ("oz", 28.349523), "ounce": ("oz", 28.349523), "tonne": ("t", 1e6)}
_VOLUME = {"ml": ("ml", 1.0), "millilitre": ("ml", 1.0), "milliliter": ("ml", 1.0), "l": ("l", 1000.0),
           "litre": ("l", 1000.0), "liter": ("l", 1000.0), "gallon": ("gal", 3785.41), "quart": ("qt", 946.353),
           "tsp": ("tsp", 4.92892), "teaspoon": ("tsp", 4.92892), "tbsp": ("tbsp", 14.7868),
           "tablespoon": ("tbsp", 14.7868)}
_AREA = {"acre": ("acre", 4046.8564), "hectare": ("ha", 10000.0), "ha": ("ha", 10000.0)}
_SPEED = {"mph": ("mph", 1.609344), "kph": ("km/h", 1.0)}
PHYSICAL_UNITS = {w: (kind, unit, f) for kind, table in (("length", _LENGTH), ("mass", _MASS), ("volume", _VOLUME),
                                                         ("area", _AREA), ("speed", _SPEED))
                  for w, (unit, f) in table.items()}
_TEMPERATURE = {"f": "fahrenheit", "fahrenheit": "fahrenheit", "c": "celsius", "celsius": "celsius",
                "centigrade": "celsius"}
PHYSICAL_KINDS = frozenset({"temperature", "length", "mass", "volume", "area", "speed"})
_CURRENCY = tuple("$£€¥₹")


def _unit_word(t: Token) -> str:
    word = t.lower.lstrip("°º")
    if word in ("f", "c") and not t.text.lstrip("°º").isupper():
        return ""  # a lone 'c' or 'f' after a number is a temperature only as a capital ('350 F', '175°C')
    return word if word in PHYSICAL_UNITS or word in _TEMPERATURE else (word[:-1] if word.endswith("s") else "")


def _per_hour(tokens: Sequence[Token], i: int) -> int:
    """How many tokens from `i` say 'an hour' after a length ('km/h', 'km/hr', 'miles per hour'): 0 if none."""
    if i < len(tokens) and tokens[i].lower in ("h", "hr"):
        return 1
    return 2 if i + 1 < len(tokens) and tokens[i].lower in ("per", "an", "a") and tokens[i + 1].lower == "hour" else 0


def _half_digit(written: str) -> float:
    """Half a unit of the last digit a number is written to: '175' 0.5, '4.5' 0.05."""
    decimals = len(written.replace(",", "").partition(".")[2])
    return 0.5 * 10 ** -decimals


def quantities(tokens: Sequence[Token]) -> list[Measure]:
    """Every number followed by a unit of temperature, length, area, mass, volume or speed ('350°F', '175 degrees
    C', '5 miles', '100 square metres'), in the kind's base unit (°C, metres, square metres, grams, millilitres,
    km/h), with the precision it is written to. A money figure ('$5m') has no unit."""
    found: list[Measure] = []
    for j, t in enumerate(tokens[:-1]):
        if t.number is None or t.text.startswith(_CURRENCY):
            continue
        k = j + 1
        if tokens[k].lower in ("degree", "degrees") and k + 1 < len(tokens):
            k += 1
        square = tokens[k].lower in ("square", "sq") and k + 1 < len(tokens)
        word = _unit_word(tokens[k + 1] if square else tokens[k])
        if word in _TEMPERATURE:
            scale = _TEMPERATURE[word]
            to_c = (lambda v: (v - 32) * 5 / 9) if scale == "fahrenheit" else (lambda v: v)
            step = _half_digit(t.text) * (5 / 9 if scale == "fahrenheit" else 1.0)
            found.append(Measure(j, k, "temperature", to_c(t.number), scale, step))
        elif word in PHYSICAL_UNITS:
            kind, unit, factor = PHYSICAL_UNITS[word]
            if square and kind == "length":
                kind, unit, factor, k = "area", f"sq {unit}", factor * factor, k + 1
            elif kind == "length" and (per_hour := _per_hour(tokens, k + 1)):
                kind, unit, factor, k = "speed", f"{unit}/h", factor / 1000, k + per_hour
            found.append(Measure(j, k, kind, t.number * factor, unit, _half_digit(t.text) * factor))
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


CENTURY = "century"
_CENTURY_WORDS = frozenset(("century", "centuries"))
_BETWEEN_CENTURIES = frozenset(("and", "or", "to", "through", "early", "late", "mid", "middle", "the"))


def centuries(tokens: Sequence[Token]) -> list[Measure]:
    """Every century named by its ordinal ('the 18th century', '18th and early 20th centuries') or by its hundreds
    ('the 1700s'), as the year it starts: '18th century' and '1700s' are one figure."""
    found: list[Measure] = []
    for j, t in enumerate(tokens):
        if t.number is None:
            continue
        after = tokens[j + 1] if j + 1 < len(tokens) else None
        if (after is not None and after.lower == "s" and after.start == t.end and not is_ordinal(t)
                and t.number % 100 == 0 and 100 <= t.number <= 2100):
            found.append(Measure(j, j + 1, CENTURY, t.number, "hundreds"))                  # the 1700s
        elif is_ordinal(t) and 1 <= t.number <= 21:
            k = j + 1
            while k < len(tokens) and k - j <= 4 and (tokens[k].lower in _BETWEEN_CENTURIES or is_ordinal(tokens[k])):
                k += 1
            if k < len(tokens) and tokens[k].lower in _CENTURY_WORDS:
                last = k if k == j + 1 else j                                                # 18th century; 18th and 20th centuries
                found.append(Measure(j, last, CENTURY, (t.number - 1) * 100, "ordinal"))
    return found


def measures(tokens: Sequence[Token]) -> list[Measure]:
    return durations(tokens) + shares(tokens) + quantities(tokens) + centuries(tokens)


def restated(mine: Sequence[Measure], theirs: Sequence[Measure]) -> set[int]:
    """Token indices of those of `mine` that restate one of `theirs` in another unit: the words that give a figure
    the other text gives in other words."""
    out: set[int] = set()
    for m in mine:
        if any(m.restates(other) for other in theirs):
            out.update(range(m.first, m.last + 1))
    return out
