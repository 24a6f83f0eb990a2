"""A claim's rationale is made from the same decision as its verdict: an entailed claim never says the judge found
no support, and a flagged claim never says its content is found (issue #38: 'Baseless' beside '100% of the claim's
content is found'). Checked on every claim of the demo dataset, for the offline, model and hybrid judges."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rt4chart.auditing.pipeline import audit
from rt4chart.core.types import Verdict
from rt4chart.judges.factory import make_judge

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "rag_audit_sample.csv"
SAYS_NO_SUPPORT = ("finds no support", "no support in the context", "does not mention", "do not mention")
SAYS_FOUND = ("content is found", "is found in the evidence", "reads it in the context")


def _claims(judge_name: str):
    judge = make_judge(judge_name, threads=1) if judge_name != "offline" else make_judge("offline")
    with open(SAMPLE, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            report = audit(row["context"], row["answer"], row["question"] or None, judge=judge)
            yield from ((row["id"], c) for c in report.claims)


@pytest.mark.parametrize("judge_name", ["offline", "model", "hybrid"])
def test_no_rationale_argues_against_its_own_verdict(judge_name):
    checked = 0
    for row_id, claim in _claims(judge_name):
        if claim.verdict is Verdict.UNVERIFIED:
            continue
        why = claim.rationale.lower()
        if claim.verdict is Verdict.ENTAILED:
            assert not any(p in why for p in SAYS_NO_SUPPORT), (row_id, claim.claim.text, claim.rationale)
        else:
            assert not any(p in why for p in SAYS_FOUND), (row_id, claim.claim.text, claim.rationale)
        checked += 1
    assert checked >= 25  # the claims of the 20 demo answers
