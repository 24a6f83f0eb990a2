"""Headings, list labels and remarks on the passages are not verified as facts about the world; a remark on the
sources before a fact is cut off and the fact after it is the claim, with its own span."""
from __future__ import annotations

import pytest

from rt4chart.text.claims import is_heading, split_claims
from rt4chart.text.segment import split_sentences


def claims_of(answer: str) -> list[str]:
    claims = split_claims(answer, split_sentences(answer) or [])
    for claim in claims:  # every claim is a verbatim piece of the answer, at its span
        assert all(answer[s.start:s.end] in claim.text for s in claim.spans)
    return [c.text for c in claims]


@pytest.mark.parametrize("label", ["Essential Amino Acids:", "**Pros:**", "## Side effects", "Differences:",
                                   "Here is a concise summary of the passage:", "1. Benefits:"])
def test_a_heading_or_list_label_is_no_claim(label):
    assert is_heading(label)
    assert claims_of(f"{label}\nHistidine is needed for growth.") == ["Histidine is needed for growth."]


@pytest.mark.parametrize("sentence", ["The answer is: 42.", "Note: the bridge opened in 1998.",
                                      "The bridge opened in 1998 and carries four lanes."])
def test_a_sentence_with_a_colon_inside_is_still_a_claim(sentence):
    assert not is_heading(sentence)
    assert claims_of(sentence)


@pytest.mark.parametrize("prefix", ["Based on the given passages, we can understand that ",
                                    "According to the passages, ", "Based on the provided context, ",
                                    "The passages state that ", "As mentioned in the text, "])
def test_a_remark_on_the_sources_before_a_fact_is_cut_off(prefix):
    answer = prefix + "the bridge opened to traffic in 1998."
    claims = split_claims(answer, split_sentences(answer))
    assert [c.text for c in claims] == ["the bridge opened to traffic in 1998."]
    assert claims[0].spans[0].start == len(prefix)


def test_an_intro_to_a_list_after_the_remark_is_no_claim():
    assert claims_of("Based on the given passages, here are the steps to fold a quilt:\n"
                     "Fold the quilt in half lengthwise.") == ["Fold the quilt in half lengthwise."]


def test_a_cited_passage_stays_in_the_claim_so_the_citation_is_checked():
    assert claims_of("According to passage 2, the deck is renovated in 2027.") == [
        "According to passage 2, the deck is renovated in 2027."]


def test_a_statement_about_what_the_context_lacks_stays_one_claim_of_its_own():
    answer = "The passages do not mention the bridge's architect."
    claims = split_claims(answer, split_sentences(answer))
    assert len(claims) == 1 and claims[0].about_context and claims[0].text == answer


@pytest.mark.parametrize("answer", [
    "Based on the provided passages, here's how to properly brush your teeth with braces:\n\n"
    "Use a soft toothbrush. Brush down from the top.",
    "Essential Amino Acids:\nHistidine is needed for growth. Is that all? Hope this helps!",
    "According to the passages, the bridge opened in 1998. The passages do not mention its architect.",
])
def test_an_audit_checks_exactly_the_pieces_the_decomposer_keeps(answer):
    """The coverage step (which gives an LLM's partial decomposition the rule-based claims it missed) skips what
    the decomposer skips: it once brought back "Based on the provided passages, here's how …:" as a claim, and
    the judge found it contradicted by "not brushing your teeth with braces is bad"."""
    from rt4chart import audit

    report = audit("Not brushing your teeth with braces is bad. Use a soft toothbrush. Histidine is needed for "
                   "growth. The bridge opened in 1998.", answer)
    assert [c.claim.text for c in report.claims] == claims_of(answer)
    assert [c.claim.about_context for c in report.claims] == [
        c.about_context for c in split_claims(answer, split_sentences(answer))]
