"""A context sentence opening with a pronoun is read with the subject it stands for, and with nothing else of the
sentence before it."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rt4chart.text.antecedents import opens_with_pronoun, resolved_sentences, subject_phrase
from rt4chart.text.segment import split_sentences


def resolve(context: str) -> list:
    sentences = split_sentences(context)
    return resolved_sentences(context, [s.start for s in sentences], [s.end for s in sentences])


def test_an_opening_pronoun_is_read_as_the_subject_of_the_sentence_before():
    out = resolve("Insulin glargine is a long-acting insulin. It is usually injected once a day.")
    assert out == [None, "Insulin glargine is usually injected once a day."]


def test_a_chain_of_pronouns_passes_the_subject_on():
    out = resolve("The Lindqvist Harbor Bridge opened to traffic in 1998. It is 1,240 metres long. "
                  "It carries four lanes.")
    assert out[1:] == ["The Lindqvist Harbor Bridge is 1,240 metres long.", "The Lindqvist Harbor Bridge carries four lanes."]


def test_only_the_subject_is_carried_never_a_figure_of_the_earlier_sentence():
    out = resolve("Alan Ameche was drafted in 1955. He won the Heisman Trophy in 1954.")
    assert out[1] == "Alan Ameche won the Heisman Trophy in 1954."
    assert "1955" not in out[1]


def test_sentences_without_a_subject_to_carry_stay_as_they_are():
    assert resolve("In 1998 the bridge opened. It is long.") == [None, None]  # opens with a preposition
    assert resolve("Marie Curie, a physicist, was born in Warsaw. She won two prizes.") == [None, None]  # apposition
    assert resolve("The results were clear.\n\nThey said so.")[1] is None  # another paragraph
    assert resolve("The plan was approved. It is estimated that it will cost more.")[1] is None  # impersonal 'it'


def test_what_counts_as_a_pronoun_opening_and_a_subject_phrase():
    assert opens_with_pronoun("They won.") and opens_with_pronoun("She was born in 1867.")
    assert not opens_with_pronoun("Its summit is closed.") and not opens_with_pronoun("the end. It")
    assert subject_phrase("Unopened pens should be stored cold.") == "Unopened pens"
    assert subject_phrase("The committee approved the plan.") == "The committee"
    assert subject_phrase("The very long and winding road through the old town was closed.") is None  # over six words
    assert subject_phrase("However, it was closed.") is None


def test_a_pronoun_stands_only_for_a_subject_it_agrees_with():
    """'he'/'she' for a name alone in its sentence, 'it' for a thing, 'they' for a plural; else the sentence stays."""
    assert resolve("Tonee Turner is 5 feet 3 inches tall. She has brown eyes.")[1] == "Tonee Turner has brown eyes."
    assert resolve("Tamang's house was one of the bigger ones. She built it.")[1] is None  # a house is not 'she'
    assert resolve("Robert has children, which helps because Savannah is there. She is their guardian.")[1] is None
    assert resolve("Woolfenden placed his hand on her back. She turned.")[1] is None  # another person is in play
    assert resolve("Marie Curie was born in Warsaw. It is a city.")[1] is None  # a person's name is not 'it'
    assert resolve("The community farms here. They farm corn.")[1] is None  # singular subject, plural pronoun
    assert resolve("The residents were scared. They left.")[1] == "The residents left."


def test_titles_and_impersonal_it_are_not_pronouns_to_resolve():
    assert not opens_with_pronoun('It Takes a Village is a book.')
    assert not opens_with_pronoun("It seems the bridge is closed.")
    assert not opens_with_pronoun("It takes an age to get there.")


_WORDS = ["It", "He", "She", "They", "The", "bridge", "Insulin", "glargine", "is", "was", "opened", "in", "1998", ",",
          "that", "seems", "Maria", "Lopez", "\n\n", "  ", "It's", "they've", "’", "(", ")"]


@given(st.lists(st.sampled_from(_WORDS + [".", ". ", "! "]), max_size=40), st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_any_context_gets_one_reading_per_sentence_ending_in_the_sentences_own_words(words, noise):
    context = " ".join(words) + noise
    sentences = split_sentences(context)
    out = resolved_sentences(context, [s.start for s in sentences], [s.end for s in sentences])
    assert len(out) == len(sentences)
    for sentence, read in zip(sentences, out):
        if read is not None:
            first = sentence.text.split(maxsplit=1)
            assert len(first) == 2 and read.endswith(sentence.text[sentence.text.index(first[0]) + len(first[0]):])
