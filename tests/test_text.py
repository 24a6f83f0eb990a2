"""Segmentation keeps exact offsets and handles the usual traps of real text."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rt4chart.text.lexicon import starts_sentence, tokenize
from rt4chart.text.measures import durations, measures, quantities, restated, shares
from rt4chart.text.retrieval import SentenceIndex
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
    # passages joined without a space: the glued sentence end is cut, initials and abbreviations are not
    ("It ran in the 19th century.First for Women is newer.", ["It ran in the 19th century.", "First for Women is newer."]),
    ("Founded in 1989.James left!Then he came back.", ["Founded in 1989.", "James left!", "Then he came back."]),
    ("J.R.R.Tolkien wrote it. The U.S.Army and St.Louis are e.g.Names here.",
     ["J.R.R.Tolkien wrote it.", "The U.S.Army and St.Louis are e.g.Names here."]),
    ("It aired on ESPN.Barry Bonds is a player.", ["It aired on ESPN.", "Barry Bonds is a player."]),  # an acronym too
    ("Pi is 3.14 today.", ["Pi is 3.14 today."]),
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
    ("the 19th century", []),     # an ordinal century, not nineteen centuries
    ("the 3rd day", []),
])
def test_durations_are_read_as_days(text, days):
    assert [round(d.value, 6) for d in durations(tokenize(text))] == [round(x, 6) for x in days]


def test_only_the_words_of_an_equal_duration_restate_it():
    tokens = tokenize("doubled in 6 months after 2 weeks")
    theirs = durations(tokenize("half a year, then 30 days"))
    mine = measures(tokens)
    assert [tokens[i].text for i in sorted(restated(mine, theirs))] == ["6", "months"]  # 30 days: no 2 weeks
    assert restated(mine, shares(tokenize("half of them"))) == set()   # a share is no duration
    assert restated(durations(tokenize("for 100 days")), durations(tokenize("for 101 days"))) == set()  # one unit


def test_a_percentage_restates_a_fraction_within_its_rounding_only():
    two_thirds = shares(tokenize("two thirds of the members"))
    assert restated(shares(tokenize("67% of them")), two_thirds) == {0}
    assert restated(shares(tokenize("66% of them")), two_thirds) == set()
    assert restated(shares(tokenize("66.7% of them")), two_thirds) == {0}
    assert restated(shares(tokenize("13% of them")), shares(tokenize("13.8% of them"))) == set()


@pytest.mark.parametrize("text, kind, value", [
    ("bake at 350°F", "temperature", 176.667),
    ("heat to 74 degrees C", "temperature", 74.0),
    ("a 5-mile walk", "length", 8046.72),
    ("100 square metres", "area", 100.0),
    ("2,000 acres", "area", 8093712.8),
    ("a 10 lb turkey", "mass", 4535.924),
    ("1.5 litres of water", "volume", 1500.0),
    ("60 mph", "speed", 96.561),
    ("97 km/h", "speed", 97.0),
])
def test_a_number_and_its_unit_is_a_physical_quantity_in_the_base_unit(text, kind, value):
    [found] = quantities(tokenize(text))
    assert (found.kind, round(found.value, 3)) == (kind, value)


@pytest.mark.parametrize("text", ["a $5m deal", "grade 5 c", "5 in the morning", "flight 350 from Paris"])
def test_money_a_lower_case_letter_and_a_bare_number_are_no_physical_quantity(text):
    assert quantities(tokenize(text)) == []


@pytest.mark.parametrize("mine, theirs, same", [
    ("175°C", "350°F", True), ("180 degrees Celsius", "350 F", True), ("150°C", "350°F", False),
    ("8 km", "5 miles", True), ("9 km", "5 miles", False), ("1 m", "3 feet", True),
    ("4.5 kg", "10 lb", True), ("809 hectares", "2,000 acres", True), ("97 km/h", "60 mph", True),
    ("60 km", "60 miles", False),   # a length is not restated by another number
    ("5.68 meters", "5.68 m", True),  # the same unit spelled otherwise: the same figure exactly
    ("6 kilometers", "6.213 km", False),  # the same unit is never rounded: another figure
    ("5 miles", "5.5 miles", False),
    ("8 kg", "5 miles", False),     # another kind
])
def test_a_physical_quantity_restates_one_in_another_unit_within_its_rounding(mine, theirs, same):
    assert bool(restated(measures(tokenize(mine)), measures(tokenize(theirs)))) is same


@pytest.mark.parametrize("mine, theirs, same", [
    ("between the late 18th and early 20th centuries", "between the late 1700s and the early 1900s", True),
    ("in the 19th century", "in the 1800s", True),
    ("in the 19th century", "in the 1900s", False),
    ("in the 1990s", "in the 20th century", False),  # a decade, not a century
])
def test_a_century_by_its_ordinal_restates_it_by_its_hundreds(mine, theirs, same):
    """RAGTruth's annotators marked "the late 18th and early 20th centuries" as conflicting with "the late 1700s and
    the early 1900s": the two name the same years."""
    assert bool(restated(measures(tokenize(mine)), measures(tokenize(theirs)))) is same


