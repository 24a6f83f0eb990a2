"""The OR-join over windows and the AND-join over claims, table-driven."""
import pytest

from rt4chart import audit
from rt4chart.auditing.pipeline import and_join, or_join
from rt4chart.core.types import Verdict

E, C, B, U = Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.BASELESS, Verdict.UNVERIFIED


@pytest.mark.parametrize("local, joined", [
    ([], B), ([B], B), ([B, B], B), ([E, B], E), ([B, E, C], C), ([C, E], C),
    ([U, B], U), ([U, E], E), ([U, C], C),
])
def test_or_join_puts_contradiction_first_then_entailment(local, joined):
    assert or_join(local) == joined


@pytest.mark.parametrize("claims, status, hallucinated", [
    ([], "empty", False),
    ([E, E], "faithful", False),
    ([E, B], "hallucinated", True),
    ([C], "hallucinated", True),
    ([E, U], "unverified", None),
    ([U, B], "hallucinated", True),
])
def test_and_join_never_counts_a_failure_as_supported(claims, status, hallucinated):
    assert and_join(claims) == (status, hallucinated)


def test_an_empty_answer_gives_a_report_with_a_note():
    report = audit("Some context.", "   ")
    assert report.status == "empty" and report.claims == [] and report.notes


def test_an_empty_context_makes_every_claim_baseless():
    report = audit("", "The sky is green. Water is dry.")
    assert [c.verdict for c in report.claims] == [B, B]
    assert report.hallucinated is True and "context is empty" in report.notes[0]


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_huge_context_is_checked_in_windows_without_truncation():
    filler = " ".join(f"Sentence number {i} talks about topic {i}." for i in range(30000))
    context = filler + " The bridge opened in 1932."
    assert len(context) > 1_000_000
    report = audit(context, "The bridge opened in 1932.")
    assert report.coverage.context_sentences == 30001
    assert report.claims[0].verdict is E
    assert report.claims[0].evidence[0].text == "The bridge opened in 1932."


def test_progress_is_reported_before_each_step():
    from rt4chart import audit

    steps = []
    context = " ".join(f"Sentence {i} says the gauge reads {i} units." for i in range(20))
    audit(context, "The gauge reads 3 units. It reads 19 units.", progress=lambda step, f: steps.append((step, f)))
    names = [s for s, _ in steps]
    assert names[0] == "decomposing the answer into claims" and names[-1] == "global check against the whole context"
    assert any(n.startswith("local check: window 1 of ") for n in names)
    fractions = [f for _, f in steps]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] < 1
