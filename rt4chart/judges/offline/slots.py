"""Contradiction search for the offline judge: the context sentence that says what a claim says except in
one slot — a figure, a date, a name, a word — and holds something else in that slot.

- Words are weighed by their rarity in the context (BM25 idf), so a subject name that many sentences
  share counts less than the claim's predicate words.
- A sentence that starts with a pronoun ("She was born in Warsaw in 1867") also carries the names of the
  sentence before it (its likely antecedent).
- A slot holds a figure or a name: a capitalised word that does not start its sentence ('Choose', 'The' do
  not name anything).
- "In the same slot" means next to the same words: the claim's figure and the sentence's figure share a
  neighbouring word ("born … 1869" / "born … 1867"), a name sits among the same words ("with Pierre Curie
  and Albert Einstein" / "with Pierre Curie and Henri Becquerel").
"""
from __future__ import annotations

from typing import Iterable, Optional

from rt4chart.text.lexicon import Token, is_acronym

PRONOUNS = frozenset("he she it they his her its their him them this these".split())
_SENTENCE_OPENERS = frozenset(".!?:;\"'\u201c\u2018*#-\u2013\u2014([\n")


def starts_sentence(text: str, start: int) -> bool:
    """True when the word at `start` of `text` opens a sentence, a line, a quote or a list item."""
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_OPENERS


def is_name_or_figure(token: Token, text: str) -> bool:
    """A figure, or a name: a capitalised word inside its sentence and not an acronym (an
    acronym has too many spellings and expansions to prove a different thing: 'ISIL' / 'ISIS', 'EU' / 'European
    Union', 'BC' / 'before Christ')."""
    if token.number is not None:
        return True
    return token.capitalized and not is_acronym(token) and not starts_sentence(text, token.start)


def same_name(a: Token, b: Token) -> bool:
    """Two spellings of one name ('Wurthinger' / 'Wurtrnberger'): the same first four letters."""
    return len(a.lower) >= 4 and a.lower[:4] == b.lower[:4]


def antecedent_stems(index, sentence_id: int) -> frozenset[str]:
    """Names a leading pronoun may stand for: the capitalised words of the closest earlier sentence that has any."""
    tokens = index.tokens[sentence_id]
    if not any(t.lower in PRONOUNS for t in tokens[:4]):
        return frozenset()
    for j in range(sentence_id - 1, max(-1, sentence_id - 3), -1):
        names = frozenset(t.stem for t in index.tokens[j] if t.capitalized and t.number is None and t.is_content)
        if names:
            return names
    return frozenset()


def idf_weight(index, stem: str) -> float:
    return index.idf.get(stem, index.default_idf)


def weighted_cover(index, tokens: list[Token], stems: frozenset[str]) -> float:
    """Share of the idf weight of `tokens` whose stems are in `stems`."""
    total = sum(idf_weight(index, t.stem) for t in tokens)
    return sum(idf_weight(index, t.stem) for t in tokens if t.stem in stems) / total if total else 0.0


def _neighbours(tokens: list[Token], i: int, reach: int = 3) -> set[str]:
    return {u.stem for u in tokens[max(0, i - reach):i] + tokens[i + 1:i + 1 + reach] if u.is_content}


def _substitute(slot: Token, claim: list[Token], sentence: list[Token], text: str,
                claim_stems: set[str]) -> Optional[Token]:
    """The sentence's word in the slot of the claim's `slot` word: of the same kind (a figure for a figure,
    a name for a name), absent from the claim, and next to the same words."""
    here = _neighbours(claim, next(i for i, u in enumerate(claim) if u is slot))
    best, shared = None, 0
    for j, u in enumerate(sentence):
        if not u.is_content or u.stem in claim_stems:
            continue
        if (u.number is None) != (slot.number is None):
            continue
        if u.number is None and (not is_name_or_figure(u, text) or same_name(u, slot)):
            continue
        common = len(here & _neighbours(sentence, j))
        if common > shared:
            best, shared = u, common
    return best


def slot_contradiction(index, content: list[Token], slot: list[Token], candidates: Iterable[int],
                       least_cover: float = 0.7) -> Optional[tuple[int, Token, Token]]:
    """(sentence id, the claim's word, the sentence's word) of the best candidate sentence that covers the
    claim outside its slot and holds another word in it; None if none does."""
    rest = [t for t in content if all(t is not s for s in slot)]
    if len(rest) < 2 or not slot:
        return None
    claim_stems = {t.stem for t in content}
    best = None
    for sid in candidates:
        stems = index.stems[sid] | antecedent_stems(index, sid)
        cover = weighted_cover(index, rest, stems)
        if cover < least_cover or any(s.stem in index.stems[sid] for s in slot):
            continue
        sentence = [u for u in index.tokens[sid] if u.is_content]
        for s in slot:
            other = _substitute(s, content, sentence, index.sentences[sid].text, claim_stems)
            if other is not None and (best is None or cover > best[0]):
                best = (cover, sid, s, other)
                break
    return (best[1], best[2], best[3]) if best else None