@pytest.mark.parametrize("text, values", [
    ("turnout was 50%", [0.5]),
    ("25 percent of the staff", [0.25]),
    ("25 per cent of the staff", [0.25]),
    ("half of the members", [0.5]),
    ("a quarter of the staff", [0.25]),
    ("three quarters of them", [0.75]),
    ("two-thirds of the members", [2 / 3]),
    ("one-third of the members", [1 / 3]),
    ("a fifth of the budget", [0.2]),
    ("one in four adults", [0.25]),
    ("1 out of 5 voters", [0.2]),
    ("half a year", []),            # a duration, not a share
    ("3 in 2020", []),              # a count and a year, not a share
])
def test_shares_are_read_as_fractions(text, values):
    assert [round(m.value, 6) for m in shares(tokenize(text))] == [round(v, 6) for v in values]


@pytest.mark.parametrize("context", [
    "One-third of the members voted yes. The rest abstained.",   # no number, no fraction word: a hyphenated one
    "A third of the members voted yes. The rest abstained.",
    "Turnout was 33%. The rest abstained.",
])
def test_every_sentence_that_holds_a_figure_gives_it_to_the_whole_context(context):
    index = SentenceIndex(split_sentences(context))
    assert [round(m.value, 2) for m in index.all_measures] == [0.33]


@pytest.mark.parametrize("count, noun, said", [(1, "round", "1 round"), (0, "round", "0 rounds"),
                                               (1, "provider batch", "1 provider batch"),
                                               (3, "provider batch", "3 provider batches"), (12000, "row", "12,000 rows")])
def test_a_count_says_its_noun_in_the_right_number(count, noun, said):
    from rt4chart.core.counted import counted

    assert counted(count, noun) == said


@pytest.mark.parametrize("text, sentences", [
    ("Preheat the oven to 350 F. Bake the brats for 30 minutes.",
     ["Preheat the oven to 350 F.", "Bake the brats for 30 minutes."]),
    ("Preheat the oven to 425° F. In a shallow bowl, combine flour.",
     ["Preheat the oven to 425° F.", "In a shallow bowl, combine flour."]),
    ("The wall is 3 m. It is tall.", ["The wall is 3 m.", "It is tall."]),
    ("He met F. Scott Fitzgerald in 1925. They talked.", ["He met F. Scott Fitzgerald in 1925.", "They talked."]),
    ("Meet at 5 p.m. sharp in the hall.", ["Meet at 5 p.m. sharp in the hall."]),
])
def test_a_one_letter_unit_after_a_number_ends_its_sentence(text, sentences):
    """Punkt takes 'F.' for an initial ('F. Scott'); after a number it is a unit, and a capital after it starts a
    new sentence, so evidence is one sentence, not two."""
    assert [s.text for s in split_sentences(text)] == sentences


