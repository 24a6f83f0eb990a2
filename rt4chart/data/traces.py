"""RAG traces as the teams' tracing tools keep them: OpenTelemetry OTLP JSON in the OpenInference conventions
(what an OTel collector's file exporter writes: one `{"resourceSpans": [...]}` request per line, or one per
file), Arize Phoenix spans (`get_spans_dataframe()` saved as Parquet or JSONL, columns `context.trace_id`,
`span_kind`, `attributes.*`; or its REST spans, `rt4chart phoenix pull`), LangSmith runs (`list_runs()` or
LangChain's tracers, one run per line, flat with `parent_run_id` or nested in `child_runs`) and TruLens'
OpenTelemetry events (its `default.sqlite`, or `get_events()` saved as JSONL or Parquet), read as spans.

One trace is one record: the question is the root span's `input.value`, the passages are the documents of
its RETRIEVER spans (`retrieval.documents.N.document.content`, with their ids, scores and metadata), in the
order they were retrieved, and the answer is the root span's `output.value` (or, when the root has none, the
last LLM span's). Its id is the trace id; the root span id, the model (`llm.model_name`) and the start time
come along, so verdicts can be written back to the spans they judge. A trace without a retriever or without
an answer is refused with its trace id: nothing is audited against an empty context by mistake."""
from __future__ import annotations

import base64
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Optional

from rt4chart.core.errors import InputError
from rt4chart.data.json_records import json_document, json_lines

OTLP_FORMAT = "OpenTelemetry OTLP JSON spans (OpenInference)"
PHOENIX_FORMAT = "Arize Phoenix spans (OpenInference)"
LANGSMITH_FORMAT = "LangSmith runs"
TRULENS_FORMAT = "TruLens OpenTelemetry events"
TL = "ai.observability."
COLUMNS = ["id", "context", "answer", "question", "model", "timestamp", "trace_id", "span_id", "retriever_span_ids"]
KIND = "openinference.span.kind"
DOCS = "retrieval.documents"


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: Optional[str]
    name: str
    start: str                       # ISO 8601, UTC
    attributes: dict[str, Any] = field(default_factory=dict)   # dotted keys, as OpenInference names them

    @property
    def kind(self) -> str:
        return str(self.attributes.get(KIND) or "").upper()


def _hex_id(value: Any, size: int) -> str:
    """A trace (16 bytes) or span (8 bytes) id as hex: OTLP JSON writes hex, protobuf's JSON mapping base64."""
    text = str(value or "")
    if len(text) == 2 * size and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return text
    return raw.hex() if len(raw) == size else text


_INT64 = re.compile(r"-?\d{1,19}")
MAX_VALUE_DEPTH = 32  # arrays and key-value lists inside one attribute


def _int64(value: Any, where: str) -> int:
    """An OTLP intValue: a 64-bit integer, written as a string in OTLP JSON (or as a JSON integer)."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INT64.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        raise InputError(f"{where}: intValue {str(value)[:40]!r} is not a 64-bit integer")
    if not -(1 << 63) <= number < (1 << 63):
        raise InputError(f"{where}: intValue {str(value)[:40]!r} is outside the 64-bit range")
    return number


def _items(container: Any, where: str, field: str) -> list:
    """The `values` of an arrayValue or kvlistValue (an object holding the list, or the bare list)."""
    items = container.get("values", []) if isinstance(container, dict) else container
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError(f"{where}: {field} must hold a list of values, not {type(items).__name__}")
    return items


def _otlp_value(value: Any, where: str, depth: int = 0) -> Any:
    """An OTLP AnyValue (`{"stringValue": …}`, `{"intValue": "12"}`, arrays, key-value lists) as a Python value."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{where}: a value must be an OTLP AnyValue object such as {{\"stringValue\": …}}, not "
                         f"{type(value).__name__}")
    if depth > MAX_VALUE_DEPTH:
        raise InputError(f"{where}: the value nests more than {MAX_VALUE_DEPTH} arrays or lists deep")
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return _int64(value["intValue"], where)
    if "arrayValue" in value:
        return [_otlp_value(v, where, depth + 1) for v in _items(value["arrayValue"], where, "arrayValue")]
    if "kvlistValue" in value:
        out = {}
        for kv in _items(value["kvlistValue"], where, "kvlistValue"):
            if not isinstance(kv, dict) or "key" not in kv:
                raise InputError(f"{where}: a kvlistValue item without a key")
            out[str(kv["key"])] = _otlp_value(kv.get("value"), f"{where}.{kv['key']}", depth + 1)
        return out
    return None


