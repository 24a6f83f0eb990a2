"""With a threshold of the user's, the verdict banner says so, and a faithful answer that still has flagged claims
says why they do not flag it (issue #38: 'No hallucination found — 1 contradicted · 1 baseless')."""
from __future__ import annotations

from rt4chart.auditing.pipeline import audit
from rt4chart.core.config import AuditConfig
from rt4chart.judges.factory import make_judge
from rt4chart.reporting.html import banner_html

CONTEXT = "The museum opened in 1998. It has 40 rooms."
ANSWER = "The museum opened in 1998. It has 41 rooms."


def _banner(threshold):
    return banner_html(audit(CONTEXT, ANSWER, judge=make_judge("offline"), config=AuditConfig(threshold=threshold)))


def test_the_default_boundary_is_not_called_a_threshold_of_yours():
    banner = _banner(None)
    assert "Hallucinated — " in banner and "threshold" not in banner


def test_a_threshold_of_yours_is_named_and_a_faithful_answer_with_flags_says_why():
    high = _banner(0.99)
    assert "No hallucination found at your threshold 0.99" in high and "1 contradicted" in high
    assert "below the threshold: its flagged claims do not flag the answer" in high
    low = _banner(0.1)
    assert "Hallucinated at your threshold 0.10" in low and "below the threshold" not in low
