"""Contradiction search for the offline judge: the context sentence that says what a claim says except in
one slot — a figure, a date, a name, a word — and holds something else in that slot.

- Words are weighed by their rarity in the context (BM25 idf), so a subject name that many sentences
  share counts less than the claim's predicate words.
- A sentence that starts with a pronoun ("She was born in Warsaw in 1867") also carries the names of the
  sentence before it (its likely antecedent).
- "In the same slot" means next to the same words: the claim's figure and the sentence's figure share a
  neighbouring word ("born … 1869" / "born … 1867"), a name sits among the same words ("with Pierre Curie
  and Albert Einstein" / "with Pierre Curie and Henri Becquerel").
Also here: where each context sentence's passage is ("passage 2: …" headers), which passages a claim
cites, and which claims are statements about the context ("… is not mentioned in the passages").
"""
from __future__ import annotations

import re
from typing import Iterable, Optional

from ..lexicon import Token

PRONOUNS = frozenset("he she it they his her its their him them this these".split())
_HEADER = re.compile(r"(?im)^[ \t]*\[?(?:passage|document|source|doc)[ \t]*(\d{1,3})\]?[ \t]*[:.)-]")
_CITE = re.compile(r"\b(?:passages?|documents?|sources?)[ \t]+(\d{1,3})((?:[ \t]*(?:,|and|&)[ \t]*\d{1,3})*)", re.I)
META_WORDS = frozenset("""passage passages context document documents source sources information text article articles
data mention mentions mentioned provide provides provided state states stated specify specifies specified include
includes included contain contains contained explicitly specifically directly discuss discusses discussed address
addresses addressed given available say says said detail details note notes noted although however regarding
about whether any either""".split())
_ABOUT = re.compile(
    r"\b(?:passages?|context|documents?|sources?|texts?|articles?|search results?)(?:[ \t]+\d{1,3})?[ \t]+"
    r"(?:do|does|did)(?:[ \t]+not|n't)[ \t]+(?:\w+ly[ \t]+)?(?:provide|mention|contain|specify|include|say|state|give|"
    r"offer|discuss|address|describe|explain)"
    r"|\b(?:not|never)[ \t]+(?:\w+ly[ \t]+)?(?:mentioned|specified|provided|stated|given|included|available|discussed|"
    r"addressed|described|explained)[ \t]+(?:in|by)[ \t]+(?:the[ \t]+|any[ \t]+of[ \t]+the[ \t]+)?(?:given[ \t]+|provided"
    r"[ \t]+)?(?:passages?|context|documents?|sources?|texts?|articles?|search results?)"
    r"|\bthere(?:'s| is)[ \t]+no[ \t]+(?:information|mention|details?)\b|\bno[ \t]+(?:information|mention)[ \t]+"
    r"(?:about|on|of|regarding)\b", re.I)


def about_context(text: str) -> bool:
    """A statement about what the context says ("… is not mentioned in the passages"): true exactly when
    the context does not say it; it is checked as such, never negated against the context."""
    return bool(_ABOUT.search(text))


def passage_numbers(context: str, starts: list[int]) -> Optional[list[Optional[int]]]:
    """The passage number of each sentence (by its start offset), when the context has passage headers."""
    headers = [(m.start(), int(m.group(1))) for m in _HEADER.finditer(context)]
    if len(headers) < 2:
        return None
    out, k = [], -1
    for start in starts:
        while k + 1 < len(headers) and headers[k + 1][0] <= start:
            k += 1
        out.append(headers[k][1] if k >= 0 else None)
    return out


def cited_passages(text: str) -> set[int]:
    cited: set[int] = set()
    for m in _CITE.finditer(text):
        cited.add(int(m.group(1)))
        cited.update(int(n) for n in re.findall(r"\d{1,3}", m.group(2) or ""))
    return cited


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


def _substitute(slot: Token, claim: list[Token], sentence: list[Token], claim_stems: set[str]) -> Optional[Token]:
    """The sentence's word in the slot of the claim's `slot` word: of the same kind (a figure for a figure,
    a name for a name, a word for a word), absent from the claim, and next to the same words."""
    here = _neighbours(claim, next(i for i, u in enumerate(claim) if u is slot))
    best, shared = None, 0
    for j, u in enumerate(sentence):
        if not u.is_content or u.stem in claim_stems:
            continue
        if slot.number is not None and u.number is None:
            continue
        if slot.number is None and (u.number is not None or (slot.capitalized and j and not u.capitalized)):
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
            other = _substitute(s, content, sentence, claim_stems)
            if other is not None and (best is None or cover > best[0]):
                best = (cover, sid, s, other)
                break
    return (best[1], best[2], best[3]) if best else None
