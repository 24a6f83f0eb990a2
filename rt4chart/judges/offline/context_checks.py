"""Checks of the offline judge that need the whole context: a baseless claim whose slot a matching
sentence fills differently is contradicted; a claim that cites the wrong passage is contradicted; a
statement about the context ("… is not mentioned in the passages") is true exactly when the context
does not say it, and a fact told with the answer's word that the context lacks it is baseless when it does."""
from __future__ import annotations

from rt4chart.core.types import Claim, Span, Verdict
from rt4chart.judges.base import AuditInput, Judgement
from rt4chart.judges.offline.eras import common_era_beside_figure
from rt4chart.judges.offline.evidence import EvidencePool, claim_tokens, with_unit
from rt4chart.judges.offline.slots import antecedent_stems, is_name_or_figure, slot_contradiction, weighted_cover
from rt4chart.text.lexicon import Token, designates, in_title_case, stem
from rt4chart.text.passages import META_WORDS, admits_unsupported, cited_passages, denied_from, passage_numbers


def slot_upgrade(claim: Claim, audit: AuditInput, ids: list[int], judgement: Judgement,
                  margin: float) -> tuple[Judgement, float]:
    """A baseless claim whose unsupported figure or name stands where a matching sentence holds another one is
    contradicted, with that sentence as evidence (e.g. 'born in Warsaw in 1869' against 'She was born in Warsaw
    in 1867'). A plain word is not a slot: a word the context lacks is most often a paraphrase, and the word
    beside it in a sentence was rarely what it contradicts (21 of 84 such upgrades on ragtruth_dev touched a
    human span; docs/benchmarks.md)."""
    index = audit.index
    tokens = claim_tokens(claim, audit.answer)
    content, slot = _slot_words(tokens, judgement, audit)
    if not slot:
        return judgement, margin
    rest = [t.stem for t in content if all(t is not s for s in slot)]
    found = slot_contradiction(index, content, slot, [i for i, _ in index.rank(rest, ids, 5)], audit.answer)
    if found is None:
        return judgement, margin
    sentence_id, mine, theirs = found
    span = with_unit(mine, tokens) if mine.number is not None else _name_or_word(mine, tokens)
    return Judgement(Verdict.CONTRADICTED, contradicting=[sentence_id], unsupported=[span],
                     rationale=f"the context says '{theirs.text}' where the claim says '{mine.text}'"), max(margin, 0) + 1.5


def _slot_words(tokens: list[Token], judgement: Judgement, audit: AuditInput) -> tuple[list[Token], list[Token]]:
    """The claim's content words that a slot search weighs, and its slot: up to three names or figures among the
    words the judgement marks unsupported that the context never uses. A missing plain word neither fills a slot
    nor counts against a sentence's cover."""
    index = audit.index
    marked = [(s.start, s.end) for s in judgement.unsupported]
    content = [t for t in tokens if t.is_content]
    missing = [t for t in content if any(a <= t.start < b for a, b in marked)
               and t.stem not in index.vocabulary and t.stem not in index.all_numbers]
    titled, label_end = in_title_case(tokens), label_end_of(tokens, audit.answer)
    slot = [t for t in missing if is_name_or_figure(t, audit.answer)
            and (t.number is not None or not names_nothing(t, tokens, index, titled, label_end))][:3]
    dropped = {id(t) for t in missing} - {id(t) for t in slot}  # identity, not equality: linear in the claim
    return [t for t in content if id(t) not in dropped], slot


def label_end_of(tokens: list[Token], answer: str) -> int:
    """Where the label that opens a claim ends ('Scope of Coverage: ADA covers …'): a colon within its first six
    words; -1 when there is none."""
    for before, after in zip(tokens[:6], tokens[1:7]):
        if ":" in answer[before.end:after.start]:
            return before.end
    return -1


def names_nothing(word: Token, tokens: list[Token], index, titled: bool, label_end: int) -> bool:
    """A capital that names nothing in its place, so fills no slot (nor is an unknown name, `titled` aside): any in a
    headline ('… Recalls Products Amid …') or in the label before the claim's colon ('Scope of Coverage:'); a
    designator after a name the context holds ('County' of 'Tulsa County' beside 'Tulsa, Oklahoma'); the era of a year
    ('325 AD'); a compound of names the context has ('US-Pakistan')."""
    if titled or word.start < label_end:
        return True
    at = next(i for i, t in enumerate(tokens) if t is word)
    if designates(tokens, at) and tokens[at - 1].stem in index.vocabulary:
        return True
    if common_era_beside_figure(tokens, at):
        return True
    parts = [part for part in word.text.split("-") if part]
    return len(parts) > 1 and all(part.isupper() or stem(part.lower()) in index.vocabulary for part in parts)


