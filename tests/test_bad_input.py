"""Bad input gets a clear, actionable error and loses nothing."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rt4chart import audit
from rt4chart.core.types import AuditReport
from rt4chart.data.records import InputError, read_records

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rt4chart", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "RT4CHART_CACHE_DIR": str(cwd or ROOT),
                               "RT4CHART_DATA_DIR": os.environ["RT4CHART_DATA_DIR"]})


def test_a_tsv_is_read_by_its_extension_and_a_semicolon_csv_by_an_explicit_delimiter(tmp_path):
    (tmp_path / "a.csv").write_text("id;context;answer\n1;The sky is blue.;The sky is blue.\n")
    (tmp_path / "b.tsv").write_text("id\tcontext\tanswer\n1\tThe sky is blue.\tThe sky is blue.\n")
    assert [(r.id, r.answer) for r in read_records(str(tmp_path / "b.tsv"))] == [("1", "The sky is blue.")]
    assert [(r.id, r.answer) for r in read_records(str(tmp_path / "a.csv"), delimiter=";")] == [
        ("1", "The sky is blue.")]
    with pytest.raises(InputError, match="separated by semicolons.*--delimiter ';'"):
        read_records(str(tmp_path / "a.csv"))  # never guessed from the content


def test_missing_columns_are_named_with_the_columns_found(tmp_path):
    (tmp_path / "x.csv").write_text("id,text,reply\n1,a,b\n")
    with pytest.raises(InputError) as err:
        read_records(str(tmp_path / "x.csv"))
    message = str(err.value)
    assert "no column for context and answer" in message and "Columns found: id, text, reply" in message


def test_duplicate_ids_empty_rows_and_nan_text_lose_nothing(tmp_path):
    (tmp_path / "x.csv").write_text("id,context,answer,question\n1,C one.,A one.,\n,,,\n1,C two.,A two.,\n"
                                    "2,nan,A three.,Why?\n")
    records = read_records(str(tmp_path / "x.csv"))
    # the empty row is a record too (row 2); its row number is an id that row 4 gives, so it takes "2#2"
    assert [r.id for r in records] == ["1", "2#2", "1#2", "2"]
    assert [r.row for r in records] == [1, 2, 3, 4]
    assert records[2].renamed_from == "1" and records[1].renamed_from is None and records[3].renamed_from is None
    assert records[0].question is None and records[1].answer == ""
    assert records[3].context == "nan" and records[3].question == "Why?"  # text is kept as written


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_a_non_utf8_file_names_the_likely_encoding(tmp_path, encoding):
    path = tmp_path / "x.csv"
    path.write_bytes("id,context,answer\n1,café crème brûlée déjà vu,résumé naïve\n".encode(encoding))
    with pytest.raises(InputError, match="UTF-8|binary"):
        read_records(str(path))


def test_binary_garbage_is_refused(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(InputError, match="binary"):
        read_records(str(path))


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": 1, "context": "a", "answer": "b"}\n{"id": 2, "context": \n')
    with pytest.raises(InputError, match=r"x.jsonl: line 2: not valid JSON"):
        read_records(str(path))


def test_an_extremely_long_cell_is_read_whole(tmp_path):
    context = "The river is long. " * 100_000
    (tmp_path / "x.csv").write_text(f'id,context,answer\n1,"{context}",The river is long.\n')
    [record] = read_records(str(tmp_path / "x.csv"))
    assert record.context == context


@pytest.mark.parametrize("answer", ["", "   \n\t", "?!...;;", "كانت المدينة جميلة جدا. ", "Der Zug 🚄 fährt um 5 Uhr. 東京は大きい。",
                                    " ".join(["word"] * 20_000)])
def test_odd_texts_give_a_report_with_valid_offsets(answer):
    report = audit("Der Zug fährt um 5 Uhr. كانت المدينة جميلة. 東京は大きい。", answer)
    for claim in report.claims:
        for span in claim.claim.spans + claim.hallucinated_spans:
            assert 0 <= span.start < span.end <= len(answer)
    assert AuditReport.from_json(report.to_json()) == report


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300), st.text(max_size=200), st.one_of(st.none(), st.text(max_size=50)))
def test_any_unicode_input_audits_with_in_bounds_spans_and_evidence(context, answer, question):
    report = audit(context, answer, question)
    for result in report.claims:
        for span in result.claim.spans + result.hallucinated_spans:
            assert 0 <= span.start < span.end <= len(answer)
        for ev in result.evidence:
            assert context[ev.start:ev.end] == ev.text
    for span in report.spans:
        assert 0 <= span.start < span.end <= len(answer)


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_cli_says_one_clear_line_and_shows_no_traceback(tmp_path):
    (tmp_path / "x.csv").write_text("id,text\n1,a\n")
    result = cli("predict", "--judge", "offline",
                 str(tmp_path / "x.csv"), "-o", str(tmp_path / "o.jsonl"), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "no column for context and answer" in result.stderr
    debug = cli("predict", "--judge", "offline",
                str(tmp_path / "x.csv"), "-o", str(tmp_path / "o.jsonl"), "--debug", cwd=tmp_path)
    assert "Traceback" in debug.stderr


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_duplicate_id_is_reported_on_stderr_and_kept(tmp_path):
    (tmp_path / "x.jsonl").write_text("\n".join(json.dumps({"id": "a", "context": "X is 1.", "answer": "X is 1."})
                                                for _ in range(2)))
    result = cli("predict", "--judge", "offline",
                 str(tmp_path / "x.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--quiet", cwd=tmp_path)
    assert result.returncode == 0 and "repeated ids" in result.stderr
    assert [json.loads(x)["id"] for x in (tmp_path / "o.jsonl").read_text().splitlines()] == ["a", "a#2"]


@pytest.mark.parametrize("name, data, message", [
    ("report.pdf", b"%PDF-1.4 binary", "unsupported file type"),
    ("empty.csv", b"   \n", "is empty"),
    ("latin.csv", "id,context,answer\n1,café,crème\n".encode("latin-1"), "not valid UTF-8"),
    ("blob.jsonl", b"\x00\x01\x02" * 100, "binary"),
    ("huge.csv", b"x" * 26_000_001, "up to 25 MB"),
])
def test_the_dashboard_upload_reader_refuses_bad_files_with_a_message(name, data, message):
    pytest.importorskip("streamlit")
    from app_pages._shared import read_upload

    with pytest.raises(InputError, match=message):
        read_upload(name, data)


def test_parquet_input_is_streamed_like_jsonl(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"id": ["a", "b"], "context": ["X is 1.", "Y is 2."], "answer": ["X is 1.", "Y is 3."]})
    pq.write_table(table, tmp_path / "x.parquet")
    records = read_records(str(tmp_path / "x.parquet"))
    assert [(r.id, r.answer) for r in records] == [("a", "X is 1."), ("b", "Y is 3.")]
    (tmp_path / "fake.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        read_records(str(tmp_path / "fake.parquet"))


RAGAS_ROW = {"user_input": "When did the bridge open?", "retrieved_contexts": [
    "The Lindqvist bridge opened to traffic on 14 May 1998 after four years of work.", "It is 1,240 metres long."],
    "response": "It opened in 1998, according to passage 2.", "reference": "The bridge opened on 14 May 1998."}
DEEPEVAL_ROW = {"input": "When did the bridge open?", "actual_output": "It opened in 1998.",
                "expected_output": "On 14 May 1998.", "context": ["The bridge opened on 14 May 1998."],
                "retrieval_context": [{"page_content": "The Lindqvist bridge opened in 1998.",
                                       "metadata": {"title": "Bridge history"}}, {"text": "It is 1,240 metres long."}]}


@pytest.mark.parametrize("row, context_column", [(RAGAS_ROW, "retrieved_contexts"), (DEEPEVAL_ROW, "retrieval_context")])
def test_ragas_and_deepeval_records_are_audited_against_what_the_retriever_gave_as_numbered_passages(
        tmp_path, row, context_column):
    from rt4chart.data.columns import detect_columns

    # were: RAGAS' `reference` (the reference answer) and DeepEval's `context` (the ideal context) as the context
    assert detect_columns(list(row), [row])["context"] == context_column
    (tmp_path / "logs.jsonl").write_text(json.dumps(row) + "\n")
    [record] = read_records(str(tmp_path / "logs.jsonl"))
    assert record.context.startswith("Passage 1: ") and "\n\nPassage 2: It is 1,240 metres long." in record.context
    assert "[" not in record.context  # the list was one JSON blob
    if context_column == "retrieval_context":
        assert record.context.startswith("Passage 1: Bridge history. The Lindqvist bridge")
    else:  # the answer cites passage 2, which does not say it: the citation check sees the passages
        assert audit(record.context, record.answer, record.question).claims[0].verdict.value == "contradicted"


def test_the_cli_says_which_evaluation_format_it_recognised(tmp_path, capsys):
    from rt4chart.cli.main import main

    (tmp_path / "ragas.jsonl").write_text(json.dumps(RAGAS_ROW) + "\n")
    assert main(["predict", "--judge", "offline",
                 str(tmp_path / "ragas.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--quiet"]) == 0
    assert ("read as RAGAS EvaluationDataset (context: retrieved_contexts, answer: response, question: user_input)"
            in capsys.readouterr().err)


def ragtruth_folder(folder: Path) -> Path:
    """RAGTruth's two files as its README documents them (a QA, a summary and a data-to-text source)."""
    folder.mkdir()
    sources = [
        {"source_id": "14312", "task_type": "QA", "source": "MARCO", "prompt": "…", "source_info": {
            "question": "how long is the bridge", "passages": "passage 1:The Lindqvist bridge opened in 1998.\n\n"
                                                              "passage 2:It is 1,240 metres long.\n\n"}},
        {"source_id": "11316", "task_type": "Summary", "source": "CNN/DM", "prompt": "…",
         "source_info": "The museum reopened on Monday after a two-year renovation. It cost 40 million euros.\n"},
        {"source_id": "13661", "task_type": "Data2txt", "source": "Yelp", "prompt": "…",
         "source_info": {"name": "Subway", "city": "Santa Barbara", "business_stars": 3.0}}]
    responses = [
        {"id": "1", "source_id": "14312", "model": "gpt-4-0613", "temperature": 0.7, "labels": [], "split": "test",
         "quality": "good", "response": "The bridge is 1,240 metres long, according to passage 2."},
        {"id": "2", "source_id": "11316", "model": "llama-2-7b-chat", "temperature": 0.9, "split": "test",
         "quality": "good", "response": "The museum reopened after a renovation that cost 60 million euros.",
         "labels": [{"start": 50, "end": 67, "text": "60 million euros", "meta": "", "label_type": "Evident Conflict"}]},
        {"id": "3", "source_id": "13661", "model": "mistral-7B-instruct", "temperature": 0.9, "labels": [],
         "split": "test", "quality": "good", "response": "Subway is a sandwich shop in Santa Barbara."}]
    (folder / "source_info.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sources))
    (folder / "response.jsonl").write_text("".join(json.dumps(r) + "\n" for r in responses))
    return folder


def test_ragtruth_as_downloaded_is_read_from_its_folder_or_its_response_file(tmp_path, capsys):
    from rt4chart.cli.main import main

    folder = ragtruth_folder(tmp_path / "RAGTruth")
    for path in (folder, folder / "response.jsonl"):
        records = read_records(str(path))
        assert [r.id for r in records] == ["1", "2", "3"]
        assert records[0].question == "how long is the bridge" and records[0].context.startswith("passage 1:")
        assert records[1].context.startswith("The museum reopened") and '"city": "Santa Barbara"' in records[2].context
        assert records[1].extra["hallucinated"] is True and records[1].extra["spans"][0]["label"] == "Evident Conflict"
    assert main(["predict", "--judge", "offline", str(folder), "-o", str(tmp_path / "o.jsonl"), "--quiet"]) == 0
    assert "read as RAGTruth (response.jsonl + source_info.jsonl)" in capsys.readouterr().err
    lines = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == ["1", "2", "3"] and lines[1]["status"] == "hallucinated"
    assert main(["bench", "--judge", "offline",
                 str(folder), "--quiet"]) == 0  # scored against the labels in response.jsonl
    assert "n=3 (gold positives=1, negatives=2)" in capsys.readouterr().out


def test_a_ragtruth_response_without_its_source_is_refused_with_its_line(tmp_path):
    folder = ragtruth_folder(tmp_path / "RAGTruth")
    with (folder / "response.jsonl").open("a") as handle:
        handle.write(json.dumps({"id": "4", "source_id": "999", "response": "x", "labels": []}) + "\n")
    with pytest.raises(InputError, match=r"response.jsonl: line 4: source_id '999' is not in"):
        read_records(str(folder))


def test_a_json_file_holding_one_object_is_refused_with_the_shapes_that_are_read(tmp_path):
    from rt4chart.data.records import open_table

    path = tmp_path / "config.json"
    path.write_text('{\n  "model": "x",\n  "rows": 3\n}\n')
    with pytest.raises(InputError, match="holds one JSON object \\(model, rows\\), not records: give a JSON array"):
        open_table(str(path))
    path.write_text('[\n {"context": "The dam is 40 m high.", "answer": "It is 40 m high."}\n]\n')
    assert open_table(str(path)).count == 1  # an array of records is read


def test_a_single_byte_file_is_shown_as_each_likely_code_page_reads_it_never_converted_by_a_guess():
    from rt4chart.data.tables import decode_bytes

    with pytest.raises(InputError) as caught:
        decode_bytes("id,context\n1,Café à la carte\n".encode("latin-1"), "menu.csv")
    message = str(caught.value)
    assert "cp1252: '1,Café à la carte'" in message and "cp1250: '1,Café ŕ la carte'" in message
    assert "iconv -f CODEPAGE -t utf-8 menu.csv" in message and "\n" not in message


def test_an_input_appended_to_during_a_run_is_said_to_have_changed_not_called_a_bug(tmp_path):
    from rt4chart.data.tables import open_table

    path = tmp_path / "rows.jsonl"
    path.write_text('{"context": "c", "answer": "a"}\n')
    table = open_table(str(path))
    with path.open("a") as fh:
        fh.write('{"context": "c2", "answer": "a2"}\n')
    with pytest.raises(InputError, match="the file changed while it was read") as caught:
        list(table.rows())
    assert "please report" not in str(caught.value)
