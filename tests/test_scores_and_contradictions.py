"""Scores to rank by, and contradictions shown with the sentence they contradict."""
import pytest

from rt4chart import audit
from rt4chart.auditing.scores import aggregate, boundary, calibrate
from rt4chart.core.config import AuditConfig
from rt4chart.evaluation.metrics import auroc, average_precision

CURIE = ("Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity. "
         "She was born in Warsaw in 1867 and moved to Paris in 1891. "
         "Marie Curie won the Nobel Prize in Physics in 1903, shared with Pierre Curie and Henri Becquerel. "
         "Marie Curie also won the Nobel Prize in Chemistry in 1911.")
BRIDGE = ("The Lindqvist Harbor Bridge opened to traffic on 14 May 1998. It is 1,240 metres long and carries "
          "four lanes. Tolls are not charged for cyclists or pedestrians.")


def only_claim(report):
    [claim] = report.claims
    return claim


@pytest.mark.parametrize("answer, sentence, flagged", [
    ("Marie Curie was born in Warsaw in 1869.", "She was born in Warsaw in 1867", "1869"),  # a wrong date, pronoun
    ("The 1903 Nobel Prize in Physics was shared with Pierre Curie and Albert Einstein.",
     "shared with Pierre Curie and Henri Becquerel", "Albert Einstein"),  # a wrong co-recipient
    ("The bridge is 1,340 metres long.", "It is 1,240 metres long", "1,340 metres"),  # a swapped number with its unit
    ("The bridge opened to traffic on 14 May 1999.", "opened to traffic on 14 May 1998", "1999"),
])
def test_a_wrong_slot_is_contradicted_with_the_sentence_it_contradicts(answer, sentence, flagged):
    context = CURIE if "Curie" in answer else BRIDGE
    claim = only_claim(audit(context, answer))
    assert claim.verdict.value == "contradicted", claim.rationale
    assert any(sentence in e.text and e.relation == "contradicts" for e in claim.evidence)
    assert [answer[s.start:s.end] for s in claim.hallucinated_spans] == [flagged]


@pytest.mark.parametrize("answer, verdict", [
    ("The year of her death is not explicitly stated in the passages.", "entailed"),
    ("The passages do not mention where Marie Curie died.", "entailed"),
    ("The passages do not mention where Marie Curie was born or which year she moved to Paris.", "contradicted"),
    # what is said to be missing is what follows 'there is no information on', not the fact told before it
    ("Marie Curie was born in Warsaw in 1867 and moved to Paris in 1891, but there is no information on the schools "
     "she attended.", "entailed"),
    ("Marie Curie moved to Paris in 1891, but there is no information on where Marie Curie was born.", "contradicted"),
])
def test_statements_about_the_context_are_true_exactly_when_the_context_does_not_say_it(answer, verdict):
    claim = only_claim(audit(CURIE, answer))
    assert claim.claim.about_context and claim.verdict.value == verdict, claim.rationale
    assert not any(answer[s.start:s.end].strip() == "not" for s in claim.hallucinated_spans)


@pytest.mark.parametrize("answer, verdict", [
    ("Marie Curie died in 1934 in Passy, France (not explicitly mentioned in the passages).", "baseless"),
    ("Marie Curie died in 1934 in Passy, France, although this is not mentioned in the passages provided.",
     "baseless"),
    ("Marie Curie was born in Warsaw in 1867, which is not stated in the passages.", "contradicted"),
    ("Marie Curie had a sister, but it is not mentioned in the passages that the sister became a doctor.",
     "entailed"),
])
def test_a_fact_told_with_the_answers_word_that_the_context_lacks_it_is_baseless_when_the_context_lacks_it(
        answer, verdict):
    """"X (not explicitly mentioned in the passages)" tells X from outside the context by the answer's own word:
    baseless (ragtruth's annotators mark it), where a bare statement about the context is true. A fact the context
    does hold makes the admission false, as before; a denial that names what is missing after it ('… that the
    sister became a doctor') is a statement about the context, true here."""
    claim = only_claim(audit(CURIE, answer))
    assert claim.claim.about_context and claim.verdict.value == verdict, claim.rationale


def test_a_claim_that_cites_another_passage_than_the_one_that_says_it_is_contradicted():
    context = ("passage 1: Tolls are not charged for cyclists.\n"
               "passage 2: Red wine can leave stains if left overnight, so rinse glasses at once.\n"
               "passage 3: Use a soft brush for crystal.")
    claim = only_claim(audit(context, "Red wine can leave stains if left overnight (passage 3)."))
    assert claim.verdict.value == "contradicted" and "passage 3 does not say this; passage 2 does" in claim.rationale
    right = only_claim(audit(context, "Red wine can leave stains if left overnight (passage 2)."))
    assert right.verdict.value == "entailed"


