"""Faults generated, not hand-picked (#39 item 5): hypothesis mutates valid records of every shape rt4chart reads
(OTLP spans, LangSmith runs, TruLens events, RAGAS and DeepEval rows, a plain log row): a field deleted, or its
value swapped for null, a boolean, a number (5,000 digits included), a string, a list, an object or a nest 3,000
deep. Whatever comes in, a reader returns records or raises an InputError (exit 2), and `rt4chart predict` ends
0, 1 or 2, never 70: when it reads the file, it writes one line per record it read and the valid record beside
the broken one is audited."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rt4chart.cli.main import main
from rt4chart.core.errors import InputError
from rt4chart.data import traces

pytestmark = pytest.mark.slow  # a few hundred CLI runs in-process: ~1 min

HUGE, DEEP = "__huge_number__", "__deep_nest__"
CONTEXT, ANSWER, QUESTION = "The bridge opened to traffic in 1998.", "It opened in 1998.", "When did the bridge open?"


def _attr(key, value):
    return {"key": key, "value": {"stringValue": value}}


def otlp(trace: str) -> dict:
    root = {"traceId": trace, "spanId": "b7ad6b7169203331", "name": "rag",
            "attributes": [_attr("openinference.span.kind", "CHAIN"), _attr("input.value", QUESTION),
                           _attr("output.value", ANSWER)]}
    retriever = {"traceId": trace, "spanId": "00f067aa0ba902b7", "parentSpanId": "b7ad6b7169203331",
                 "name": "retrieve", "attributes": [_attr("openinference.span.kind", "RETRIEVER"),
                                                    _attr("retrieval.documents.0.document.content", CONTEXT)]}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [root, retriever]}]}]}


def langsmith(trace: str) -> dict:
    return {"id": f"{trace}-root", "trace_id": trace, "run_type": "chain", "name": "rag",
            "inputs": {"question": QUESTION}, "outputs": {"output": ANSWER}, "child_runs": [
                {"id": f"{trace}-r", "run_type": "retriever", "inputs": {"query": QUESTION},
                 "outputs": {"documents": [{"page_content": CONTEXT, "metadata": {}}]}},
                {"id": f"{trace}-l", "run_type": "llm", "outputs": {"generations": [[{"text": ANSWER}]]},
                 "extra": {"metadata": {"ls_model_name": "gpt-test"}}}]}


def trulens(trace: str) -> list[dict]:
    tl = traces.TL
    root = {tl + "record_id": trace, tl + "span_type": "record_root", tl + "record_root.input": QUESTION,
            tl + "record_root.output": ANSWER}
    retrieval = {tl + "record_id": trace, tl + "span_type": "retrieval", tl + "retrieval.query_text": QUESTION,
                 tl + "retrieval.retrieved_contexts": [CONTEXT]}
    return [{"record": json.dumps({"name": "rag"}), "record_attributes": json.dumps(attrs),
             "trace": json.dumps({"span_id": span, "parent_id": parent, "trace_id": trace}),
             "start_timestamp": f"2026-12-04T10:00:0{k}"}
            for k, (attrs, span, parent) in enumerate([(root, "s1", None), (retrieval, "s2", "s1")])]


ROWS = {
    "ragas": lambda trace: {"user_input": QUESTION, "retrieved_contexts": [CONTEXT], "response": ANSWER},
    "deepeval": lambda trace: {"input": QUESTION, "actual_output": ANSWER, "retrieval_context": [CONTEXT],
                               "name": trace},
    "plain": lambda trace: {"id": trace, "context": CONTEXT, "answer": ANSWER, "question": QUESTION},
}
TRACES = {"otlp": (otlp, traces.OTLP_FORMAT), "langsmith": (langsmith, traces.LANGSMITH_FORMAT)}

odd_values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10 ** 20), max_value=10 ** 20), st.just(HUGE), st.just(DEEP),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
    st.lists(st.one_of(st.integers(), st.text(max_size=5), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=6), st.one_of(st.integers(), st.text(max_size=5), st.none()), max_size=2))


def paths(value, at=()) -> list[tuple]:
    """Every place in a JSON tree: the path of each object member and list item."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += [at + (key,)] + paths(item, at + (key,))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            found += [at + (k,)] + paths(item, at + (k,))
    elif isinstance(value, str) and value[:1] in "[{":  # a JSON column (TruLens): its inside too
        try:
            inner = json.loads(value)
        except ValueError:
            return found
        found += [at + ("<json>",) + p for p in paths(inner)]
    return found


