"""OpenInference traces as the teams' tools write them: OTLP JSON from the OpenTelemetry SDK's own encoder, read
as one record per trace, with the retrieved documents as numbered passages."""
import json

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("openinference.semconv")

from rt4chart.cli.main import main  # noqa: E402
from rt4chart.data.records import open_table, table_records  # noqa: E402
from rt4chart.data.tables import table_from_bytes  # noqa: E402
from rt4chart.data.traces import OTLP_FORMAT  # noqa: E402

from .traces_made import QUESTIONS, otlp_json, recorded  # noqa: E402


@pytest.mark.parametrize("hex_ids", [True, False], ids=["otlp-json-hex-ids", "protobuf-json-base64-ids"])
def test_an_otlp_export_is_one_record_per_trace_with_its_documents_as_passages(tmp_path, hex_ids):
    spans = recorded()
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(otlp_json(spans, hex_ids)) + "\n")
    table = open_table(str(path))
    assert table.format == OTLP_FORMAT and table.count == 3
    records = list(table_records(table, {}))
    roots = {format(s.context.trace_id, "032x"): format(s.context.span_id, "016x") for s in spans if s.parent is None}
    assert [r.id for r in records] == list(roots)  # the trace ids, in the order the traces were made
    first = records[0]
    assert first.question == QUESTIONS[0][0] and first.answer == QUESTIONS[0][2]
    assert first.context == ("Passage 1: Atlas page 1. The Kariba dam is 128 metres high.\n\n"
                             "Passage 2: Atlas page 2. It was completed in 1959.")
    assert first.extra["model"] == "gpt-test" and first.extra["span_id"] == roots[first.id]
    assert first.extra["timestamp"].startswith("20")


def test_predict_reads_an_otlp_file_says_so_and_audits_every_trace(tmp_path, capsys):
    path = tmp_path / "traces.json"  # one request, pretty-printed, as a single .json file
    path.write_text(json.dumps(otlp_json(recorded()), indent=2))
    assert main(["predict", "--judge", "offline", str(path), "-o", str(tmp_path / "out.jsonl"), "--quiet"]) == 0
    assert f"read as {OTLP_FORMAT}" in capsys.readouterr().err
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [x["status"] for x in lines] == ["faithful", "hallucinated", "faithful"]  # 2001 is not 14 May 1998


def test_many_requests_one_per_line_and_a_trace_split_across_them_are_read_whole(tmp_path):
    spans = recorded()
    per_span = [otlp_json([s]) for s in spans]  # a collector writes a request per batch: here one per span
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in per_span))
    records = list(table_records(open_table(str(path)), {}))
    assert len(records) == 3 and records[1].answer == QUESTIONS[1][2]


def test_a_trace_without_a_retriever_or_an_answer_is_refused_with_its_trace_id(tmp_path):
    spans = [s for s in recorded() if s.name != "retrieve"]
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(otlp_json(spans)) + "\n")
    with pytest.raises(Exception, match="has no RETRIEVER span"):
        open_table(str(path))
    no_answer = [s for s in recorded(root_output=False) if s.name != "generate"]
    path.write_text(json.dumps(otlp_json(no_answer)) + "\n")
    with pytest.raises(Exception, match="has no answer"):
        open_table(str(path))


def test_without_the_root_output_the_last_llm_spans_answer_is_taken_and_uploads_read_alike(tmp_path):
    data = (json.dumps(otlp_json(recorded(root_output=False))) + "\n").encode()
    table = table_from_bytes(data, "traces.jsonl")
    assert table.format == OTLP_FORMAT
    assert [r.answer for r in table_records(table, {})] == [q[2] for q in QUESTIONS]


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_the_app_reads_an_uploaded_trace_export_says_so_and_audits_each_trace():
    from .test_app import app, click, upload, visible_text

    data = (json.dumps(otlp_json(recorded())) + "\n").encode()
    at = app()
    at.switch_page("app_pages/batch.py").run()
    at = upload(at, "traces.jsonl", data)
    assert f"traces.jsonl was read as {OTLP_FORMAT}: 3 traces" in visible_text(at)
    assert at.selectbox(key="w.map.context").value == "context"
    at = click(at, "Run batch audit")
    results = at.session_state["rt4.results"]
    assert len(results.rows) == 3
    statuses = sorted(r.status for r in results.reports.values())
    assert statuses == ["faithful", "faithful", "hallucinated"]


def test_a_file_in_a_known_shape_is_read_whole_by_every_engine_and_a_plain_one_is_split(tmp_path):
    """One list of shapes (data.tables.shapes) decides both how a file is read and whether Dask workers may split
    it: a trace export is read whole as traces, never planned into partitions; a plain JSONL is planned."""
    import json

    from rt4chart.batch.partitions import plannable
    from rt4chart.data.tables import open_table, shape_of, table_from_bytes

    trace = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "t1", "spanId": "a1", "name": "rag", "attributes": [
            {"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}},
            {"key": "input.value", "value": {"stringValue": "When did it open?"}},
            {"key": "output.value", "value": {"stringValue": "It opened in 1998."}}]},
        {"traceId": "t1", "spanId": "b2", "parentSpanId": "a1", "name": "r", "attributes": [
            {"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}},
            {"key": "retrieval.documents.0.document.content", "value": {"stringValue": "It opened in 1998."}}]}]}]}]}
    traces_file, plain_file = tmp_path / "spans.jsonl", tmp_path / "plain.jsonl"
    traces_file.write_text(json.dumps(trace) + "\n")
    plain_file.write_text(json.dumps({"id": "r1", "context": "It opened in 1998.", "answer": "It opened in 1998."}) + "\n")
    found = shape_of(str(traces_file))
    assert found is not None and found[0].kind == "traces"
    assert open_table(str(traces_file)).kind == "traces" and not plannable(str(traces_file))
    assert table_from_bytes(traces_file.read_bytes(), "spans.jsonl").kind == "traces"
    assert shape_of(str(plain_file)) is None and open_table(str(plain_file)).kind == "jsonl" and plannable(str(plain_file))