@pytest.mark.parametrize("cited, verdict", [("(Passage 3)", "contradicted"), ("(Passage 2)", "entailed")])
def test_a_citation_after_its_sentence_is_checked_like_one_inside_it(cited, verdict):
    """'… left overnight. (Passage 3)': the citation is its own sentence, and it was once verified as a claim of its
    own (entailed: no content words) while the sentence it cites went unchecked against it."""
    context = ("passage 1: Tolls are not charged for cyclists.\n"
               "passage 2: Red wine can leave stains if left overnight, so rinse glasses at once.\n"
               "passage 3: Use a soft brush for crystal.")
    answer = f"Red wine can leave stains if left overnight. {cited}"
    claim = only_claim(audit(context, answer))
    assert claim.claim.text == answer and claim.verdict.value == verdict, claim.rationale


def test_a_claim_that_cites_a_passage_the_context_lacks_is_contradicted_however_short():
    context = "passage 1: Dizziness is common.\npassage 2: Rinse glasses at once."
    claim = only_claim(audit(context, "Dizziness is common (passage 5)."))
    assert claim.verdict.value == "contradicted" and "there is no passage 5" in claim.rationale


def test_two_words_are_too_few_to_tell_which_passage_says_them():
    """'Passage 3 provides step-by-step instructions for installing a NUC': once the words about the passage are
    set aside, 'installing' and 'NUC' are all there is; passage 1 holding both is no proof that passage 3 does not
    say it ('get the NUC to your apiary')."""
    context = ("passage 1: This is the first hive after we installed the bees from the nuc.\n"
               "passage 2: Add the inner cover and sugar syrup.\n"
               "passage 3: Step by step: as soon as you get the NUC to your apiary, place it where the hive will be.")
    claim = only_claim(audit(context, "Passage 3 provides step-by-step instructions for installing a NUC."))
    assert claim.verdict.value != "contradicted", claim.rationale


def test_every_claim_and_answer_has_a_score_and_the_default_threshold_is_the_verdicts():
    report = audit(BRIDGE, "The bridge opened in 1998. It is 1,340 metres long.")
    scores = {c.claim.text: c.score for c in report.claims}
    assert all(0 <= s <= 1 for s in scores.values())
    assert report.score == max(report.score, *scores.values()) and report.hallucinated
    default = report.manifest.settings["threshold"]
    assert all((c.score >= default) == c.verdict.is_hallucination for c in report.claims)
    faithful = audit(BRIDGE, "The bridge opened in 1998.")
    assert faithful.score < default and not faithful.hallucinated


def test_a_threshold_changes_the_flag_and_the_spans_but_not_the_verdicts():
    answer = "The bridge opened in 1998. It is 1,340 metres long."
    strict = audit(BRIDGE, answer, config=AuditConfig(threshold=0.999))
    assert strict.hallucinated is False and strict.spans == [] and strict.status == "faithful"
    assert [c.verdict.value for c in strict.claims] == ["entailed", "contradicted"]
    loose = audit(BRIDGE, "The bridge opened in 1998.", config=AuditConfig(threshold=0.0))
    assert loose.hallucinated and loose.spans


def test_the_answer_score_keeps_the_boundary_and_grows_with_more_doubtful_claims():
    assert aggregate([]) == 0.0 and aggregate([0.49]) < 0.5 <= aggregate([0.5])
    assert aggregate([0.4, 0.4]) > aggregate([0.4]) and aggregate([0.4] * 50) < 0.5
    assert aggregate([0.6, 0.6]) > aggregate([0.6])
    assert calibrate(0.5, 0.2, -0.35) == pytest.approx(boundary((0.2, -0.35)))
    assert calibrate(0.3, 0.2, -0.35) < calibrate(0.7, 0.2, -0.35)


def test_auroc_and_average_precision_match_hand_computed_values():
    pairs = [(0.9, True), (0.8, False), (0.7, True), (0.1, False)]
    assert auroc(pairs) == pytest.approx(0.75)  # 3 of the 4 positive/negative pairs are ordered right
    assert average_precision(pairs) == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert auroc([(0.5, True), (0.5, False)]) == 0.5 and auroc([(1, True)]) is None


def test_a_claim_just_below_the_boundary_is_not_flagged_by_rounding():
    import math

    from rt4chart.auditing.pipeline import claim_score
    from rt4chart.core.types import Verdict

    raw = claim_score(Verdict.ENTAILED, 1 / (1 + math.exp(4e-6)))  # an entailed margin of -1e-6
    assert calibrate(raw, 0.2, -0.35) < boundary((0.2, -0.35))
