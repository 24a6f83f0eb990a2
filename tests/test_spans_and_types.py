"""Span helpers and the JSON round-trip of reports."""
from hypothesis import given
from hypothesis import strategies as st

from rt4chart import audit
from rt4chart.core.types import AuditReport, Span
from rt4chart.text.spans import clip_to, locate, merge_spans


def S(a, b):
    return Span(start=a, end=b)


def test_overlapping_and_touching_spans_merge():
    assert merge_spans([S(5, 8), S(0, 3), S(2, 4), S(8, 9)]) == [S(0, 4), S(5, 9)]


def test_spans_separated_by_spaces_merge_but_not_across_a_sentence_end():
    text = "aaa bbb. ccc"
    assert merge_spans([S(0, 3), S(4, 7)], join_gap=2, text=text) == [S(0, 7)]
    assert merge_spans([S(4, 7), S(9, 12)], join_gap=2, text=text) == [S(4, 7), S(9, 12)]


def test_clip_keeps_only_parts_inside_the_bounds():
    assert clip_to([S(0, 10)], [S(2, 4), S(6, 8)]) == [S(2, 4), S(6, 8)]


def test_locate_prefers_the_occurrence_inside_the_claim():
    text = "It rose 5%. Later it rose 5% again."
    assert locate(text, "rose 5%", within=[S(12, 35)]) == S(21, 28)
    assert locate(text, "rose 5%", after=10) == S(21, 28)
    assert locate(text, "rose 5%") == S(3, 10)
    assert locate(text, "absent") is None


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=20))
def test_merged_spans_are_sorted_disjoint_and_cover_the_same_characters(pairs):
    spans = [S(min(a, b), max(a, b)) for a, b in pairs]
    merged = merge_spans(spans)
    covered = {i for s in spans for i in range(s.start, s.end)}
    assert {i for s in merged for i in range(s.start, s.end)} == covered
    assert all(a.end < b.start for a, b in zip(merged, merged[1:]))


def test_a_report_round_trips_through_json():
    report = audit("Paris is the capital of France. It has 2.1 million people.",
                   "Paris, the capital of France, has 3 million people.", question="How big is Paris?")
    again = AuditReport.from_json(report.to_json())
    assert again == report
    assert again.claims[0].claim.spans[0].slice(again.answer)
