"""A date told from another point of time: 'around 300 years ago' beside 'over 300 years BC'. The figure check
finds the claim's '300' in the sentence and the words around it agree, yet one counts back from today and the other
from the start of the era: the two dates lie some two thousand years apart."""
from __future__ import annotations

from typing import Optional

from rt4chart.text.lexicon import Token

_AFTER = {"ago": "ago", "bc": "bc", "bce": "bc", "ad": "ad", "ce": "ad"}  # what follows the figure: where it counts from
_BEFORE = {"ad": "ad"}  # what precedes it ('AD 79')
_WORDS_TOO = frozenset(("ad", "ce"))  # also plain words ('an ad 30 seconds long'): an era only in capitals
_SPOKEN = {("befor", "christ"): "bc"}  # two words after it ('300 years before Christ')
_PERIODS = frozenset(("year", "centuri", "century", "millennium", "millennia"))


Dated = tuple[Token, str, int, str]  # the figure, where it counts from ('ago' / 'bc' / 'ad'), the end, the words


def eras(tokens: list[Token], text: str) -> list[Dated]:
    """Each figure told with its point of time: (the figure, 'ago' / 'bc' / 'ad', the end offset of the words that
    say it, those words as written: '300 years BC'). Only words right beside it count ('AD' before it), a period
    ('years') allowed between, nothing but spaces between any. `text`: what the tokens' offsets point into."""
    found = []
    for i, t in enumerate(tokens):
        if t.number is None:
            continue
        if i and _era_word(tokens[i - 1], _BEFORE) and not text[tokens[i - 1].end:t.start].strip():
            found.append((t, _BEFORE[tokens[i - 1].lower], t.end, text[tokens[i - 1].start:t.end]))
            continue
        j, end = i + 1, t.end
        if j < len(tokens) and tokens[j].stem in _PERIODS and not text[end:tokens[j].start].strip():
            end, j = tokens[j].end, j + 1
        if j < len(tokens) and not text[end:tokens[j].start].strip():
            era = _era_word(tokens[j], _AFTER)
            if era is None and j + 1 < len(tokens) and not text[tokens[j].end:tokens[j + 1].start].strip():
                era = _SPOKEN.get((tokens[j].stem, tokens[j + 1].stem))
                j += era is not None
            if era is not None:
                found.append((t, era, tokens[j].end, text[t.start:tokens[j].end]))
    return found


def other_era(claim: list[Dated], evidence: list[list[Dated]], sentence: list[Dated]
              ) -> Optional[tuple[Token, int, str]]:
    """Where `sentence` dates the claim's figure from another point of time, and no evidence sentence dates it as the
    claim does: (the claim's figure, the end of its dating words, the reason in words); else None."""
    for mine, era, end, said in claim:
        if any(t.number == mine.number and e == era for s in evidence for t, e, _, _ in s):
            continue
        for theirs, other, _, written in sentence:
            if theirs.number == mine.number and other != era:
                return mine, end, f"the context says '{written}' where the claim says '{said}'"
    return None


def common_era_beside_figure(tokens: list[Token], i: int) -> bool:
    """Token i is 'AD' or 'CE' right beside a figure ('325 AD', 'AD 79'): the era a year is counted in, which a
    context may leave unsaid."""
    return _era_word(tokens[i], _AFTER) == "ad" and any(
        0 <= j < len(tokens) and tokens[j].number is not None for j in (i - 1, i + 1))


def _era_word(t: Token, table: dict[str, str]) -> Optional[str]:
    era = table.get(t.lower)
    return None if era is None or (t.lower in _WORDS_TOO and not t.text.replace(".", "").isupper()) else era
