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


@pytest.mark.parametrize("answer, pieces", [
    ("Despite being convicted of a misdemeanor charge, Finn was not forced to spend time in jail.",
     ["Despite being convicted of a misdemeanor charge", "Finn was not forced to spend time in jail."]),
    ("While the ACLU is satisfied with the new policy, it wants hearings before a judge.",
     ["While the ACLU is satisfied with the new policy", "it wants hearings before a judge."]),
    ("Despite the rain, the match went ahead as planned.", ["Despite the rain, the match went ahead as planned."]),
    ("The match went ahead despite the rain, as planned.", ["The match went ahead despite the rain, as planned."]),
])
def test_a_concessive_clause_before_the_main_one_is_a_fact_of_its_own(answer, pieces):
    """"Despite X, Y" and "While X, Y" state X and Y: each is checked, so that the context's "the ACLU isn't
    satisfied" contradicts the first; a clause too short to check ('Despite the rain') stays with the main one."""
    assert claims_of(answer) == pieces


def test_the_conceded_fact_is_checked_on_its_own():
    from rt4chart import audit
    from rt4chart.core.types import Verdict

    context = ("But the ACLU isn't satisfied with the government's new policy, outlined in documents filed Monday. "
               "The ACLU wants hearings before a judge for everyone on the list.")
    conceded, main = audit(context, "While the ACLU is satisfied with the new policy, it wants hearings before a "
                                    "judge for everyone on the list.").claims
    assert conceded.verdict is Verdict.CONTRADICTED, conceded.rationale
    assert main.verdict is Verdict.ENTAILED, main.rationale


@pytest.mark.parametrize("label", ["Essential Amino Acids:", "**Pros:**", "## Side effects", "Differences:",
                                   "Here is a concise summary of the passage:", "1. Benefits:"])
def test_a_heading_or_list_label_is_no_claim(label):
    assert is_heading(label)
    assert claims_of(f"{label}\nHistidine is needed for growth.") == ["Histidine is needed for growth."]


@pytest.mark.parametrize("intro", ["To make ghee at home from milk, follow these steps based on the given passages:",
                                   "The proper way to dispose of a worn flag is as follows:",
                                   "To soothe mouth sores, you can try the following remedies:"])
def test_a_sentence_that_introduces_what_follows_is_no_claim(intro):
    assert claims_of(f"{intro}\n1. Heat the butter until it melts.") == ["Heat the butter until it melts."]


@pytest.mark.parametrize("sentence", ["Passage 1 provides the general steps to set the default browser in Windows 7:",
                                      "The bridge that opened in 1998 has carried these vehicles:"])
def test_a_sentence_that_says_something_before_its_colon_is_still_a_claim(sentence):
    assert claims_of(f"{sentence}\n1. Cars and buses every day.")[0] == sentence


@pytest.mark.parametrize("sentence", ["The answer is: 42.", "Note: the bridge opened in 1998.",
                                      "The bridge opened in 1998 and carries four lanes."])
def test_a_sentence_with_a_colon_inside_is_still_a_claim(sentence):
    assert not is_heading(sentence)
    assert claims_of(sentence)


@pytest.mark.parametrize("prefix", ["Based on the given passages, we can understand that ",
                                    "According to the passages, ", "Based on the provided context, ",
                                    "The passages state that ", "As mentioned in the text, ",
                                    "Based solely on the information provided in the passage, "])
def test_a_remark_on_the_sources_before_a_fact_is_cut_off(prefix):
    answer = prefix + "the bridge opened to traffic in 1998."
    claims = split_claims(answer, split_sentences(answer))
    assert [c.text for c in claims] == ["the bridge opened to traffic in 1998."]
    assert claims[0].spans[0].start == len(prefix)


@pytest.mark.parametrize("remark", ["Based on the given passages, here are the steps to fold a quilt:",
                                    "Based solely on the information provided in the passage, here is a concise "
                                    "summary covering the core pieces of information:"])
def test_an_intro_to_a_list_after_the_remark_is_no_claim(remark):
    assert claims_of(f"{remark}\nFold the quilt in half lengthwise.") == ["Fold the quilt in half lengthwise."]


def test_a_cited_passage_stays_in_the_claim_so_the_citation_is_checked():
    assert claims_of("According to passage 2, the deck is renovated in 2027.") == [
        "According to passage 2, the deck is renovated in 2027."]