_CITATION_WORDS = 3


def citation_check(claim: Claim, audit: AuditInput, judgement: Judgement,
                    margin: float) -> tuple[Judgement, float]:
    """A supported claim that names its passage ('as mentioned in passage 2') but is said by another one, or names a
    passage the context does not have. A claim of fewer than three content words (besides words about the passages)
    is said by another passage only when the cited one holds none of them."""
    cited = cited_passages(claim.text)
    if not cited or not judgement.supporting:
        return judgement, margin
    passages = passage_numbers(audit.context, [s.start for s in audit.context_sentences])
    if passages is None:
        return judgement, margin
    index = audit.index
    content = [t for t in claim_tokens(claim, audit.answer) if t.is_content and t.lower not in META_WORDS]
    in_cited = [i for i, n in enumerate(passages) if n in cited]
    best = max((weighted_cover(index, content, index.stems[i]) for i in in_cited), default=0.0)
    if best > 0 and len(content) < _CITATION_WORDS:
        return judgement, margin  # 'installing a NUC' where passage 3 has 'NUC': too few words to tell covers apart
    there = weighted_cover(index, content, index.stems[judgement.supporting[0]])
    where = passages[judgement.supporting[0]]
    if where in cited or there < 0.7 or best >= 0.6 or there - best < 0.25:
        return judgement, margin
    missing = sorted(cited - set(passages))
    said = (f"there is no passage {', '.join(map(str, missing))}" if missing and not in_cited else
            f"passage {', '.join(map(str, sorted(cited)))} does not say this")
    return Judgement(Verdict.CONTRADICTED, contradicting=judgement.supporting[:1], unsupported=list(claim.spans),
                     rationale=f"{said}; passage {where} does"), 1.0


def about_context_check(claim: Claim, audit: AuditInput, ids: list[int], prefix: int = 5) -> tuple[Judgement, float]:
    """'X is not mentioned in the passages' is true exactly when the context does not say X."""
    index = audit.index
    content = _said_missing(claim, audit)
    if len(content) < 2 or not ids:
        return Judgement(Verdict.ENTAILED, rationale="a remark about the context"), -1.5
    cited = cited_passages(claim.text)
    passages = passage_numbers(audit.context, [s.start for s in audit.context_sentences]) if cited else None
    scope = [i for i in ids if passages is None or passages[i] in cited] or ids
    ranked = [i for i, _ in index.rank([t.stem for t in content], scope, 3)]

    def said(i: int) -> float:  # share of the claim's words the sentence (or a pronoun's antecedent) says
        pool, names = EvidencePool(index, [i], [], prefix), antecedent_stems(index, i)
        return sum(pool.supports(t) or t.stem in names for t in content) / len(content)

    cover, best = max(((said(i), i) for i in ranked), default=(0.0, None))
    if best is not None and cover >= 0.75 and len(content) >= 3:
        return Judgement(Verdict.CONTRADICTED, contradicting=[best], unsupported=list(claim.spans),
                         rationale="the context does say this (a statement that it does not is false)"), 1.0
    if admits_unsupported(claim.text):  # a fact told anyway, from outside the context by the answer's own word
        return Judgement(Verdict.BASELESS, unsupported=list(claim.spans), nearest=[best] if best is not None else [],
                         rationale="the answer tells this while saying the context does not, and it does not"), 0.8 - cover
    return Judgement(Verdict.ENTAILED, supporting=[], rationale="the context indeed does not say this"), cover - 0.8


def _said_missing(claim: Claim, audit: AuditInput) -> list[Token]:
    """The content words a statement about the context says the context lacks: from the denial on where its object
    follows it ('…, but there is no information on how well they work'), else the whole claim's; words about the
    passages, negations and figures aside."""
    denied = claim.spans[0].start + denied_from(claim.text) if claim.spans else 0
    return [t for t in claim_tokens(claim, audit.answer) if t.start >= denied
            and t.is_content and t.lower not in META_WORDS and not t.is_negation and t.number is None]


def _name_or_word(token, tokens) -> Span:
    """The whole name a capitalised word belongs to ('Albert Einstein'), else the word."""
    if not token.capitalized:
        return Span(start=token.start, end=token.end)
    i = next(k for k, t in enumerate(tokens) if t is token)
    first = last = i
    while first > 0 and tokens[first - 1].capitalized and tokens[first - 1].number is None:
        first -= 1
    while last + 1 < len(tokens) and tokens[last + 1].capitalized and tokens[last + 1].number is None:
        last += 1
    return Span(start=tokens[first].start, end=tokens[last].end)