def _list_field(obj: dict, where: str, *names: str) -> list:
    """The first of `names` that `obj` holds, which must be a list (absent or null: empty)."""
    for name in names:
        value = obj.get(name)
        if value is not None:
            if not isinstance(value, list):
                raise InputError(f"{where}: {name} must be a list, not {type(value).__name__}")
            return value
    return []


def _iso_of_nanos(nanos: Any) -> str:
    try:
        return datetime.fromtimestamp(int(nanos) / 1e9, tz=timezone.utc).isoformat()
    except (TypeError, ValueError, OverflowError):
        return ""


def otlp_spans(request: dict, where: str) -> Iterator[Span]:
    """The spans of one OTLP ExportTraceServiceRequest in JSON."""
    resource_spans = request.get("resourceSpans")
    if not isinstance(resource_spans, list):
        raise InputError(f"{where}: not an OTLP trace export (no resourceSpans list)")
    for r, resource in enumerate(resource_spans, 1):
        at = f"{where}: resourceSpans item {r}"
        if not isinstance(resource, dict):
            raise InputError(f"{at} is not an object")
        for k, scope in enumerate(_list_field(resource, at, "scopeSpans", "instrumentationLibrarySpans"), 1):
            if not isinstance(scope, dict):
                raise InputError(f"{at}: scopeSpans item {k} is not an object")
            for s in _list_field(scope, f"{at}: scopeSpans item {k}", "spans"):
                if not isinstance(s, dict) or not s.get("traceId") or not s.get("spanId"):
                    raise InputError(f"{where}: a span without traceId/spanId")
                span_at = f"{where}: span {str(s['spanId'])[:32]}"
                attributes = {str(a["key"]): _otlp_value(a.get("value"), f"{span_at}: attribute {str(a['key'])[:60]!r}")
                              for a in _list_field(s, span_at, "attributes") if isinstance(a, dict) and "key" in a}
                parent = s.get("parentSpanId")
                yield Span(_hex_id(s["traceId"], 16), _hex_id(s["spanId"], 8), _hex_id(parent, 8) if parent else None,
                           str(s.get("name", "")), _iso_of_nanos(s.get("startTimeUnixNano")), attributes)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def phoenix_span(row: dict) -> Span:
    """A span of Phoenix: a row of its spans table (`get_spans_dataframe()`: `context.trace_id`,
    `attributes.*` columns), or a span of its REST API (`get_spans()`: `context` and `attributes` objects)."""
    if isinstance(row.get("context"), dict):
        context = row["context"]
        attributes_in = row.get("attributes")
        row = {**{f"attributes.{k}": v for k, v in (attributes_in if isinstance(attributes_in, dict) else {}).items()},
               **{k: v for k, v in row.items() if k not in ("context", "attributes")},
               "context.trace_id": context.get("trace_id"), "context.span_id": context.get("span_id")}
    attributes = {k[len("attributes."):]: v for k, v in row.items() if k.startswith("attributes.") and not _missing(v)}
    if row.get("span_kind") and KIND not in attributes:
        attributes[KIND] = row["span_kind"]
    start: Any = row.get("start_time")
    start_text = start.isoformat() if start is not None and hasattr(start, "isoformat") else str(start or "")
    return Span(str(row.get("context.trace_id") or ""), str(row.get("context.span_id") or ""),
                str(row["parent_id"]) if row.get("parent_id") else None, str(row.get("name") or ""), start_text,
                attributes)


_QUESTION_KEYS = ("question", "input", "query", "user_input", "prompt")
_ANSWER_KEYS = ("output", "answer", "result", "response", "text")


def _text_in(values: Any, keys: tuple[str, ...]) -> Optional[str]:
    """The run's text under one of `keys`, or its only text value."""
    if isinstance(values, str):
        return values
    if not isinstance(values, dict):
        return None
    for key in keys:
        if isinstance(values.get(key), str) and values[key].strip():
            return values[key]
    texts = [v for v in values.values() if isinstance(v, str) and v.strip()]
    return texts[0] if len(texts) == 1 else None


def _list(value: Any) -> list:
    """A field that should hold a list: its items, or none when it holds anything else (a run with no
    documents or children is read as such; what is then missing, e.g. its context, is said by the caller)."""
    return value if isinstance(value, list) else []


def langsmith_runs(run: dict) -> Iterator[dict]:
    """A run and its nested `child_runs` (an export of run trees), flattened."""
    yield run
    for child in _list(run.get("child_runs")):
        if isinstance(child, dict):
            yield from langsmith_runs({**child, "trace_id": child.get("trace_id") or run.get("trace_id"),
                                       "parent_run_id": child.get("parent_run_id") or run.get("id")})


