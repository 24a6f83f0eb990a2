"""Figure builders and dataset summaries on audited rows."""
import json

from rt4chart.batch.rows import run_records
from rt4chart.core.rows import Record
from rt4chart.evaluation.metrics import wilson_interval
from rt4chart.judges.factory import make_judge
from rt4chart.reporting.figures import (
    claims_per_answer_figure,
    confusion_figure,
    frame,
    rate_by_group_figure,
    rate_figure,
    top_issues,
    verdict_mix_figure,
)
from rt4chart.reporting.rows import gold_scores, result_row, to_csv, to_jsonl

RECORDS = [Record(id=str(i), context="The lake is 40 metres deep.", answer=a, extra={"model": m, "gold": g})
           for i, (a, m, g) in enumerate([("The lake is 40 metres deep.", "m1", "false"),
                                          ("The lake is 90 metres deep.", "m1", "true"),
                                          ("The lake is 40 metres deep.", "m2", "true"),
                                          ("The lake was dug by Romans.", "m2", "true")])]


def rows():
    return [result_row(r, ["model", "gold"]) for r in run_records(RECORDS, make_judge("offline"))]


def test_rows_carry_counts_spans_and_chosen_columns():
    r = rows()
    assert [x["hallucinated"] for x in r] == [False, True, False, True]
    assert r[1]["contradicted"] == 1 and json.loads(r[1]["spans"])
    assert r[0]["model"] == "m1" and "hallucinated_text" in r[1]


def test_rate_figure_reports_the_wilson_interval():
    fig = rate_figure(frame(rows()))
    low, high = wilson_interval(2, 4)
    assert fig.data[0].y[0] == 0.5
    assert abs(fig.data[0].error_y.array[0] - (high - 0.5)) < 1e-9
    assert "50.0%" in fig.layout.title.text


def test_group_mix_and_histogram_figures():
    df = frame(rows())
    by_model = rate_by_group_figure(df, "model")
    assert sorted(by_model.data[0].x) == ["m1 (n=2)", "m2 (n=2)"]
    assert sum(verdict_mix_figure(df).data[0].y) == int(df["claims"].sum())
    assert len(claims_per_answer_figure(df).data[0].x) == 4
    assert list(top_issues(df, 2)["id"]) == ["1", "3"]


def test_gold_scores_match_the_benchmark_scorer_and_feed_the_confusion_matrix():
    s = gold_scores(rows(), "gold")
    assert (s.tp, s.fp, s.fn, s.tn) == (2, 0, 1, 1)
    assert [list(row) for row in confusion_figure(s).data[0].z] == [[2, 1], [0, 1]]


def test_exports_keep_every_row_and_spans_as_json():
    r = rows()
    assert to_csv(r).count("\n") == 5
    lines = [json.loads(x) for x in to_jsonl(r).splitlines()]
    assert isinstance(lines[1]["spans"], list) and lines[1]["spans"]


def test_contexts_with_the_most_issues_group_answers_by_their_context():
    from rt4chart.reporting.figures import top_contexts

    table = top_contexts(frame(rows()), 5)
    assert len(table) == 1 and table.iloc[0]["answers"] == 4 and table.iloc[0]["issues"] == 2
    assert table.iloc[0]["context"].startswith("The lake is 40 metres deep.")


def test_gold_spans_give_character_span_scores():
    r = rows()
    for x in r:
        x["gold_spans"] = json.dumps([{"start": 12, "end": 21}]) if x["id"] == "1" else "[]"
    answers = {rec.id: rec.answer for rec in RECORDS}
    s = gold_scores(r, "gold", gold_spans_column="gold_spans", answers=answers)
    assert s.span_records == 4 and s.gold_chars == 9 and s.overlap_chars > 0