@pytest.mark.parametrize("british, american_spelling", [
    ("colour", "color"), ("favourite", "favorite"), ("neighbourhood", "neighborhood"), ("organised", "organized"),
    ("criticising", "criticizing"), ("organisation", "organization"), ("analysed", "analyzed"), ("metres", "meters"),
    ("centred", "centered"), ("theatre", "theater"), ("defence", "defense"), ("licences", "licenses"),
])
def test_a_british_spelling_has_the_stem_of_the_american_one(british, american_spelling):
    from rt4chart.text.lexicon import stem

    assert stem(british) == stem(american_spelling)


@pytest.mark.parametrize("a, b", [("four", "for"), ("fourth", "forth"), ("hour", "hor"), ("timbre", "timber"),
                                  ("flour", "flor"), ("course", "corse"), ("tour", "tor")])
def test_words_that_only_look_british_keep_their_own_stem(a, b):
    from rt4chart.text.lexicon import stem

    assert stem(a) != stem(b)


@pytest.mark.parametrize("text", ["he'll", "They’re", "I'm", "we've", "you'd", "it'll", "there'd"])
def test_a_pronoun_with_its_verb_clipped_on_is_no_content(text):
    """ragtruth: "and he'll highlight California's experience" was flagged for the word 'he'll'."""
    assert [t.is_content for t in tokenize(text)] == [False]


def test_a_name_with_a_clipped_verb_is_still_content():
    assert [t.is_content for t in tokenize("Obama'll")] == [True]


@pytest.mark.parametrize("text, pointers, counts", [
    ("A joint disorder (Passages 1 & 2).", ["1", "2"], []),
    ("Repeat steps 7 and 8, then steps 2-4.", ["7", "8", "2", "4"], []),
    ("Passage 2 says 5 people died; step 3 takes 10 minutes.", ["2", "3"], ["5", "10"]),
])
def test_a_number_after_a_pointer_points_and_the_rest_count(text, pointers, counts):
    """'Passages 1 & 2' and 'steps 7 and 8' name parts of the sources or the answer: no figure to find in the
    context ('the context gives a different figure than 8' was said of 'Repeat steps 7 and 8 …')."""
    numbers = [t for t in tokenize(text) if t.number is not None]
    assert [t.text for t in numbers if t.reference] == pointers
    assert [t.text for t in numbers if t.is_content] == counts


@pytest.mark.parametrize("text, word, opens", [
    ("Rain fell. Then it stopped.", "Then", True),
    ("Rain fell\nThen it stopped.", "Then", True),           # a line opens
    ("- Then it stopped.", "Then", True),                     # a list item
    ("\u2022 Then it stopped.", "Then", True),                # a bullet
    ("# Then it stopped", "Then", True),                      # a heading
    ("Share it with #FindYourPark today.", "FindYourPark", False),  # a hashtag's word
    ("He said Then it stopped.", "Then", False),
])
def test_a_word_opens_a_sentence_only_where_a_reader_would_start_one(text, word, opens):
    assert starts_sentence(text, text.index(word)) is opens


@pytest.mark.parametrize("text, figure, value", [
    ("Two hundred people were tested.", "Two hundred", 200),
    ("more than two dozen other countries", "two dozen", 24),
    ("She bought half a dozen eggs.", "half a dozen", 6),
    ("five hundred thousand fans", "five hundred thousand", 500_000),
])
def test_a_figure_counted_in_hundreds_or_dozens_is_one_number(text, figure, value):
    numbers = [(t.text, t.number) for t in tokenize(text) if t.number is not None]
    assert numbers == [(figure, value)]


@pytest.mark.parametrize("text", ["a hundred years", "see passage 2 hundred", "in 2015 hundred", "two, hundred"])
def test_a_hundred_alone_or_after_a_pointer_or_a_year_counts_nothing_more(text):
    assert [t.number for t in tokenize(text) if t.number is not None][-1] == 100