# Complex on purpose: LangSmith runs are untrusted input in several shapes (documents as objects or
# strings, generations nested two ways); every field is checked where it is read.
def langsmith_span(run: dict) -> Span:
    """A LangSmith run (`Client.list_runs()`, LangChain's tracers) as an OpenInference span: a `retriever` run's
    `outputs.documents` (LangChain Documents: page_content, metadata) are its documents; an `llm` run's
    generation is its output."""
    kind = {"retriever": "RETRIEVER", "llm": "LLM", "chat_model": "LLM"}.get(str(run.get("run_type")), "CHAIN")
    attributes: dict[str, Any] = {KIND: kind}
    question = _text_in(run.get("inputs"), _QUESTION_KEYS)
    if question:
        attributes["input.value"] = question
    outputs = run.get("outputs") or {}
    if kind == "RETRIEVER" and isinstance(outputs, dict):
        attributes[DOCS] = [{"document.content": d.get("page_content"), "document.metadata": d.get("metadata"),
                             "document.id": d.get("id")} for d in _list(outputs.get("documents")) if isinstance(d, dict)]
    elif kind == "LLM" and isinstance(outputs, dict) and isinstance(outputs.get("generations"), list) \
            and outputs["generations"]:
        first = outputs["generations"][0]
        first = first[0] if isinstance(first, list) and first else first
        if isinstance(first, dict) and isinstance(first.get("text"), str):
            attributes["output.value"] = first["text"]
    else:
        answer = _text_in(outputs, _ANSWER_KEYS)
        if answer:
            attributes["output.value"] = answer
    model = _field(run, "extra", "metadata", "ls_model_name")
    if isinstance(model, str) and model:
        attributes["llm.model_name"] = model
    return Span(str(run.get("trace_id") or run.get("id")), str(run.get("id")),
                str(run["parent_run_id"]) if run.get("parent_run_id") else None, str(run.get("name") or ""),
                str(run.get("start_time") or ""), attributes)


def _field(obj: Any, *path: str) -> Any:
    """obj[path[0]][path[1]]…, or None where a step is missing or not an object."""
    for name in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(name)
    return obj


def _json_field(value: Any, where: str = "a TruLens event") -> Any:
    """A JSON column of a TruLens event, parsed as every JSON input is (its depth guard included); text that is
    not JSON reads as an empty object."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        parsed = json_document(value, where, strict=False)
        return parsed if parsed is not None else {}
    return value if value is not None else {}


# Complex on purpose: a TruLens event is untrusted input in several shapes (JSON text or objects, three span
# types, documents under two names); every field is checked where it is read, and what is not a span is None.
def trulens_span(event: dict) -> Optional[Span]:
    """A TruLens event (its `trulens_events` table, or `get_events()` saved): a span of one record; the record id
    groups a record's spans (`ai.observability.record_id`). None for an event that is not a span."""
    attrs = _json_field(event.get("record_attributes"))
    trace = _json_field(event.get("trace"))
    record = _json_field(event.get("record"))
    if not isinstance(attrs, dict) or not attrs.get(TL + "record_id") or not isinstance(trace, dict):
        return None
    span_type = str(attrs.get(TL + "span_type") or "")
    kind = {"retrieval": "RETRIEVER", "generation": "LLM", "record_root": "CHAIN"}.get(span_type, "CHAIN")
    attributes: dict[str, Any] = {KIND: kind}
    if span_type == "retrieval":
        contexts = attrs.get(TL + "retrieval.retrieved_contexts") or attrs.get("gen_ai.retrieval.documents") or []
        attributes[DOCS] = [{"document.content": c} for c in (contexts if isinstance(contexts, list) else [contexts])
                            if isinstance(c, str)]
        if isinstance(attrs.get(TL + "retrieval.query_text"), str):
            attributes["input.value"] = attrs[TL + "retrieval.query_text"]
    elif span_type == "record_root":
        for ours, theirs in (("input.value", "record_root.input"), ("output.value", "record_root.output")):
            if isinstance(attrs.get(TL + theirs), str):
                attributes[ours] = attrs[TL + theirs]
    elif span_type == "generation" and isinstance(attrs.get(TL + "call.return"), str):
        attributes["output.value"] = attrs[TL + "call.return"]
    start = event.get("start_timestamp")
    start_text = start.isoformat() if start is not None and hasattr(start, "isoformat") else str(start or "")
    parent = trace.get("parent_id") or None
    return Span(str(attrs[TL + "record_id"]), str(trace.get("span_id") or ""), str(parent) if parent else None,
                str(record.get("name") if isinstance(record, dict) else ""), start_text, attributes)


