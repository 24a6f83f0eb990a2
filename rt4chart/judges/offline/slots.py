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

from typing import Iterable, NamedTuple, Optional

from rt4chart.judges.offline.counts import day_of_month, is_year, labels
from rt4chart.text.lexicon import Token, in_title_case, is_acronym, name_kind, starts_sentence

PRONOUNS = frozenset("he she it they his her its their him them this these".split())


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


def _other_unit(mine: Optional[str], theirs: Optional[str]) -> bool:
    """Two figures that count different things ('94 points' / '2 games'); a figure without a unit counts anything."""
    return mine is not None and theirs is not None and mine != theirs


class _Slot(NamedTuple):
    word: Token
    near: set[str]       # the claim's content words around it
    lead: Optional[str]  # the stem of the context's name it continues ('Cory' of 'Cory Wurthinger'), if any
    unit: Optional[str]  # the plain word a figure counts ('points' of '94 points'), if any
    dated: bool = False  # a figure that is a day of a month ('August 28th'): filled only by another day


_MULTIPLIERS = frozenset("once twice thrice".split())  # how often, not how many: no figure's substitute


def _unit(tokens: list[Token], i: int, text: str) -> Optional[str]:
    """What figure i of content tokens counts: a percentage ('20%', '5 percent'), degrees ('145°F'), or the stem of
    the plain word right after it, nothing but spaces between ('94 points'); None if nothing tells.
    `text`: what the tokens' offsets point into."""
    figure = tokens[i]
    if figure.lower.endswith(("%", "percent")):
        return "percent"
    if text[figure.end:figure.end + 2].lstrip().startswith("\u00b0"):
        return "degre"
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if after is None or after.number is not None or after.capitalized or text[figure.end:after.start].strip():
        return None
    return after.stem


def _slot(word: Token, claim: list[Token], index, answer: str) -> _Slot:
    at = next(i for i, u in enumerate(claim) if u is word)
    before = claim[at - 1] if at else None
    lead = (before.stem if before is not None and before.number is None and is_name_or_figure(before, answer)
            and before.stem in index.plain_names else None)
    if lead is None and before is not None and word.number is not None and labels(claim, at, answer):
        lead = before.stem  # 'Line 29' is filled only by another line's figure, not by '43-line Form 8829'
    return _Slot(word, _neighbours(claim, at), lead, _unit(claim, at, answer) if word.number is not None else None,
                 word.number is not None and day_of_month(claim, at))


def _substitute(slot: _Slot, sentence: list[Token], text: str, claim_stems: set[str],
                names: Optional[frozenset[str]] = None) -> Optional[Token]:
    """The sentence's word in the slot of the claim's `slot` word: of the same kind (a figure for a figure,
    a name for a name, a month for a month, a country for a country, a figure counting the same unit), absent from
    the claim, and next to the same words. In a sentence in title case only the
    words in `names` (written as names outside such sentences) name anything. A word that continues a name the
    context has ('Wurthinger' of 'Cory Wurthinger') is filled only by a word that continues the same name."""
    word = slot.word
    best, shared = None, 0
    for j, u in enumerate(sentence):
        if not u.is_content or u.stem in claim_stems:
            continue
        if (u.number is None) != (word.number is None):
            continue
        if u.number is None and (not is_name_or_figure(u, text) or same_name(u, word) or name_kind(u) != name_kind(word)
                                 or (names is not None and u.stem not in names)):
            continue
        if u.number is not None and (u.lower in _MULTIPLIERS or _other_unit(slot.unit, _unit(sentence, j, text))
                                     or is_year(u) != is_year(word) or day_of_month(sentence, j) != slot.dated):
            continue  # a year for a year, a day of a month for a day, a count for a count
        if slot.lead is not None and (j == 0 or sentence[j - 1].stem != slot.lead):
            continue
        common = len(slot.near & _neighbours(sentence, j))
        if common > shared:
            best, shared = u, common
    return best


def slot_contradiction(index, content: list[Token], slot: list[Token], candidates: Iterable[int], answer: str,
                       least_cover: float = 0.7) -> Optional[tuple[int, Token, Token]]:
    """(sentence id, the claim's word, the sentence's word) of the best candidate sentence that covers the
    claim outside its slot and holds another word in it; None if none does. `answer`: the text the claim's
    tokens point into."""
    rest = [t for t in content if all(t is not s for s in slot)]
    if len(rest) < 2 or not slot:
        return None
    claim_stems = {t.stem for t in content}
    slots = [_slot(s, content, index, answer) for s in slot]
    best = None
    for sid in candidates:
        stems = index.stems[sid] | antecedent_stems(index, sid)
        cover = weighted_cover(index, rest, stems)
        if cover < least_cover or any(s.stem in index.stems[sid] for s in slot):
            continue
        sentence = [u for u in index.tokens[sid] if u.is_content]
        names = index.plain_names if in_title_case(index.tokens[sid]) else None
        for s in slots:
            other = _substitute(s, sentence, index.sentences[sid].text, claim_stems, names)
            if other is not None and (best is None or cover > best[0]):
                best = (cover, sid, s.word, other)
                break
    return (best[1], best[2], best[3]) if best else None
