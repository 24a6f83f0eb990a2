"""Traces of odd shapes are read or refused in one line naming where (an InputError: exit 2), never a
traceback: every field is checked where it enters, at any depth."""
from __future__ import annotations

import copy
import json

import pytest

from rt4chart.core.errors import InputError
from rt4chart.data import traces

TRACE = "0af7651916cd43dd8448eb211c80319c"


def _attr(key, value):
    return {"key": key, "value": value}


def otlp() -> dict:
    root = {"traceId": TRACE, "spanId": "b7ad6b7169203331", "name": "rag",
            "attributes": [_attr("openinference.span.kind", {"stringValue": "CHAIN"}),
                           _attr("input.value", {"stringValue": "When did the bridge open?"}),
                           _attr("output.value", {"stringValue": "It opened in 1998."})]}
    retriever = {"traceId": TRACE, "spanId": "00f067aa0ba902b7", "parentSpanId": "b7ad6b7169203331",
                 "name": "retrieve",
                 "attributes": [_attr("openinference.span.kind", {"stringValue": "RETRIEVER"}),
                                _attr("retrieval.documents.0.document.content",
                                      {"stringValue": "The bridge opened to traffic in 1998."})]}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [root, retriever]}]}]}


def read_otlp(doc: dict) -> list[dict]:
    return traces.read_text(json.dumps(doc), traces.OTLP_FORMAT, "spans.json")


def with_attribute(value) -> dict:
    doc = otlp()
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(_attr("llm.token_count.total", value))
    return doc


def test_the_plain_trace_is_one_record():
    [record] = read_otlp(otlp())
    assert record["answer"] == "It opened in 1998." and "1998" in json.dumps(record["context"])


@pytest.mark.parametrize("value, read", [({"intValue": "12"}, 12), ({"intValue": 12}, 12), ({"arrayValue": [
    {"stringValue": "a"}]}, ["a"]), ({"arrayValue": {"values": [{"intValue": "3"}]}}, [3]), (None, None)])
def test_values_in_either_json_mapping_are_read(value, read):
    spans = list(traces.otlp_spans(with_attribute(value), "spans.json"))
    assert spans[0].attributes["llm.token_count.total"] == read


@pytest.mark.parametrize("value, said", [
    (5, "AnyValue object"), ("twelve", "AnyValue object"), ({"intValue": "twelve"}, "not a 64-bit integer"),
    ({"intValue": "1.5"}, "not a 64-bit integer"), ({"intValue": None}, "not a 64-bit integer"),
    ({"intValue": "9" * 5000}, "not a 64-bit integer"), ({"intValue": str(1 << 63)}, "outside the 64-bit range"),
    ({"kvlistValue": {"values": [{"value": {"stringValue": "x"}}]}}, "without a key"),
    ({"arrayValue": {"values": "abc"}}, "must hold a list"),
])
def test_a_malformed_value_is_refused_naming_its_attribute(value, said):
    with pytest.raises(InputError, match=said) as caught:
        read_otlp(with_attribute(value))
    assert "llm.token_count.total" in str(caught.value) and "spans.json" in str(caught.value)


def test_a_value_nested_too_deeply_is_refused():
    value: dict = {"stringValue": "x"}
    for _ in range(traces.MAX_VALUE_DEPTH + 2):
        value = {"arrayValue": {"values": [value]}}
    with pytest.raises(InputError, match="nests more than"):
        read_otlp(with_attribute(value))


@pytest.mark.parametrize("mutate, said", [
    (lambda d: d["resourceSpans"].insert(0, "resource"), "resourceSpans item 1 is not an object"),
    (lambda d: d["resourceSpans"][0]["scopeSpans"].insert(0, "scope"), "scopeSpans item 1 is not an object"),
    (lambda d: d["resourceSpans"][0].update(scopeSpans="spans"), "scopeSpans must be a list"),
    (lambda d: d["resourceSpans"][0]["scopeSpans"][0].update(spans={"a": 1}), "spans must be a list"),
    (lambda d: d["resourceSpans"][0]["scopeSpans"][0]["spans"][0].update(attributes="x"), "attributes must be a list"),
])
def test_containers_of_the_wrong_kind_are_refused_naming_where(mutate, said):
    doc = otlp()
    mutate(doc)
    with pytest.raises(InputError, match=said):
        read_otlp(doc)


def langsmith(**changes) -> list[dict]:
    root = {"id": "r1", "trace_id": "t1", "run_type": "chain", "name": "rag", "inputs": {"question": "When?"},
            "outputs": {"output": "It opened in 1998."}, "child_runs": [
                {"id": "r2", "run_type": "retriever", "inputs": {"query": "When?"},
                 "outputs": {"documents": [{"page_content": "The bridge opened in 1998.", "metadata": {}}]}},
                {"id": "r3", "run_type": "llm", "outputs": {"generations": [[{"text": "It opened in 1998."}]]},
                 "extra": {"metadata": {"ls_model_name": "gpt-test"}}}]}
    for path, value in changes.items():
        target = root
        *parents, last = path.split("__")
        for step in parents:
            target = target[int(step)] if step.isdigit() else target[step]
        target[last] = value
    return traces.read_text(json.dumps(root), traces.LANGSMITH_FORMAT, "runs.jsonl")


@pytest.mark.parametrize("change", [{"child_runs__1__extra__metadata": None}, {"child_runs__1__extra": ["x"]},
                                    {"child_runs__1__extra": "x"}, {"child_runs__1__outputs__generations": {"a": 1}},
                                    {"child_runs__1__outputs": "text"}, {"inputs": None}])
def test_langsmith_runs_of_odd_shapes_are_read(change):
    [record] = langsmith(**change)
    assert record["answer"] == "It opened in 1998." and "1998" in json.dumps(record["context"])


def test_a_trulens_column_nested_too_deeply_is_one_line_not_a_recursion_error():
    deep = "[" * 3000 + "]" * 3000
    event = {"record_attributes": deep, "trace": "{}", "record": "{}"}
    with pytest.raises(InputError, match="nests deeper"):
        traces.read_text(json.dumps(event), traces.TRULENS_FORMAT, "events.jsonl")


def test_a_phoenix_span_whose_attributes_are_not_an_object_reads_without_them():
    row = {"context": {"trace_id": TRACE, "span_id": "s1"}, "attributes": ["x"], "span_kind": "CHAIN", "name": "r"}
    span = traces.phoenix_span(copy.deepcopy(row))
    assert span.trace_id == TRACE and span.kind == "CHAIN"