def trulens_events_of_database(path: str) -> list[dict]:
    """The events of a TruLens SQLite database (its `default.sqlite`), read-only."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute("SELECT record, record_attributes, trace, start_timestamp FROM trulens_events "
                                "WHERE record_type = 'SPAN' ORDER BY start_timestamp").fetchall()
    except sqlite3.Error as exc:
        raise InputError(f"{path}: not a readable TruLens database ({exc})") from None
    return [dict(r) for r in rows]


def is_phoenix_table(columns: Iterable[str]) -> bool:
    names = set(columns)
    return {"context.trace_id", "context.span_id"} <= names and ("span_kind" in names or f"attributes.{KIND}" in names)


# Complex on purpose: the two ways a span carries its documents (a list, flattened numbered attributes),
# each checked as untrusted input.
def documents(span: Span) -> list[dict]:
    """The span's retrieved documents: a list under `retrieval.documents` (Phoenix tables) or flattened
    `retrieval.documents.N.document.*` attributes (OTLP)."""
    a = span.attributes
    listed = a.get(DOCS)
    items: list[dict] = []
    if isinstance(listed, (list, tuple)) or (listed is not None and hasattr(listed, "tolist")):
        for doc in (listed.tolist() if hasattr(listed, "tolist") else listed):
            if isinstance(doc, dict):
                items.append({k.removeprefix("document."): v for k, v in doc.items()})
    else:
        found: dict[int, dict] = {}
        prefix = DOCS + "."
        for key, value in a.items():
            if not key.startswith(prefix):
                continue
            index, _, rest = key[len(prefix):].partition(".")
            if index.isdigit() and rest.startswith("document."):
                found.setdefault(int(index), {})[rest[len("document."):]] = value
        items = [found[i] for i in sorted(found)]
    out = []
    for doc in items:
        metadata = doc.get("metadata")
        if isinstance(metadata, str):  # JSON text, read with the depth guard; anything else is kept as text
            try:
                parsed = json_document(metadata, "a document's metadata", strict=False)
            except InputError:
                parsed = None
            metadata = parsed if parsed is not None else {"metadata": metadata}
        passage = {"content": doc.get("content") if isinstance(doc.get("content"), str) else "",
                   "id": doc.get("id"), "score": doc.get("score")}
        if isinstance(metadata, dict):
            passage["metadata"] = metadata
        out.append({k: v for k, v in passage.items() if v is not None})
    return out


def _output_of(span: Span) -> Optional[str]:
    value = span.attributes.get("output.value")
    if isinstance(value, str) and value.strip():
        return value
    message = span.attributes.get("llm.output_messages.0.message.content")
    return message if isinstance(message, str) and message.strip() else None


def records_of(spans: Iterable[Span], where: str) -> list[dict]:
    """One record per trace, in the order the traces first appear."""
    by_trace: dict[str, list[Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    return [_record_of_trace(trace_id, members, where) for trace_id, members in by_trace.items()]


def _root_of(members: list[Span]) -> Span:
    """The earliest span of a trace whose parent is not in it (the first span when every one has a parent)."""
    ids = {s.span_id for s in members}
    roots = [s for s in members if not s.parent_id or s.parent_id not in ids]
    return min(roots, key=lambda s: s.start) if roots else members[0]


def _question_of(root: Span, retriever: Span) -> Optional[str]:
    """The question of a trace: its root's input, else its first retriever's."""
    question = root.attributes.get("input.value")
    if not isinstance(question, str) or not question.strip():
        question = retriever.attributes.get("input.value")
    return question if isinstance(question, str) else None


def _record_of_trace(trace_id: str, members: list[Span], where: str) -> dict:
    """A trace's record: the retrieved documents as its context, the root's (or the last LLM span's) output as its
    answer, the root's (or the first retriever's) input as its question."""
    root = _root_of(members)
    ordered = sorted(members, key=lambda s: s.start)
    retrievers = [s for s in ordered if s.kind == "RETRIEVER"]
    if not retrievers:
        raise InputError(f"{where}: trace {trace_id} has no RETRIEVER span (openinference.span.kind): no "
                         "context to audit its answer against")
    llms = [s for s in ordered if s.kind == "LLM" and _output_of(s)]
    answer = (_output_of(root) if root.kind != "RETRIEVER" else None) or (_output_of(llms[-1]) if llms else None)
    if answer is None:
        raise InputError(f"{where}: trace {trace_id} has no answer (no output.value on its root span or an "
                         "LLM span)")
    model = next((s.attributes.get("llm.model_name") for s in reversed(llms) if s.attributes.get("llm.model_name")),
                 None)
    return {"id": trace_id, "context": [d for s in retrievers for d in documents(s)], "answer": answer,
            "question": _question_of(root, retrievers[0]), "model": model,
            "timestamp": root.start, "trace_id": trace_id, "span_id": root.span_id,
            "retriever_span_ids": [s.span_id for s in retrievers]}


def _sniff_json(head: bytes) -> Optional[str]:
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if not text.startswith("{"):
        return None
    if '"resourceSpans"' in text[:4096]:
        return OTLP_FORMAT
    first = text.split("\n", 1)[0]
    if '"context.trace_id"' in first and '"context.span_id"' in first:
        return PHOENIX_FORMAT
    if '"span_kind"' in first and '"trace_id"' in first and '"context"' in first:
        return PHOENIX_FORMAT
    if '"run_type"' in first and '"inputs"' in first and '"outputs"' in first and '"trace_id"' in first:
        return LANGSMITH_FORMAT
    if '"record_attributes"' in first and TL + "record_id" in first:
        return TRULENS_FORMAT
    return None


def sniff(path: str) -> Optional[str]:
    """The traces format of a file (OTLP JSON, or a Phoenix spans table in JSONL or Parquet), or None."""
    from pathlib import Path

    p = Path(path)
    suffix = p.suffix.lower()
    if not p.is_file():
        return None
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            names = pq.ParquetFile(path).schema_arrow.names
        except Exception:  # not Parquet, or no pyarrow: the table reader says which
            return None
        if {"record_attributes", "trace"} <= set(names):
            return TRULENS_FORMAT
        return PHOENIX_FORMAT if is_phoenix_table(names) else None
    if suffix in (".sqlite", ".sqlite3", ".db"):
        with p.open("rb") as handle:
            if not handle.read(16).startswith(b"SQLite format 3"):
                return None
        import sqlite3

        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                found = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='trulens_events'").fetchone()
        except sqlite3.Error:
            return None
        return TRULENS_FORMAT if found else None
    if suffix in (".json", ".jsonl", ".ndjson"):
        with p.open("rb") as handle:
            return _sniff_json(handle.read(65536))
    return None


def sniff_bytes(data: bytes, name: str) -> Optional[str]:
    from pathlib import Path

    return _sniff_json(data[:65536]) if Path(name).suffix.lower() in (".json", ".jsonl", ".ndjson") else None


def _json_documents(text: str, where: str) -> Iterator[tuple[str, dict]]:
    """The JSON objects of a file: one (pretty-printed or not), an array of them, or one per line."""
    whole = json_document(text, where, strict=False)
    if isinstance(whole, dict):
        yield where, whole
        return
    if isinstance(whole, list):
        for k, item in enumerate(whole, 1):
            if not isinstance(item, dict):
                raise InputError(f"{where}: item {k}: expected a JSON object")
            yield f"{where}: item {k}", item
        return
    for n, item in json_lines(text, where):
        yield f"{where}: line {n}", item


def read_text(text: str, fmt: str, where: str) -> list[dict]:
    """The records of a traces file's text (OTLP JSON, or a Phoenix spans table in JSONL)."""
    if fmt == OTLP_FORMAT:
        spans = [s for at, request in _json_documents(text, where) for s in otlp_spans(request, at)]
    elif fmt == LANGSMITH_FORMAT:
        spans = [langsmith_span(r) for _at, run in _json_documents(text, where) for r in langsmith_runs(run)]
    elif fmt == TRULENS_FORMAT:
        spans = [s for _at, event in _json_documents(text, where) if (s := trulens_span(event)) is not None]
    else:
        spans = [phoenix_span(row) for _at, row in _json_documents(text, where)]
    return records_of(spans, where)


def read(path: str, fmt: str) -> list[dict]:
    """The records of a traces file; the whole file is read (a trace's spans may be anywhere in it)."""
    from pathlib import Path

    if fmt == TRULENS_FORMAT and Path(path).suffix.lower() in (".sqlite", ".sqlite3", ".db"):
        return records_of([s for e in trulens_events_of_database(path) if (s := trulens_span(e)) is not None], path)
    if Path(path).suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
        if fmt == TRULENS_FORMAT:
            return records_of([s for r in rows if (s := trulens_span(r)) is not None], path)
        return records_of([phoenix_span(r) for r in rows], path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return read_text(text, fmt, path)
