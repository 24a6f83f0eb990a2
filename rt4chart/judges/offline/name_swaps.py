"""A name the context writes with one word changed: the claim's 'University of California Anschutz Medical
Campus' where the context writes only 'University of Colorado Anschutz Medical Campus'. Each word of such a claim
is somewhere in the context ('California' in another sentence), so the word check finds all of it; the name as a
whole is what the context does not have, and the one word that differs is what it contradicts."""
from __future__ import annotations

from typing import Optional

from rt4chart.core.types import Claim, Span, Verdict
from rt4chart.judges.base import AuditInput, Judgement
from rt4chart.judges.offline.evidence import claim_tokens
from rt4chart.judges.offline.slots import is_name_or_figure, same_name
from rt4chart.text.lexicon import Token, capitalized_runs

_LEADING = frozenset("the a an this that".split())
_LEAST_NAME_WORDS = 3  # capitalised words a name needs for the others to pin down the one that differs
_CANDIDATES = 5


def _names(tokens: list[Token], text: str) -> list[list[Token]]:
    """The runs of capitalised words of a claim (or a sentence) with at least three such words, without a leading
    article ('The University of …'), cut where punctuation stands between two words ('Polish Prince, Jan Zylinski'
    is two names). `text`: what the tokens' offsets point into."""
    runs = []
    for run in capitalized_runs(tokens):
        pieces, piece = [], [run[0]]
        for before, word in zip(run, run[1:]):
            if text[before.end:word.start].strip():
                pieces.append(piece)
                piece = []
            piece.append(word)
        pieces.append(piece)
        for piece in pieces:
            while piece and piece[0].lower in _LEADING:
                piece = piece[1:]
            if sum(t.capitalized for t in piece) >= _LEAST_NAME_WORDS:
                runs.append(piece)
    return runs


def _one_word_apart(mine: list[Token], theirs: list[Token], texts: tuple[str, str]) -> Optional[int]:
    """The position of the one word two names of equal length differ in, where both words are names inside their
    sentences and not two spellings of one ('Colorado' / 'California'; not 'Eddie' / 'Eddies', 'US' / 'U.S.', nor
    'Many' / 'Most' opening 'Many West Africans' / 'Most West Africans')."""
    if len(mine) != len(theirs):
        return None
    apart = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a.lower != b.lower]
    if len(apart) != 1:
        return None
    a, b = mine[apart[0]], theirs[apart[0]]
    if not (is_name_or_figure(a, texts[0]) and is_name_or_figure(b, texts[1])) or a.number is not None \
            or b.number is not None or same_name(a, b):
        return None
    return apart[0]


def _written(name: list[Token], tokens: list[Token]) -> bool:
    words = [t.lower for t in name]
    return any([t.lower for t in tokens[i:i + len(words)]] == words for i in range(len(tokens) - len(words) + 1))


def name_swap_check(claim: Claim, audit: AuditInput, judgement: Judgement,
                    margin: float) -> tuple[Judgement, float]:
    """A supported claim naming something the context names only with one word changed is contradicted by the
    sentence that names it, the differing word marked."""
    index = audit.index
    for name in _names(claim_tokens(claim, audit.answer), audit.answer):
        candidates = [i for i, _ in index.rank([t.stem for t in name], range(len(index)), _CANDIDATES)]
        if any(_written(name, index.tokens[i]) for i in candidates):
            continue
        for sid in candidates:
            text = index.sentences[sid].text
            for theirs in _names(index.tokens[sid], text):
                at = _one_word_apart(name, theirs, (audit.answer, text))
                if at is not None:
                    said = " ".join(t.text for t in theirs)
                    return Judgement(Verdict.CONTRADICTED, contradicting=[sid],
                                     unsupported=[Span(start=name[at].start, end=name[at].end)],
                                     rationale=f"the context says '{said}' where the claim says "
                                               f"'{' '.join(t.text for t in name)}'"), max(margin, 0.0) + 1.5
    return judgement, margin