def test_a_citation_after_a_sentence_joins_the_claim_it_cites():
    assert claims_of("Burn the flag in a proper ceremony. (Passage 2)\nFold it in a triangle. [passages 1 and 3].") == [
        "Burn the flag in a proper ceremony. (Passage 2)", "Fold it in a triangle. [passages 1 and 3]."]


def test_a_citation_with_no_claim_before_it_and_a_passage_label_are_no_claims():
    assert claims_of("Here are the steps:\n(Passage 2)\nFold it in a triangle.\nPassage 3:\nBurn the old flag.") == [
        "Fold it in a triangle.", "Burn the old flag."]


def test_the_coverage_step_never_brings_a_bare_citation_back_as_a_claim():
    """An LLM's decomposition that leaves out '(Passage 2)' covers the answer: a citation asserts nothing."""
    from rt4chart.core.types import Claim, Span
    from rt4chart.text.coverage import ensure_coverage

    answer = "Burn the flag in a proper ceremony. (Passage 2)"
    llm = [Claim(id=0, text="Burn the flag in a proper ceremony.", spans=[Span(start=0, end=35)])]
    assert ensure_coverage(llm, answer, split_sentences(answer)) == (llm, 0)


@pytest.mark.parametrize("answer", ["The passages do not mention the bridge's architect.",
                                    "(Note: The numbers of cases and deaths are missing in the provided passage.)"])
def test_a_statement_about_what_the_context_lacks_stays_one_claim_of_its_own(answer):
    claims = split_claims(answer, split_sentences(answer))
    assert len(claims) == 1 and claims[0].about_context and claims[0].text == answer


@pytest.mark.parametrize("answer, denial", [
    ("The first passage discusses how to prepare chicken for baking but does not mention frying.",
     "but does not mention frying."),
    ("Passage 3 provides instructions for creating a texture roller, but does not provide any information on its "
     "effectiveness.", "but does not provide any information on its effectiveness."),
    ("The passages also suggest that cupping has benefits, although they do not provide specific details on them.",
     "although they do not provide specific details on them."),
])
def test_what_a_passage_does_not_tell_after_what_it_tells_is_a_statement_about_the_context(answer, denial):
    """ragtruth_dev flagged six such clauses as facts ("the context does not mention 'frying'"), none in a human span:
    their subject is the passage of the sentence's first clause."""
    claims = split_claims(answer, split_sentences(answer))
    assert [(c.text, c.about_context) for c in claims][-1] == (denial, True)
    assert not claims[0].about_context  # what the passage tells is still a fact to check


@pytest.mark.parametrize("answer", [
    "The ruling let them enter the country but it did not grant them citizenship.",  # not a passage's sentence
    "The company, the article says, does not provide refunds.",  # the company does not: no 'but' of the passage's
    "The first passage says the bridge opened in 1998 but the city did not mention its cost.",  # another subject
])
def test_a_denial_with_a_subject_of_its_own_stays_a_fact(answer):
    assert not any(c.about_context for c in split_claims(answer, split_sentences(answer)))


