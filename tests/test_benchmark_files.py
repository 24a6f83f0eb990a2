"""Public benchmarks in the files people download: HaluEval's JSON lines (a right and a hallucinated answer per
line) and FaithBench's batch_N.json (summaries with human span annotations), read with their gold labels so
`predict`, `batch` and `bench` take them as they are. The files follow the formats documented by the
benchmarks' own repositories (RUCAIBox/HaluEval data/*.json fields; vectara/FaithBench scripts/faithbench_schema.py)."""
import json

import pytest

from rt4chart.cli.main import main
from rt4chart.core.errors import InputError
from rt4chart.data.benchmarks import FAITHBENCH_FORMAT, HALUEVAL_FORMAT
from rt4chart.data.records import open_table, table_records

QA = [{"knowledge": "Arthur's Magazine (1844-1846) was an American literary periodical. First for Women was "
                    "started in 1989.", "question": "Which magazine was started first?",
       "right_answer": "Arthur's Magazine", "hallucinated_answer": "First for Women was started first, in 1844."},
      {"knowledge": "The dam is 128 metres high.", "question": "How high is the dam?", "right_answer": "128 metres",
       "hallucinated_answer": "It is 300 metres high."}]


def faithbench_batch(samples=None) -> dict:
    return {"samples": samples or [
        {"sample_id": 0, "source": "Poseidon grossed $181,674,817 on a budget of $160 million.",
         "summary": "Poseidon grossed $181,674,817 with a production budget of $160 million.",
         "annotations": [
             {"annot_id": 1, "annotator_id": "a", "annotator_name": "A", "label": ["Unwanted", "Unwanted.Intrinsic"],
              "note": "budget vs production budget", "summary_span": "production", "summary_start": 41,
              "summary_end": 51},
             {"annot_id": 2, "annotator_id": "b", "annotator_name": "B", "label": ["Benign"], "note": "",
              "summary_span": "Poseidon", "summary_start": 0, "summary_end": 8}],
         "metadata": {"summarizer": "mistral-7b", "hhemv1": 0.99, "hhem-2.1": 0.5, "hhem-2.1-english": 0.9,
                      "trueteacher": 1, "true_nli": 1, "gpt-3.5-turbo": 1, "gpt-4-turbo": 1, "gpt_4o": 1,
                      "raw_sample_id": 15}},
        {"sample_id": 1, "source": "The bridge opened in 1998.", "summary": "The bridge opened in 1998.",
         "annotations": [], "metadata": {"summarizer": "gpt-4o"}},
        {"sample_id": 2, "source": "It rained.", "summary": "It rained heavily.",
         "annotations": [{"annot_id": 3, "annotator_id": "a", "annotator_name": "A", "label": ["Questionable"],
                          "note": "", "summary_span": "heavily", "summary_start": 10, "summary_end": 17}],
         "metadata": {"summarizer": "gpt-4o"}}]}


def test_a_halueval_file_gives_a_right_and_a_hallucinated_record_per_line_with_gold(tmp_path):
    path = tmp_path / "qa_data.json"  # HaluEval names its JSON-lines files .json
    path.write_text("".join(json.dumps(x) + "\n" for x in QA))
    table = open_table(str(path))
    assert table.format == HALUEVAL_FORMAT and table.count == 4
    records = list(table_records(table, {}))
    assert [r.id for r in records] == ["1-right", "1-hallucinated", "2-right", "2-hallucinated"]
    assert records[1].answer == QA[0]["hallucinated_answer"] and records[1].question == QA[0]["question"]
    assert records[0].context == QA[0]["knowledge"]
    assert [r.extra["hallucinated"] for r in records] == [False, True, False, True]


def test_bench_scores_a_halueval_file_as_downloaded(tmp_path, capsys):
    path = tmp_path / "qa_data.json"
    path.write_text("".join(json.dumps(x) + "\n" for x in QA))
    assert main(["bench", "--judge", "offline", str(path)]) == 0
    out = capsys.readouterr().out
    assert "n=4 (gold positives=2, negatives=2)" in out  # the gold of each line's two answers was read


def test_dialogue_and_summarization_files_are_read_too_and_a_broken_line_is_refused(tmp_path):
    path = tmp_path / "dialogue_data.json"
    path.write_text(json.dumps({"knowledge": "Inception is directed by Christopher Nolan.",
                                "dialogue_history": "[Human]: Who directed Inception?",
                                "right_response": "Christopher Nolan.", "hallucinated_response": "Steven Spielberg."})
                    + "\n")
    [right, wrong] = table_records(open_table(str(path)), {})
    assert right.question == "[Human]: Who directed Inception?" and wrong.answer == "Steven Spielberg."
    path = tmp_path / "summarization_data.json"
    path.write_text(json.dumps({"document": "A long article.", "right_summary": "An article.",
                                "hallucinated_summary": "A poem."}) + "\n" + '{"document": 3}\n')
    with pytest.raises(InputError, match="line 2: not a HaluEval record"):
        open_table(str(path))


def test_a_faithbench_batch_is_read_with_the_authors_worst_label_rule_and_its_spans(tmp_path, capsys):
    path = tmp_path / "batch_7.json"
    path.write_text(json.dumps(faithbench_batch(), indent=2))
    table = open_table(str(path))
    assert table.format == FAITHBENCH_FORMAT and table.count == 3
    rows = list(table.rows())
    assert [r["id"] for r in rows] == ["faithbench-7-0", "faithbench-7-1", "faithbench-7-2"]
    assert [(r["hallucinated"], r["hallucinated_strict"], r["worst_label"]) for r in rows] == [
        (True, True, "Unwanted"), (False, False, "Consistent"), (True, False, "Questionable")]
    assert rows[0]["spans"] == [{"start": 41, "end": 51, "label": "Unwanted"}]  # Benign spans never count
    assert rows[0]["model"] == "mistral-7b"
    assert main(["predict", "--judge", "offline", str(path), "-o", str(tmp_path / "out.jsonl"), "--quiet"]) == 0
    assert f"read as {FAITHBENCH_FORMAT}" in capsys.readouterr().err
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 3
    path.write_text(json.dumps({"samples": [{"sample_id": 0, "source": 5, "summary": "x", "annotations": []}]}))
    with pytest.raises(InputError, match="sample 0: source is not text"):
        open_table(str(path))


def test_whole_file_readers_split_lines_at_newlines_only_and_refuse_what_records_refuse(tmp_path):
    path = tmp_path / "qa_data.json"
    row = {**QA[1], "knowledge": "The dam is 128 metres high.\u2028It opened in 1959."}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n")
    [right, _wrong] = table_records(open_table(str(path)), {})
    assert right.context == row["knowledge"]  # U+2028 is text inside JSON, not a line break
    path.write_text(json.dumps(QA[0]) + "\n" + '{"knowledge": "k", "knowledge": "again"}\n')
    with pytest.raises(InputError, match="line 2: the key 'knowledge' appears twice"):
        open_table(str(path))


def test_a_faithbench_batch_is_read_by_the_strict_json_reader_too(tmp_path):
    path = tmp_path / "batch_1.json"
    text = json.dumps(faithbench_batch(), indent=2).replace('"sample_id": 1,', '"sample_id": 1, "sample_id": 9,', 1)
    path.write_text(text)
    with pytest.raises(InputError, match="the key 'sample_id' appears twice in one object"):
        open_table(str(path))
