"""The offline judge: deterministic lexical verification, no network, no model.

A claim is checked against its best evidence sentences (BM25 over stems). What the claim asserts
that the evidence does not carry decides the verdict:
- a number, date or negation that differs from a closely matching sentence, or an antonym swap
  -> contradicted;
- numbers, names or enough content words that the context never mentions -> baseless;
- otherwise -> entailed, with the evidence sentences.
The unsupported words become the claim's hallucinated sub-spans.

Over 300 lines on purpose: the offline rules and their settings read as one unit (see docs/benchmarks.md
for what each is worth); the evidence pool and the context checks live beside it.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import partial
from typing import Iterable, Iterator, Optional, Sequence

from rt4chart.core.cost import Cost
from rt4chart.core.types import Claim, Span, Verdict, Window
from rt4chart.judges.base import AuditInput, Judge, Judgement
from rt4chart.judges.offline.context_checks import (
    about_context_check,
    citation_check,
    label_end_of,
    names_nothing,
    slot_upgrade,
)
from rt4chart.judges.offline.counts import (
    could_give_another,
    counted,
    other_count_for_verb,
    recount,
    whole_for_part,
)
from rt4chart.judges.offline.eras import eras, other_era
from rt4chart.judges.offline.evidence import EvidencePool, claim_tokens, with_unit
from rt4chart.judges.offline.name_swaps import name_swap_check
from rt4chart.judges.offline.slots import antecedent_stems
from rt4chart.text.claims import split_claims
from rt4chart.text.lexicon import (
    US_STATE_CODES,
    Token,
    acronym_forms,
    acronym_stretches,
    antonym_index,
    capitalized_runs,
    clauses,
    conditional_negations,
    denied_elsewhere,
    denied_short_of_reason,
    is_acronym,
    locates_place,
    negation_count,
    number_key,
    other_ordinal,
    outside_exceptions,
    regions,
    starts_sentence,
    state_named,
    tokenize,
    with_gapped,
)
from rt4chart.text.measures import Measure, measures, restated


@dataclass(frozen=True)
class OfflineSettings:
    """Thresholds of the offline judge (calibrated on the dev benchmarks, see docs/benchmarks.md)."""

    evidence_k: int = 3              # evidence sentences pooled per claim
    baseless_ratio: float = 0.40     # share of unsupported content weight that makes a claim baseless
    min_unsupported_weight: float = 3.0
    contradiction_overlap: float = 0.6  # share of claim stems a sentence must carry to contradict it
    negation_overlap: float = 0.75   # ... and to contradict it by a negation flip
    entity_weight: float = 2.0
    number_weight: float = 3.0
    word_weight: float = 1.0
    prefix_match: int = 5            # words sharing this many leading stem letters count as the same (0: off)
    check_numbers: bool = True       # ablation switches: each check can be turned off
    check_negation: bool = True
    check_antonyms: bool = True
    search_slots: bool = True        # a baseless claim's slot filled differently by a matching sentence: contradicted
    check_citations: bool = True     # a claim citing a passage that does not say it: contradicted
    check_names: bool = True         # a name the context writes with one word changed: contradicted
    compare_restated: bool = True    # 'half a year' restates 'six months', '67%' 'two thirds': no other figure
    unknown_names_are_baseless: bool = True  # a name or number found nowhere in the context decides alone
    min_negation_words: int = 3      # content words a claim needs before a negation flip can contradict it
    single_sentence_min: float = 0.5  # share of the claim's own content its best sentence must carry (0: off; a claim
    #                                  of two words: both)
    single_sentence_short_only: bool = True  # ... and only for one-sentence answers (factoid QA)
    single_sentence_words: int = 2   # ... checked only for claims with at least this many own content words
    single_sentence_max_words: int = 6  # ... and at most this many (longer claims legitimately synthesise)
    soft_counts: bool = True         # a spelled-out small count ('two fighters') the context lacks is an
    #                                   ordinary word: the context often shows two people without saying 'two'
    score_slope: float = 4.0         # claim score = sigmoid(slope x margin); the margin is 0 on the verdict's boundary
    answer_calibration: tuple = (0.2, -0.35)  # (a, b): score = sigmoid(a logit(raw) + b); fitted with 5-fold CV by
    #                                           benchmarks/calibrate_scores.py; the verdicts' boundary maps to 0.413
    span_mode: str = "phrase"        # "phrase": unsupported words; "clause": their clauses; "claim": all
    span_gap: int = 6                # stop words allowed between unsupported words of one span
    whole_claim_share: float = 0.5   # "phrase" mode: a claim this share of whose content weight is unsupported
    #                                  is marked whole


class OfflineJudge(Judge):
    """Lexical evidence retrieval plus number, entity, negation and antonym checks."""

    name = "offline"

    def __init__(self, settings: Optional[OfflineSettings] = None):
        self.config = settings or OfflineSettings()

    @property
    def _antonyms(self) -> dict[str, frozenset[str]]:
        return antonym_index()

    def settings(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.config).items()}  # JSON-plain

    def score_calibration(self) -> tuple[float, float]:
        return tuple(self.config.answer_calibration)

    def rebuild_options(self) -> dict:
        return self.settings()

    def decompose(self, audit: AuditInput, usage: Cost) -> list[Claim]:
        return split_claims(audit.answer, audit.answer_sentences)

    def verify_window(self, claims: list[Claim], window: Window, audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        ids = list(window.sentence_ids())
        return {c.id: self._judge(c, audit, ids) for c in claims}

    def verify_global(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        ids = range(len(audit.index))
        results = {}
        for claim in claims:
            hint = hints.get(claim.id)
            judgement = self._judge(claim, audit, ids)
            if hint is not None and hint.verdict is Verdict.CONTRADICTED and judgement.verdict is not Verdict.CONTRADICTED:
                judgement.rationale += " (a local contradiction was not confirmed against the whole context)"
            results[claim.id] = judgement
        return results

    # -- the check of one claim against a set of sentences ---------------------------------------

    def _judge(self, claim: Claim, audit: AuditInput, sentence_ids: Iterable[int]) -> Judgement:
        """The verdict of one claim against some sentences, with its score: sigmoid(slope x margin), where
        the margin is how far the claim's evidence features lie past the verdict's boundary (positive for
        contradicted and baseless, negative for entailed), so a score of 0.5 is exactly that boundary."""
        judgement, margin = self._verdict(claim, audit, sentence_ids)
        judgement.score = 1.0 / (1.0 + math.exp(-self.config.score_slope * margin))
        judgement.signals["margin"] = margin
        return judgement

    def _verdict(self, claim: Claim, audit: AuditInput, sentence_ids: Iterable[int]) -> tuple[Judgement, float]:
        """The word check's judgement, then the whole-context checks in order: the first that changes it
        decides (a baseless claim may find its slot filled; an entailed one may meet a changed name or a
        citation of the wrong passage)."""
        judgement, margin = self._lexical(claim, audit, sentence_ids)
        ids = list(sentence_ids)
        if len(ids) != len(audit.index) or claim.about_context:  # what follows needs the whole context
            return self._marked_whole(claim, judgement), margin
        checks = (
            ("slot", Verdict.BASELESS, self.config.search_slots,
             lambda: slot_upgrade(claim, audit, ids, judgement, margin)),
            ("name", Verdict.ENTAILED, self.config.check_names, lambda: name_swap_check(claim, audit, judgement, margin)),
            ("citation", Verdict.ENTAILED, self.config.check_citations,
             lambda: citation_check(claim, audit, judgement, margin)),
        )
        for rule, applies_to, enabled, check in checks:
            if not enabled or judgement.verdict is not applies_to:
                continue
            upgraded, upgraded_margin = check()
            if upgraded is not judgement:
                upgraded.rule, upgraded.signals = rule, dict(judgement.signals)  # the word counts still describe it
                return upgraded, upgraded_margin
        return self._marked_whole(claim, judgement), margin

    def _marked_whole(self, claim: Claim, judgement: Judgement) -> Judgement:
        """In "phrase" mode, a claim half or more of whose content weight the word check found unsupported is marked
        whole: it is the statement the context does not make, not a few words of it. Done after the whole-context
        checks, which read the unsupported words themselves (a slot is one of them)."""
        if (self.config.span_mode == "phrase" and judgement.unsupported
                and judgement.signals.get("unmatched_share", 0.0) >= self.config.whole_claim_share):
            judgement.unsupported = list(claim.spans)
        return judgement

    # Long on purpose: the lexical rules in the order they decide (contradiction, missing content, scattered
    # support, entailment), each returning its margin; split, the order that makes them exact would be hidden.
    def _lexical(self, claim: Claim, audit: AuditInput, sentence_ids: Iterable[int]) -> tuple[Judgement, float]:
        if claim.about_context:
            judgement, margin = about_context_check(claim, audit, list(sentence_ids), self.config.prefix_match)
            judgement.rule = "about_context"
            return judgement, margin
        cfg, index = self.config, audit.index
        tokens = claim_tokens(claim, audit.answer)
        content = [t for t in tokens if t.is_content]
        if not content:
            return Judgement(Verdict.ENTAILED, rationale="nothing checkable: no content words", rule="no_content"), -2.0
        ids = list(sentence_ids)
        ranked = index.rank((t.stem for t in content), ids, cfg.evidence_k)
        evidence = [i for i, _ in ranked]
        question = tokenize(audit.question) if audit.question else []
        pool = EvidencePool(index, evidence, question, cfg.prefix_match)
        mine = measures(tokens) if cfg.compare_restated else []  # the claim's durations and shares
        pool.mark_restated(tokens, mine)
        scope_numbers = set(pool.numbers).union(*(index.numbers[i] for i in ids)) if ids else set(pool.numbers)

        contradiction = self._contradiction(content, tokens, evidence, index, scope_numbers, audit.answer, mine)
        if contradiction is not None:
            sentence_id, rule, reason, spans = contradiction
            return Judgement(Verdict.CONTRADICTED, contradicting=[sentence_id], rationale=reason,
                             unsupported=spans, rule=rule, signals={"content_words": float(len(content))}), 2.0

        acronym_ok = _acronym_supported(tokens, index)
        unsupported: list[Token] = []
        hard_missing: list[Token] = []
        everywhere: Optional[EvidencePool] = None  # the whole context: gathered when a claim has an unknown name or figure
        weight_total = weight_missing = 0.0
        for t in content:
            w = self._weight(t, initial=_sentence_initial(t, claim, audit.answer))
            weight_total += w
            if pool.supports(t) or id(t) in acronym_ok:
                continue
            unsupported.append(t)
            weight_missing += w
            unknown = ((t.number is not None and not index.states_figure(t) and not self._soft(t))
                       or (t.capitalized and t.number is None and not _sentence_initial(t, claim, audit.answer)
                           and t.lower not in index.all_lowers and t.stem not in index.vocabulary
                           and not self._names_no_new_thing(t, tokens, audit)))
            if unknown:  # ... unless the context has it in another form ('Latvian' for 'Latvia'), far from the claim
                if everywhere is None:
                    everywhere = EvidencePool(index, list(range(len(index))), question, cfg.prefix_match)
                    everywhere.mark_restated(tokens, mine)  # '74°C' where the context says '165°F'
                if not everywhere.supports(t):
                    hard_missing.append(t)
        ratio = weight_missing / weight_total
        idf = [index.idf.get(t.stem, index.default_idf) for t in content]
        missing_ids = {id(t) for t in unsupported}
        signals = {"unmatched_share": ratio, "unmatched_weight": weight_missing, "hard_missing": float(len(hard_missing)),
                   "unmatched_idf_share": sum(w for t, w in zip(content, idf) if id(t) in missing_ids) / max(sum(idf), 1e-9),
                   "content_words": float(len(content))}
        if not cfg.unknown_names_are_baseless:
            hard_missing = []
        need = min(cfg.min_unsupported_weight, weight_total)
        # >= 0 exactly when both parts of the baseless rule hold: enough of the claim, and enough weight
        margin = min((ratio - cfg.baseless_ratio) / (1 - cfg.baseless_ratio), (weight_missing - need) / max(need, 1.0))
        spans = self._spans(unsupported, tokens, claim, audit.answer) if unsupported else []
        if hard_missing or margin >= 0:
            in_scope = EvidencePool(index, ids, question, cfg.prefix_match)
            in_scope.mark_restated(tokens, mine)
            return Judgement(Verdict.BASELESS, nearest=evidence[:1],
                             rationale=_not_mentioned((hard_missing or unsupported)[:5], in_scope),
                             unsupported=spans, rule="unknown_name_or_number" if hard_missing else "missing_content",
                             signals=signals), max(margin, 0.0) + (0.5 + 0.25 * min(len(hard_missing), 4)
                                                                     if hard_missing else 0.0)
        if not evidence:
            return Judgement(Verdict.ENTAILED, rationale="restates the question", rule="restates_question",
                             signals=signals), -2.0
        scattered = ([] if cfg.single_sentence_short_only and len(audit.answer_sentences) > 1
                     else self._scattered(content, tokens, evidence, index, pool.question_stems, mine))
        if scattered:
            return Judgement(Verdict.BASELESS, nearest=evidence[:1],
                             rationale="no single context sentence relates " + ", ".join(f"'{t.text}'" for t in scattered[:5]),
                             unsupported=self._spans(scattered, tokens, claim, audit.answer), rule="scattered",
                             signals=signals), 0.25
        return Judgement(Verdict.ENTAILED, supporting=_supplying(content, evidence, index, cfg.prefix_match), unsupported=spans,
                         rationale=f"{1 - ratio:.0%} of the claim's content is found in the evidence", rule="found",
                         signals=signals), min(margin, -1e-6)

    @staticmethod
    def _names_no_new_thing(word: Token, tokens: list[Token], audit: AuditInput) -> bool:
        """A capital the context lacks that is still no unknown name: one that names nothing in its place ('Tulsa
        County', 'Scope of Coverage:', '325 AD'; `names_nothing`), or one that says where the place before it lies
        ('Eugene, Oregon') where the context names no region of that kind ('Eugene, Texas' beside 'Eugene, Oregon'
        stays the unknown name it is). Asked only of such capitals: rare, off the hot path."""
        if names_nothing(word, tokens, audit.index, False, label_end_of(tokens, audit.answer)):
            return True
        kind = locates_place(tokens, next(i for i, t in enumerate(tokens) if t is word), audit.answer)
        return bool(kind) and not (regions(kind) & audit.index.all_lowers)

    def holding_sentences(self, claim: Claim, found: Judgement, audit: AuditInput) -> list[int]:
        """The context sentences that say the claim in its own words, when the word check found it (`found`): the one
        sentence that holds every content word and figure of the claim, or two sentences that each hold every word
        of one of its predicates ("The bridge opened on 14 May 1998 | and is 1,240 metres long"); else none. Words
        of one predicate spread over sentences ("Stanford University is located in Chestnut Hill", "both The New
        Pornographers and Kings of Leon are American rock bands") are none."""
        if found.verdict is not Verdict.ENTAILED or found.rule != "found" or not found.supporting:
            return []
        parts = [[t for t in part if t.is_content] for part in _predicates(claim_tokens(claim, audit.answer))]
        parts = [p for p in parts if p]
        if not parts:
            return []
        pools = {i: EvidencePool(audit.index, [i], [], self.config.prefix_match) for i in found.supporting}
        whole = [i for i, pool in pools.items() if all(pool.supports(t) for p in parts for t in p)]
        return whole[:1] or _one_sentence_each(parts, pools)

    def holding_sentence(self, claim: Claim, found: Judgement, audit: AuditInput,
                         resolved: Sequence[Optional[str]]) -> list[int]:
        """The sentence of the word check's evidence that holds every content word and figure of the claim once its
        opening pronoun is read as the subject it stands for (`resolved`: per sentence, that reading or None);
        "It is usually injected once a day." holds "Insulin glargine is usually injected once a day." Else none."""
        if found.verdict is not Verdict.ENTAILED or found.rule != "found":
            return []
        content = [t for t in claim_tokens(claim, audit.answer) if t.is_content]
        for i in found.supporting:
            text = resolved[i]
            if text and content:
                pool = EvidencePool(audit.index, [], tokenize(text), self.config.prefix_match)
                if all(pool.supports(t) for t in content):
                    return [i]
        return []

    def content_held(self, claim: Claim, audit: AuditInput, sentence_ids: Sequence[int]) -> float:
        """How much of the claim these sentences hold, without the question: the weighted share of its content
        words (figures restated in other words included) that they supply, with the word check's own weights."""
        tokens = claim_tokens(claim, audit.answer)
        content = [t for t in tokens if t.is_content]
        if not content or not sentence_ids:
            return 0.0
        pool = EvidencePool(audit.index, list(sentence_ids), [], self.config.prefix_match)
        pool.mark_restated(tokens, measures(tokens) if self.config.compare_restated else [])
        weights = [self._weight(t, initial=_sentence_initial(t, claim, audit.answer)) for t in content]
        return sum(w for t, w in zip(content, weights) if pool.supports(t)) / sum(weights)

    def _scattered(self, content: list[Token], tokens: list[Token], evidence: list[int], index,
                   question_stems: set[str], mine: list[Measure]) -> list[Token]:
        """The claim's own content (beyond the question) that even its best-covering evidence sentence
        lacks, when that is too much: the words exist in the context, but no sentence relates them."""
        cfg = self.config
        if cfg.single_sentence_min <= 0:
            return []
        own = [t for t in content if t.stem not in question_stems]
        if not cfg.single_sentence_words <= len(own) <= cfg.single_sentence_max_words:
            return []  # long claims (lists, summaries) legitimately combine sentences
        total = sum(self._weight(t) for t in own)
        best_missing: list[Token] = own
        for sentence_id in evidence:
            sentence = EvidencePool(index, [sentence_id], [], cfg.prefix_match)
            sentence.mark_restated(tokens, mine)
            missing = [t for t in own if not sentence.supports(t)]
            if sum(self._weight(t) for t in missing) < sum(self._weight(t) for t in best_missing):
                best_missing = missing
        if len(own) == 2:  # two words relate only in a sentence that holds both ('The sky is green.')
            return best_missing
        covered = total - sum(self._weight(t) for t in best_missing)
        # a longer claim half in one sentence is often two predicates, one per sentence ('opened in 1991 and is 1201 m long')
        return best_missing if covered / total < cfg.single_sentence_min else []

    def _spans(self, unsupported: list[Token], tokens: list[Token], claim: Claim, answer: str) -> list[Span]:
        """What to mark: the unsupported words as phrases, the clauses that hold them, or the claim."""
        mode = self.config.span_mode
        if mode == "claim":
            return list(claim.spans)
        if mode == "clause":
            marked = {id(t) for t in unsupported}
            return [Span(start=c[0].start, end=c[-1].end) for c in clauses(tokens, answer)
                    if any(id(t) in marked for t in c)] or list(claim.spans)
        return _phrase_spans(unsupported, tokens, claim, self.config.span_gap)

    def _weight(self, t: Token, initial: bool = False) -> float:
        """Numbers weigh most, then names; a capital that only marks a sentence start is no name."""
        cfg = self.config
        if t.number is not None and not self._soft(t):
            return cfg.number_weight
        return cfg.entity_weight if t.capitalized and not initial else cfg.word_weight

    def _soft(self, t: Token) -> bool:
        """A count spelled as a word up to ten ('two', 'three'), when such counts are soft."""
        return self.config.soft_counts and t.lower.isalpha() and t.number is not None and t.number <= 10

    # Complex on purpose: the figure, negation and antonym rules on the closest sentence, in the order of
    # their precision (measured in docs/benchmarks.md); the first that proves a conflict decides.
    def _contradiction(self, content: list[Token], tokens: list[Token], evidence: list[int], index,
                       scope_numbers: set[str], answer_text: str,
                       mine: list[Measure]) -> Optional[tuple[int, str, str, list[Span]]]:
        """A closely matching evidence sentence that disagrees on a number, negation or antonym: the sentence,
        the rule ("antonym", "figure", "negation"), the reason in words and the claim's spans."""
        claim_stems = {t.stem for t in content if t.number is None} or {t.stem for t in content}
        claim_clauses = clauses(tokens, answer_text)
        if len(claim_clauses) > 1:
            claim_clauses.append(tokens)  # 'and' may join noun phrases as well as clauses: try the whole claim too
        heard = {i: index.stems[i] | antecedent_stems(index, i) for i in evidence}  # 'She was born…' has her name
        cover = {i: len(claim_stems & heard[i]) / len(claim_stems) for i in evidence}
        counts = counted(tokens, answer_text) if self.config.check_numbers else []  # 'Four alleged attackers'
        figured = self.config.check_numbers and any(t.number is not None for t in content)  # read once, not per sentence
        dated = eras(tokens, answer_text) if self.config.check_numbers else []  # '300 years ago'
        their_counts: dict[int, list] = {}  # each evidence sentence's, read once when a sentence first needs them
        their_eras: dict[int, list] = {}
        for sentence_id in evidence:
            stems = heard[sentence_id]
            swapped = {t.stem for t in content if self._antonyms.get(t.stem, frozenset()) & stems}
            overlap = cover[sentence_id]
            matched = len(claim_stems & (stems | swapped)) / len(claim_stems)  # 'sales fell' matches 'sales rose'
            if matched < self.config.contradiction_overlap:  # only a part's words can still be said of its whole
                parted = _said_of_part(tokens, answer_text, index, sentence_id) if figured and matched >= _PART_OVERLAP \
                    else None
                if parted is not None:
                    return parted
                continue
            # a sentence that says more of the claim than this one decides its wording: 'the organs of the Nervous
            # System are physically connected' is not contradicted by '… the Endocrine System are not …'
            closer = max((cover[i] for i in evidence if i != sentence_id), default=0.0)
            antonym = self._antonym(content, tokens, claim_stems, stems, index.tokens[sentence_id],
                                    index.numbers[sentence_id])
            if antonym is not None and self.config.check_antonyms and matched >= closer:
                return sentence_id, "antonym", f"'{antonym.text}' is the opposite of what the evidence says", [
                    Span(start=antonym.start, end=antonym.end)]
            if overlap < self.config.contradiction_overlap:
                continue
            numbers = [t for t in content if t.number is not None and number_key(t.number) not in scope_numbers
                       and t.lower not in index.lowers[sentence_id] and other_ordinal(t) not in index.all_lowers]
            if numbers and mine and index.measures[sentence_id]:
                same = {id(tokens[i]) for i in restated(mine, index.measures[sentence_id])}
                numbers = [t for t in numbers if id(t) not in same]
            numbers = [t for t in numbers if not self._soft(t) or _figure_beside(t, tokens, index.tokens[sentence_id])]
            if numbers:  # a year against a sentence without one, a label against another label, is no other value
                at = {id(t): i for i, t in enumerate(tokens)}
                numbers = [t for t in numbers
                           if could_give_another(tokens, at[id(t)], answer_text, index.tokens[sentence_id])]
            if self.config.check_numbers and numbers and index.numbers[sentence_id]:
                return (sentence_id, "figure", f"the context gives a different figure than '{numbers[0].text}'",
                        [with_unit(t, tokens) for t in numbers])
            recounted = (_against_evidence(counted, recount, counts, their_counts, evidence, index, sentence_id)
                         if counts else None)
            if recounted is not None:
                return _counted_otherwise(sentence_id, *recounted)  # the words counted agree
            parted = _said_of_part(tokens, answer_text, index, sentence_id) if figured else None
            if parted is not None:
                return parted
            verbed = (other_count_for_verb(tokens, answer_text, index.tokens[sentence_id], index.sentences[sentence_id].text)
                      if figured else None)
            if verbed is not None:
                return _counted_otherwise(sentence_id, *verbed)
            redated = (_against_evidence(eras, other_era, dated, their_eras, evidence, index, sentence_id)
                       if dated else None)
            if redated is not None:
                figure, end, reason = redated
                return sentence_id, "figure", reason, [Span(start=figure.start, end=end)]
            if (self.config.check_negation and len(claim_stems) >= self.config.min_negation_words and overlap >= closer
                    and self._negation_flipped(claim_clauses, conditional_negations(tokens, answer_text), index,
                                               sentence_id)):
                negs = [t for t in tokens if t.is_negation]
                # the negation word where the claim has one; else the whole claim asserts the opposite
                spans = ([Span(start=t.start, end=t.end) for t in negs]
                         or [Span(start=tokens[0].start, end=tokens[-1].end)])
                return sentence_id, "negation", "the claim flips the negation of the evidence", spans
        return None

    def _antonym(self, content: list[Token], tokens: list[Token], claim_stems: set[str], stems: frozenset[str],
                 sentence: list[Token], sentence_figures: frozenset[str]) -> Optional[Token]:
        """A claim word whose opposite the sentence uses in the same slot, while the sentence lacks the word. The
        sentence must hold the claim's figures: 'about 30 km east of Kathmandu' is not about 'the regions west of
        Kathmandu', nor 'increase the entrance to 3 inches' about 'reduce the entrance to 1 inch' (a later step)."""
        if any(number_key(t.number) not in sentence_figures for t in content if t.number is not None):
            return None
        for t in content:
            opposite = self._antonyms.get(t.stem)
            if (opposite and t.stem not in stems and opposite & stems and not opposite & claim_stems
                    and _same_slot(t, tokens, opposite, sentence)):
                return t
        return None


    def _negation_flipped(self, claim_clauses: list[list[Token]], claim_unasserted: frozenset[int], index,
                          sentence_id: int) -> bool:
        """The best-matching pair of claim clause and evidence clause disagree on negation (odd count); a negation
        under a condition ('if …', 'until …') asserts nothing and is not counted."""
        best, best_key = None, (0.0, 0)
        for theirs in (part for clause in with_gapped(clauses(index.tokens[sentence_id], index.sentences[sentence_id].text))
                       for part in outside_exceptions(clause)):
            their_stems = {t.stem for t in theirs if t.is_content and t.number is None}
            for ours in claim_clauses:
                our_stems = {t.stem for t in ours if t.is_content and t.number is None}
                common = our_stems & their_stems
                if len(common) < self.config.min_negation_words:
                    continue
                # the claim clause must be (nearly) all in the evidence clause; of two as wholly in it, the one that
                # shares more words ('… are discrete and not physically connected' whole, not its first clause)
                key = (len(common) / len(our_stems), len(common))
                if key > best_key:
                    best, best_key = (ours, theirs, common), key
        if best is None or best_key[0] < self.config.negation_overlap:
            return False
        ours, theirs, common = best
        sentence = conditional_negations(index.tokens[sentence_id], index.sentences[sentence_id].text)
        ours, theirs = _up_to_shared(ours, common), _up_to_shared(theirs, common)
        return (negation_count(ours, claim_unasserted | denied_elsewhere(ours, theirs, common)
                               | denied_short_of_reason(ours, common)) % 2
                != negation_count(theirs, sentence | denied_elsewhere(theirs, ours, common)
                                  | denied_short_of_reason(theirs, common)) % 2)


def _said_of_part(tokens: list[Token], answer_text: str, index, sentence_id: int) -> Optional[tuple[int, str, str, list[Span]]]:
    """The figure rule's finding where the claim says of a whole what the sentence says of a part of it
    (`counts.whole_for_part`), or None."""
    parted = whole_for_part(tokens, answer_text, index.tokens[sentence_id], index.sentences[sentence_id].text,
                            partial(_other_sentences, index, sentence_id))
    if parted is None:
        return None
    ours, theirs, span = parted
    return sentence_id, "figure", f"the context says it of '{theirs}', not of '{ours}'", [span]


def _counted_otherwise(sentence_id: int, figure: Token, other: Token) -> tuple[int, str, str, list[Span]]:
    """The figure rule's finding where the sentence counts with `other` what the claim counts with `figure`."""
    return (sentence_id, "figure", f"the context counts this as '{other.text}' where the claim says '{figure.text}'",
            [Span(start=figure.start, end=figure.end)])


def _other_sentences(index, here: int) -> Iterator[tuple[list[Token], str]]:
    """Every context sentence but `here`, with its tokens: what a part's words are looked for in, when one matches."""
    return ((index.tokens[k], index.sentences[k].text) for k in range(len(index)) if k != here)


def _against_evidence(read, compare, mine: list, theirs: dict[int, list], evidence: list[int], index,
                      sentence_id: int):
    """`compare(mine, every evidence sentence's readings, this sentence's)`: the claim's figures read by `read`
    ('Four alleged attackers', '300 years ago') against the sentence's, where no evidence sentence reads as the claim.
    `theirs` keeps the evidence sentences' readings for the claim's other sentences: filled on the first call."""
    if not theirs:
        theirs.update((i, read(index.tokens[i], index.sentences[i].text)) for i in evidence)
    return compare(mine, list(theirs.values()), theirs[sentence_id])


def _up_to_shared(clause: list[Token], shared: set[str]) -> list[Token]:
    """A clause up to its last word whose stem is in `shared` (the stems it shares with the clause it is compared
    with): a negation after the words they share negates something else ("the IAAF council have made a clear choice
    on a strategic decision that enables us to take advantage of a unique opportunity that may never arise again" does
    not deny that the council made the decision)."""
    at = [i for i, t in enumerate(clause) if t.is_content and t.number is None and t.stem in shared]
    return clause[:at[-1] + 1] if at else clause


def _acronym_supported(tokens: list[Token], index) -> set[int]:
    """Claim words vouched for by an acronym: 'BLS' when the context spells out the name, a US state's postal code
    when it names the state, and the name's words when the context has only the acronym."""
    ok: set[int] = set()
    for t in tokens:
        if t.capitalized and is_acronym(t) and acronym_forms(t.lower) & index.run_initials:
            ok.add(id(t))
        elif t.text in US_STATE_CODES and state_named(t.text, index.all_lowers):
            ok.add(id(t))  # 'MA' where the context writes 'Massachusetts'
    for run in capitalized_runs(tokens):
        for stretch, acronyms in acronym_stretches(run):
            if (acronyms | {a + "s" for a in acronyms}) & index.all_lowers:  # 'NICs' for National Insurance Contributions
                ok.update(id(w) for w in stretch if w.capitalized)
    return ok


def _neighbours(tokens: list[Token], i: int, reach: int = 2) -> set[str]:
    return {u.stem for u in tokens[max(0, i - reach):i] + tokens[i + 1:i + 1 + reach] if u.is_content}


def _figure_beside(t: Token, tokens: list[Token], sentence: list[Token]) -> bool:
    """A figure of the sentence stands where the claim's count stands: 'two aces' differs from 'three aces', not
    from '2002' elsewhere in the sentence, nor from a figure the claim states beside it ('five hole-in-ones,
    including two by Villegas' beside 'a day which saw five hole-in-ones')."""
    stated = {number_key(u.number) for u in tokens if u.number is not None and u is not t}
    return _beside(t, tokens, sentence, lambda u: u.number is not None and number_key(u.number) not in stated)


def _same_slot(t: Token, tokens: list[Token], opposite: frozenset[str], sentence: list[Token]) -> bool:
    """The antonym stands where the claim's word stands: 'weight gain' vs 'weight loss', so 'hair loss' is not read
    as the opposite of 'weight gain'."""
    return _beside(t, tokens, sentence, lambda u: u.stem in opposite)


def _beside(t: Token, tokens: list[Token], sentence: list[Token], fits) -> bool:
    """A word of the sentence that `fits` shares a neighbouring word with the claim's word `t` (one slot)."""
    mine = _neighbours(tokens, next(i for i, u in enumerate(tokens) if u is t))
    return any(fits(u) and mine & _neighbours(sentence, j) for j, u in enumerate(sentence))


def _one_sentence_each(parts: list[list[Token]], pools: dict[int, EvidencePool]) -> list[int]:
    """Two sentences at most, each holding every word of one predicate (of two words or more); else none."""
    used = []
    for part in parts:
        holder = next((i for i, pool in pools.items() if all(pool.supports(t) for t in part)), None)
        if holder is None or len(part) < 2:
            return []
        used.append(holder)
    return sorted(set(used)) if len(set(used)) <= 2 else []


# a claim that joins several facts covers the sentence with its part only in part ('The blast, caused by an oil leak,
# resulted in six people being injured by broken glass, with five hospitalized'); the part check's own guards (the
# same thing counted, two words said of it, no sentence saying them of the whole) keep its precision
_PART_OVERLAP = 0.3
_AUXILIARIES = frozenset("is are was were has have had will would can could may might must does did".split())


def _predicates(tokens: list[Token]) -> list[list[Token]]:
    """A claim's tokens cut before each 'and' that opens a second predicate of the same subject ('… opened in 1998
    and is 1,240 metres long'); an 'and' that joins names or nouns ('X and Y are bands') cuts nothing."""
    parts: list[list[Token]] = [[]]
    for i, t in enumerate(tokens):
        if t.lower == "and" and i + 1 < len(tokens) and tokens[i + 1].lower in _AUXILIARIES and parts[-1]:
            parts.append([])
        parts[-1].append(t)
    return parts


def _supplying(content: list[Token], evidence: list[int], index, prefix: int) -> list[int]:
    """The evidence sentences the verdict used, in rank order: each supplies a content word of the claim that no
    sentence before it does (a sentence that only repeats 'work' after one that said 'the state in which they
    work' is not listed). The top one stays when none supplies anything."""
    used: list[int] = []
    found: set[int] = set()
    for i in evidence:
        pool = EvidencePool(index, [i], [], prefix)
        new = {k for k, t in enumerate(content) if k not in found and pool.supports(t)}
        if new:
            used.append(i)
            found |= new
    return used or evidence[:1]


def _not_mentioned(listed: list[Token], scope: EvidencePool) -> str:
    """Why a claim is baseless, in words true of the context: the words it lacks altogether, and apart the words only
    sentences other than the nearest ones hold (a quarter of ragtruth_dev's such reasons named a word the context
    has: "the context does not mention 'Firefox'")."""
    held = [scope.supports(t) for t in listed]
    absent = ", ".join(f"'{t.text}'" for t, h in zip(listed, held) if not h)
    elsewhere = ", ".join(f"'{t.text}'" for t, h in zip(listed, held) if h)
    nearest = f"the sentences nearest to the claim do not mention {elsewhere} (the context does, elsewhere)"
    if not elsewhere:
        return f"the context does not mention {absent}"
    return f"the context does not mention {absent}; {nearest}" if absent else nearest


def _sentence_initial(t: Token, claim: Claim, answer: str) -> bool:
    """True when a capital letter is explained by the position: the first word of the claim, or of a sentence, line,
    quote or list item of the answer."""
    return t.start == claim.spans[0].start or starts_sentence(answer, t.start)


def _phrase_spans(unsupported: list[Token], tokens: list[Token], claim: Claim, gap: int) -> list[Span]:
    """Unsupported words merged into phrases when only a few other words separate them."""
    if not unsupported:
        return [Span(start=s.start, end=s.end) for s in claim.spans]
    position = {id(t): i for i, t in enumerate(tokens)}
    spans: list[Span] = []
    last_index = None
    for t in unsupported:
        i = position[id(t)]
        if spans and last_index is not None and i - last_index <= gap + 1:
            spans[-1] = Span(start=spans[-1].start, end=t.end)
        else:
            spans.append(Span(start=t.start, end=t.end))
        last_index = i
    return spans