@pytest.mark.parametrize("answer", [
    "Based on the provided passages, here's how to properly brush your teeth with braces:\n\n"
    "Use a soft toothbrush. Brush down from the top.",
    "Essential Amino Acids:\nHistidine is needed for growth. Is that all? Hope this helps!",
    "According to the passages, the bridge opened in 1998. The passages do not mention its architect.",
    "Use a soft toothbrush. (Passage 2)\nBrush down from the top. (Passage 1)",
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


@pytest.mark.parametrize("remark", [
    "The passages provide enough information to answer the question.",
    "Therefore, I am able to answer the question based on the given passages.",
    "Therefore, it is not possible to provide a complete answer based solely on the given passages.",
    'Therefore, the answer to the question "What is leasing?"',
    'So, the answer to the question "How to make ghee" can be summarized in 10 steps as mentioned above.',
])
def test_a_remark_on_answering_the_question_is_no_claim(remark):
    assert claims_of(f"{remark}\nGhee is clarified butter.") == ["Ghee is clarified butter."]


@pytest.mark.parametrize("prefix", ["Therefore, the answer to the question is: ",
                                    "Thus, the answer to the question of when the deck is renovated is: ",
                                    "Therefore, the answer is: ", "So the correct answer is "])
def test_the_answer_after_the_answer_to_the_question_is_the_claim(prefix):
    assert claims_of(prefix + "the deck is renovated in 2027.") == ["the deck is renovated in 2027."]


@pytest.mark.parametrize("pointer", ['Therefore, the answer is: "Option 1 or Option 2."', "Option 2.",
                                     "The answer is options 1, 2 and 3."])
def test_an_answer_that_points_at_its_own_numbered_items_adds_no_claim(pointer):
    """After a numbered list, 'the answer is Option 1 or Option 2' names the answer's items, no fact of the world; an
    option that is said to be something is a claim."""
    listed = "1. Burn the flag in a peaceful manner.\n2. Fold the flag in a triangle before burning it.\n"
    assert claims_of(listed + pointer) == ["Burn the flag in a peaceful manner.",
                                           "Fold the flag in a triangle before burning it."]
    assert claims_of("Option 2 is the cheapest plan at 40 dollars a month.") == [
        "Option 2 is the cheapest plan at 40 dollars a month."]


@pytest.mark.parametrize("answer", [
    "Passage 2 provides step-by-step instructions for installing a NUC in the hive.",
    "The second passage describes installing a NUC in the hive.",
    "The author argues that a NUC is installed in the hive.",
])
def test_the_words_that_say_who_tells_a_fact_are_not_checked_as_the_fact(answer):
    """'provides', 'step-by-step', 'instructions', 'second', 'author', 'argues' are not words the context must
    hold: the fact is what the passage or the author tells."""
    from rt4chart import audit
    from rt4chart.core.types import Verdict

    context = "passage 1: Bees need water.\n\npassage 2: Install the NUC in the hive at dawn, when bees are calm."
    [claim] = audit(context, answer).claims
    assert claim.verdict is Verdict.ENTAILED, claim.rationale


def test_who_tells_a_fact_leaves_the_fact_checked():
    from rt4chart import audit
    from rt4chart.core.types import Verdict

    [claim] = audit("passage 1: Install the NUC in the hive at dawn.\n\npassage 2: Bees need water.",
                    "Passage 1 provides instructions for painting the hive roof red.").claims
    assert claim.verdict is Verdict.BASELESS and "painting" in claim.rationale


@pytest.mark.parametrize("text, told", [
    ("Passage 3 provides step-by-step instructions for installing a NUC.",
     ["Passage 3 provides step-by-step instructions for"]),
    ("The article concludes by questioning whether marriage lasts.", ["The article concludes by"]),
    ("Nausea is common, although this is not mentioned in the passages provided.", []),  # about the context
    ("The report said 40 people died.", ["The report said"]),
    ("The bridge opened in 1998.", []),
    # the writer's own reasoning before the fact (ragtruth: "it appears that there are several options for …")
    ("Therefore, we can conclude that the word has its roots in Latin.", ["we can conclude that"]),
    ("It appears that there are several options for a free phone number.", ["It appears that"]),
    ("It is clear that the bridge opened in 1998.", ["It is clear that"]),
    ("The bridge appears to be safe.", []),
    # the writer summing up (ragtruth: "So, to summarize, plant dahlia bulbs in a sunny location …")
    ("So, to summarize, plant dahlia bulbs in spring.", ["to summarize,"]),
    ("In conclusion: the bridge opened in 1998.", ["In conclusion:"]),
    ("Spare parts are in short supply.", []),
])
def test_telling_spans_are_the_subject_and_verb_of_telling(text, told):
    from rt4chart.text.passages import telling_spans

    assert [text[a:b] for a, b in telling_spans(text)] == told


@pytest.mark.timeout(60)
def test_the_remark_patterns_read_a_long_text_of_their_own_words_in_linear_time():
    """On 400,000 words that are all subject, verb and remark words, the look back for a preposition over the whole
    text before each match, and subject words tried from every position, took over ten minutes; now well under a
    second. (An audit splits a sentence-free answer into bounded pieces first, so this is the function's own
    guarantee.)"""
    import random

    from rt4chart.text.claims import is_meta, meta_prefix
    from rt4chart.text.passages import telling_spans

    rng = random.Random(1)
    words = ("the first second passage passages article author provides more detailed specific instructions for "
             "of that states this report says it is a an answer to question able enough information").split()
    text = " ".join(rng.choice(words) for _ in range(400_000))
    assert len(telling_spans(text)) > 10_000
    is_meta(text), meta_prefix(text)
    assert is_meta("the answer to the question " * 20_000)  # each occurrence scanned at most 300 characters
