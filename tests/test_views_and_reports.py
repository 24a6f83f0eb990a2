"""Column detection, filtered views and exports, per-group rates, and the batch HTML report (no Streamlit)."""
import re

import pandas as pd
import pytest

from rt4chart.batch.rows import run_records
from rt4chart.core.rows import Record
from rt4chart.data.columns import (
    detect_columns,
    detect_gold_column,
    detect_group_columns,
    detect_spans_column,
    name_words,
)
from rt4chart.judges.factory import make_judge
from rt4chart.reporting.batch_report import batch_report_html
from rt4chart.reporting.rows import result_row
from rt4chart.reporting.views import Filters, agreement, apply_filters, export_rows, group_rates


def test_column_names_are_read_by_their_words():
    assert name_words("retrieved_docs") == ["retrieved", "docs"] and name_words("llmResponse") == ["llm", "response"]
    columns = ["uid", "retrieved_docs", "llm_response", "user_query", "response_time", "model_name", "gold_label"]
    rows = [{"uid": "1", "retrieved_docs": "A long passage about the dam and its height. " * 4,
             "llm_response": "The dam is 40 m high.", "user_query": "How high?", "response_time": "1.2",
             "model_name": "m", "gold_label": "1"}]
    assert detect_columns(columns, rows) == {"context": "retrieved_docs", "answer": "llm_response",
                                             "question": "user_query", "id": "uid"}
    assert detect_gold_column(columns) == "gold_label" and detect_group_columns(columns) == ["model_name"]


def test_columns_with_meaningless_names_are_detected_by_content():
    rows = [{"a": "The passage: the dam on the river is 40 metres high and opened in 1931. " * 3,
             "b": "The dam is 40 metres high.", "c": "How high is the dam?", "d": "7"}]
    assert detect_columns(list(rows[0]), rows) == {"context": "a", "answer": "b", "question": "c", "id": None}


@pytest.fixture(scope="module")
def audited():
    records = [Record(f"r{i}", f"The dam is {40 + i} metres high. It opened in {1900 + i}.",
                      f"The dam is {40 + i + (i % 2)} metres high.", extra={"model": "m-a" if i < 4 else "m-b",
                                                                           "gold": "true" if i % 2 else "false"})
               for i in range(8)]
    results = list(run_records(records, make_judge("offline")))
    rows = [result_row(r, ["model", "gold"]) for r in results]
    return rows, {r.record.id: r.report for r in results}, records


def test_filters_and_exports_give_exactly_the_rows_shown(audited):
    rows, _reports, records = audited
    df = pd.DataFrame(rows)
    view = apply_filters(df, Filters(statuses=["hallucinated"], groups={"model": ["m-a"]}))
    assert list(view["id"]) == ["r1", "r3"]
    texts = {r.id: {"question": r.question, "context": r.context, "answer": r.answer} for r in records}
    exported = export_rows(view, texts)
    assert [x["id"] for x in exported] == ["r1", "r3"] and exported[0]["context"] == records[1].context
    assert "context_preview" not in exported[0]
    assert export_rows(apply_filters(df, Filters(verdict="unverified"))) == []


def test_agreement_with_gold_and_group_rates_side_by_side(audited):
    rows, _reports, _records = audited
    df = pd.DataFrame(rows)
    marks = agreement(df, "gold")
    assert set(marks) == {"agreement"}  # the offline judge is right on every row here
    rates = group_rates(df, "model", "gold")
    assert list(rates["model"]) == ["m-a", "m-b"]
    assert list(rates["predicted_rate"]) == list(rates["gold_rate"]) == [0.5, 0.5]
    assert {"gold_low", "gold_high", "false_positives", "false_negatives"} <= set(rates.columns)
    fp = apply_filters(df, Filters(disagreement="false positives", gold_column="gold"))
    assert fp.empty


def test_the_batch_report_is_self_contained_and_escapes_user_text(audited):
    rows, reports, _records = audited
    hostile = dict(rows[1], id="<img src=x onerror=alert(1)>")
    page = batch_report_html(rows + [hostile], reports, ["model"], "gold", None, {}, {"judge": "offline"},
                             title="<script>x</script>")
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    assert "<script" not in page and "<img src=x" not in page
    assert not re.search(r"(?:src|href)=[\"']?https?://", page)  # nothing fetched
    for section in ("of answers hallucinated", "Claims by verdict", "By model", "gold rate", "Against gold labels",
                    "Answers with the most issues", "Examples", "Run manifest"):
        assert section in page
    assert 'data-role="answer"' in page  # highlighted example answers


def test_gold_labels_and_spans_are_found_under_the_names_teams_give_them():
    assert detect_gold_column(["id", "context", "answer", "is_hallucination"]) == "is_hallucination"
    assert detect_spans_column(["id", "annotated_spans"]) == "annotated_spans"
    assert detect_spans_column(["id", "reviewer_spans_json"]) == "reviewer_spans_json"
    assert detect_spans_column(["id", "context"]) is None


def test_the_batch_report_lists_the_rows_where_judge_and_gold_disagree(audited):
    rows, reports, _records = audited
    flipped = [dict(r, gold="false") if r["id"] == "r1" else r for r in rows]  # r1: now a false positive
    flipped = [dict(r, gold="true") if r["id"] == "r2" else r for r in flipped]  # r2: now a false negative
    page = batch_report_html(flipped, reports, [], "gold", None, {}, {})
    section = page.split("Where the judge and gold disagree", 1)[1].split("</section>", 1)[0]
    positives, negatives = section.split("False negatives", 1)
    assert "False positives (judge: hallucinated, gold: faithful): 1" in positives and ">r1<" in positives
    assert ": 1" in negatives and ">r2<" in negatives and ">r1<" not in negatives


def test_agreement_figures_say_too_few_reviews_below_the_stated_number():
    from rt4chart.store.analysis import MIN_REVIEWS, reviewed_figure

    assert reviewed_figure(0.0, 1) == f"too few reviews (1 of {MIN_REVIEWS})"  # was "0.0000" after one review
    assert reviewed_figure(0.61234, MIN_REVIEWS) == "0.612" and reviewed_figure(None, 50) == "–"
