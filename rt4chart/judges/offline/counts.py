"""A figure that counts what the context counts with another figure: 'Four alleged attackers were killed' beside
'Three of the alleged attackers were killed'. The figure check asks only whether the context gives the claim's
figure at all, and this context does ('four militants crossed into the area'); what it never does is count the
alleged attackers as four."""
from __future__ import annotations

from typing import Optional

from rt4chart.text.lexicon import Token

_SKIPPED = frozenset(("of", "the"))
_COUNTED_WORDS = 2


def _kind(t: Token) -> tuple[bool, bool, str]:
    """Figures compare only with figures of their kind: a year, an ordinal ('50th'), a count; with the same sign."""
    text = t.text.lower()
    year = text.isdigit() and len(text) == 4 and 1000 <= (t.number or 0) <= 2100
    ordinal = text[-2:] in ("st", "nd", "rd", "th") and any(c.isdigit() for c in text)
    return year, ordinal, "".join(c for c in text if c in "%$£€")


def counted(tokens: list[Token], text: str) -> list[tuple[Token, tuple[str, ...]]]:
    """Each figure with the two content words it counts ('Three of the alleged attackers': ('alleg', 'attack')):
    the words right after it, 'of the' skipped, nothing but spaces between them. A figure beside another (a range,
    '4-6 inches') counts nothing on its own."""
    found = []
    for i, t in enumerate(tokens):
        if t.number is None or any(u.number is not None for u in tokens[max(0, i - 2):i] + tokens[i + 1:i + 3]):
            continue
        words: list[str] = []
        j, end = i + 1, t.end
        while j < len(tokens) and tokens[j].lower in _SKIPPED and not text[end:tokens[j].start].strip():
            end = tokens[j].end
            j += 1
        while (j < len(tokens) and len(words) < _COUNTED_WORDS and tokens[j].is_content
               and tokens[j].number is None and not text[end:tokens[j].start].strip()):
            words.append(tokens[j].stem)
            end = tokens[j].end
            j += 1
        if len(words) == _COUNTED_WORDS:
            found.append((t, tuple(words)))
    return found


def recount(claim: list[tuple[Token, tuple[str, ...]]], sentences: list[list[tuple[Token, tuple[str, ...]]]],
            sentence: list[tuple[Token, tuple[str, ...]]]) -> Optional[tuple[Token, Token]]:
    """(the claim's figure, the sentence's) where `sentence` counts what the claim counts with another figure of the
    same kind, and none of `sentences` (the evidence) counts it with the claim's."""
    for mine, words in claim:
        if any(t.number == mine.number and w == words for s in sentences for t, w in s):
            continue
        for theirs, other in sentence:
            if other == words and theirs.number != mine.number and _kind(theirs) == _kind(mine):
                return mine, theirs
    return None
