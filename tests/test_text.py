"""Segmentation keeps exact offsets and handles the usual traps of real text."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rt4chart.text.durations import durations, restated
from rt4chart.text.lexicon import tokenize
from rt4chart.text.segment import make_windows, split_sentences


def texts(text):
    return [s.text for s in split_sentences(text)]


@pytest.mark.parametrize("text, expected", [
    ("Dr. Smith arrived. He left.", ["Dr. Smith arrived.", "He left."]),
    ("The U.S. economy grew 3.5 percent. Exports fell.", ["The U.S. economy grew 3.5 percent.", "Exports fell."]),
    ("We met at 5 p.m. on Monday and talked.", ["We met at 5 p.m. on Monday and talked."]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("- first point\n- second point", ["first point", "second point"]),
    ("1. Install it\n2. Run it", ["Install it", "Run it"]),
    ("Title line\nBody sentence one. Body two.", ["Title line", "Body sentence one.", "Body two."]),
    ("", []),
    ("   \n\t ", []),
    ("!!! ... ???", []),
])
def test_sentences_split_where_a_reader_would(text, expected):
    assert texts(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_every_sentence_is_the_exact_slice_of_its_offsets(text):
    previous_end = 0
    for i, s in enumerate(split_sentences(text)):
        assert s.index == i
        assert 0 <= s.start < s.end <= len(text)
        assert text[s.start:s.end] == s.text
        assert s.start >= previous_end
        previous_end = s.end


@pytest.mark.parametrize("n, size, stride, expected", [
    (0, 4, 2, []),
    (3, 4, 2, [(0, 2)]),
    (6, 4, 2, [(0, 3), (2, 5)]),
    (7, 4, 2, [(0, 3), (2, 5), (4, 6)]),
    (5, 1, 1, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]),
])
def test_windows_overlap_and_cover_every_sentence(n, size, stride, expected):
    assert [(w.first, w.last) for w in make_windows(n, size, stride)] == expected


def test_a_stride_larger_than_the_window_is_refused():
    with pytest.raises(ValueError, match="stride"):
        make_windows(10, 2, 3)


@pytest.mark.parametrize("text, days", [
    ("the first six months", [6 * 365.2425 / 12]),
    ("half a year", [365.2425 / 2]),
    ("a half-year", [365.2425 / 2]),
    ("a year and a half", [1.5 * 365.2425]),
    ("two and a half years", [2.5 * 365.2425]),
    ("one and a half years", [1.5 * 365.2425]),
    ("a 90-day period", [90.0]),
    ("two centuries", [200 * 365.2425]),
    ("the second year", []),      # an ordinal, not a count of seconds
    ("the first year", []),       # no figure
])
def test_durations_are_read_as_days(text, days):

    assert [round(d.days, 6) for d in durations(tokenize(text))] == [round(x, 6) for x in days]


def test_only_the_words_of_an_equal_duration_restate_it():

    tokens = tokenize("doubled in 6 months after 2 weeks")
    assert [tokens[i].text for i in sorted(restated(tokens, [365.2425 / 2]))] == ["6", "months"]
    assert restated(tokens, [30.0]) == set()   # 30 days is no 2 weeks and no 6 months
