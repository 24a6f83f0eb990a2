"""The pure HTML renderer: escaping, overlapping and adjacent spans, spans at the text edges."""
import re
from html import unescape

from hypothesis import given
from hypothesis import strategies as st

from rt4chart import audit
from rt4chart.reporting.html import answer_html, context_html, paint, report_html

PAYLOADS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<iframe src=javascript:alert(1)>",
            '"><svg onload=alert(1)>', "&amp; &lt;"]


def visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_user_text_is_escaped_everywhere_in_the_report():
    for payload in PAYLOADS:
        report = audit(f"Context {payload} here.", f"Answer {payload} is invented.", question=f"Q {payload}?")
        page = report_html(report)
        assert "<script" not in page and "<img" not in page and "<iframe" not in page and "<svg" not in page
        assert payload in visible(page)


def test_overlapping_spans_show_the_most_severe_verdict_once():
    html = paint("abcdefghij", [(0, 6, "baseless", "b"), (3, 9, "contradicted", "c")])
    assert visible(html) == "abcdefghij"
    marks = re.findall(r'data-verdict="(\w+)"[^>]*>([^<]*)<', html)
    assert marks == [("baseless", "abc"), ("contradicted", "def"), ("contradicted", "ghi")]


def test_adjacent_spans_and_spans_at_the_edges():
    html = paint("abcdef", [(0, 3, "baseless", ""), (3, 6, "contradicted", "")])
    assert re.findall(r'data-verdict="(\w+)"[^>]*>([^<]*)<', html) == [("baseless", "abc"), ("contradicted", "def")]
    assert paint("", [(0, 3, "baseless", "")]) == ""


def test_verdicts_differ_by_line_style_not_only_colour():
    html = paint("ab", [(0, 1, "baseless", ""), (1, 2, "contradicted", "")])
    assert "dashed" in html and "double" in html


@given(st.text(max_size=60), st.lists(st.tuples(st.integers(-5, 70), st.integers(-5, 70),
                                                st.sampled_from(["baseless", "contradicted", "unverified"])),
                                      max_size=6))
def test_painting_never_loses_or_invents_text(text, spans):
    html = paint(text, [(a, b, v, "t<") for a, b, v in spans])
    assert visible(html) == text
    assert "<script" not in html


def test_the_selected_claim_and_its_evidence_are_highlighted():
    report = audit("The lake is 40 metres deep. It freezes in winter.", "The lake is 90 metres deep.")
    html = answer_html(report, selected_claim=0)
    assert "rt4-selected" in html
    ctx = context_html(report, [0])
    assert 'data-evidence="contradicts"' in ctx and "It freezes" in ctx


def test_the_html_report_is_self_contained():
    page = report_html(audit("A is 1.", "A is 2."))
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert page.startswith("<!DOCTYPE html>")


def test_the_html_report_numbers_the_flagged_stretches_as_the_claims_table_does_and_is_dated():
    report = audit("The lake is 40 metres deep. It freezes in winter.",
                   "The lake is 90 metres deep. It never freezes.")
    page = report_html(report, made="2026-12-01 10:00 UTC")
    flagged = [r.claim.id + 1 for r in report.claims if r.verdict.is_hallucination]
    answer = page.split("<h2>Answer</h2>", 1)[1].split("<h2>Claims</h2>", 1)[0]
    assert flagged and all(f">{n}<" in answer for n in flagged)  # the numbers were missing in the answer
    assert "Made 2026-12-01 10:00 UTC by rt4chart" in page