def mutated(doc, path: tuple, value, delete: bool):
    """`doc` with the place at `path` deleted or set to `value` (a JSON column is decoded, changed, re-encoded)."""
    doc = copy.deepcopy(doc)
    if "<json>" in path:
        k = path.index("<json>")
        holder = doc
        for step in path[:k - 1]:
            holder = holder[step]
        holder[path[k - 1]] = json.dumps(mutated(json.loads(holder[path[k - 1]]), path[k + 1:], value, delete))
        return doc
    holder = doc
    for step in path[:-1]:
        holder = holder[step]
    if delete:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return doc


def as_text(doc) -> str:
    """One JSON line; the sentinels become what json.dumps cannot write (Python refuses a 5,000-digit int)."""
    return json.dumps(doc).replace(f'"{HUGE}"', "1" + "0" * 5000).replace(f'"{DEEP}"', "[" * 3000 + "]" * 3000)


@st.composite
def a_fault(draw, valid):
    places = paths(valid)
    path = draw(st.sampled_from(places))
    delete = draw(st.booleans())
    return mutated(valid, path, None if delete else draw(odd_values), delete)


def not_json(constant: str):
    raise AssertionError(f"an output line holds {constant}, which is not JSON")


def predict(tmp_path: Path, name: str, lines: list[str]) -> tuple[int, list[dict]]:
    source, out = tmp_path / name, tmp_path / f"{name}.out.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out.unlink(missing_ok=True)
    code = main(["predict", str(source), "-o", str(out), "--judge", "offline", "--quiet", "--no-cache"])
    # split at "\n" only: a reply may hold U+0085 or U+2028, which are text inside JSON, not line breaks
    written = [json.loads(x, parse_constant=not_json) for x in out.read_text(encoding="utf-8").split("\n") if x] \
        if out.exists() else []
    return code, written


FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


@pytest.mark.parametrize("shape", sorted(TRACES))
@FUZZ
@given(data=st.data())
def test_a_broken_trace_is_read_or_refused_in_one_line_and_the_valid_trace_beside_it_is_audited(shape, data,
                                                                                                 tmp_path):
    make, fmt = TRACES[shape]
    broken = data.draw(a_fault(make("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")))
    good = make("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
    text = as_text(broken) + "\n" + as_text(good) + "\n"
    try:
        records = traces.read_text(text, fmt, "spans.jsonl")
    except InputError as exc:
        assert "\n" not in str(exc)
        records = None
    code, written = predict(tmp_path, "spans.jsonl", text.splitlines())
    assert code in (0, 1, 2)
    if records is None:
        assert code == 2
    else:
        assert code in (0, 1) and len(written) == len(records)
        assert any(w["status"] == "faithful" and "bbbb" in json.dumps(w) for w in written), written


@FUZZ
@given(data=st.data())
def test_a_broken_trulens_event_is_read_or_refused_and_the_valid_record_is_audited(data, tmp_path):
    broken = [data.draw(a_fault(e)) for e in trulens("aaaa")[:1]] + trulens("aaaa")[1:]
    lines = [as_text(e) for e in broken + trulens("bbbb")]
    try:
        records = traces.read_text("\n".join(lines), traces.TRULENS_FORMAT, "events.jsonl")
    except InputError:
        records = None
    code, written = predict(tmp_path, "events.jsonl", lines)
    assert code in (0, 1, 2)
    if records is not None and code in (0, 1):
        assert len(written) == len(records)
        assert any(w["status"] == "faithful" and "bbbb" in json.dumps(w) for w in written), written


@pytest.mark.parametrize("shape", sorted(ROWS))
@FUZZ
@given(data=st.data())
def test_a_broken_row_is_audited_as_one_line_or_refused_and_the_rows_beside_it_are_audited(shape, data, tmp_path):
    make = ROWS[shape]
    broken = data.draw(a_fault(make("row-a")))
    lines = [as_text(make("row-b")), as_text(broken), as_text(make("row-c"))]
    code, written = predict(tmp_path, f"{shape}.jsonl", lines)
    assert code in (0, 1, 2)
    if code in (0, 1):
        assert len(written) == 3  # one line per record read, in order
        assert written[0]["status"] == written[2]["status"] == "faithful", written
