"""One rate over decided answers, and one manifest: the figures a team reads agree with each other, and a
stored run keeps the threshold it was decided with."""
from __future__ import annotations

import json

import pandas as pd

from rt4chart.auditing.manifest import manifest_of
from rt4chart.batch.run import run_batch
from rt4chart.core.config import AuditConfig
from rt4chart.evaluation.metrics import hallucination_rate
from rt4chart.judges.factory import make_judge
from rt4chart.reporting.batch_report import batch_report_html
from rt4chart.reporting.figures import rate_figure
from rt4chart.reporting.views import group_rates
from rt4chart.store import Store


def _rows() -> list[dict]:
    base = {"claims": 1, "entailed": 0, "contradicted": 0, "baseless": 0, "unverified": 0, "score": 0.5, "group": "g"}
    return [{**base, "id": "a", "status": "hallucinated", "hallucinated": True},
            {**base, "id": "b", "status": "faithful", "hallucinated": False},
            {**base, "id": "c", "status": "unverified", "hallucinated": None}]


def test_an_unverified_answer_is_in_no_rate_on_the_chart_the_headline_the_report_or_the_groups():
    df = pd.DataFrame(_rows())
    rate = hallucination_rate(df["hallucinated"])
    assert (rate.count, rate.decided, rate.value) == (1, 2, 0.5)
    assert "Hallucination rate: 50.0%" in rate_figure(df).layout.title.text  # was 33.3%: 1 of 3 rows
    assert "50.0%" in batch_report_html(_rows(), {})
    assert group_rates(df, "group")["predicted_rate"].tolist() == [0.5]


def test_undecided_flags_are_none_nan_and_errors_never_false():
    assert hallucination_rate([True, None, float("nan"), "error", 0, 1]).as_dict()["n"] == 3


def test_a_stored_run_keeps_the_threshold_and_segmenter_its_rows_were_decided_with(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "1", "context": "The sky is blue.", "answer": "The sky is green."}) + "\n")
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    judge = make_judge("offline")
    config = AuditConfig(threshold=0.3)
    run_batch(str(source), str(tmp_path / "out.jsonl"), judge, config, store=store)
    stored = store.list_runs()[0].manifest
    expected = manifest_of(judge, config).model_dump(mode="json")
    assert stored["settings"]["threshold"] == 0.3  # was missing: reopened runs lost the threshold in use
    assert stored == expected


def test_shown_scores_against_the_shown_threshold_give_exactly_the_decisions():
    """`score >= threshold` on an export (or in the precision-recall chart) reproduces every flag, although
    decisions are made on exact values and both numbers are shown with 6 decimals."""
    import csv
    from pathlib import Path

    from rt4chart import audit

    sample = Path(__file__).resolve().parents[1] / "sample_data" / "rag_audit_sample.csv"
    rows = list(csv.DictReader(sample.open(encoding="utf-8")))
    for threshold in (None, 0.3, 0.4133824, 0.6):
        config = AuditConfig(threshold=threshold)
        for row in rows:
            report = audit(row["context"], row["answer"], row.get("question"), config=config)
            shown_threshold = report.manifest.settings["threshold"]
            assert round(shown_threshold, 6) == shown_threshold
            if report.hallucinated is not None and report.score is not None:
                assert (report.score >= shown_threshold) == report.hallucinated, (threshold, row["id"])
            for claim in report.claims:
                if claim.score is not None and claim.score >= shown_threshold:  # a flagged claim marks its text
                    assert claim.hallucinated_spans, (threshold, row["id"])


def test_a_score_is_rounded_towards_its_own_decision():
    from rt4chart.auditing.scores import shown

    assert shown(0.41338242, True) == 0.413383 and shown(0.41338242, False) == 0.413382
    assert shown(0.5, True) == shown(0.5, False) == 0.5


def test_for_any_score_and_threshold_the_shown_values_give_the_decision():
    from hypothesis import given
    from hypothesis import strategies as st

    from rt4chart.auditing.scores import shown, shown_threshold

    @given(st.floats(0, 1), st.floats(0, 1))
    def check(score, threshold):
        flagged = score >= threshold
        assert (shown(score, flagged) >= shown_threshold(threshold)) == flagged

    check()


def test_csv_exports_never_start_a_cell_with_a_formula():
    from rt4chart.reporting.rows import to_csv

    text = to_csv([{"id": '=HYPERLINK("http://127.0.0.1:9/x","open me")', "note": "+1", "score": -0.5, "ok": "plain"}])
    assert text.splitlines()[1].startswith("\"'=HYPERLINK(") and ",'+1," in text and ",-0.5," in text
