"""RAG traces made by the real packages: the OpenTelemetry SDK with the OpenInference conventions, one trace per
question (a CHAIN root, a RETRIEVER span with its documents, an LLM span with the answer)."""
from __future__ import annotations

from typing import Optional

from openinference.semconv.trace import DocumentAttributes, SpanAttributes
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

DOCS = SpanAttributes.RETRIEVAL_DOCUMENTS

QUESTIONS = [
    ("How high is the Kariba dam?", ["The Kariba dam is 128 metres high.", "It was completed in 1959."],
     "The Kariba dam is 128 metres high."),
    ("When did the bridge open?", ["The bridge opened on 14 May 1998.", "It is 1,240 metres long."],
     "The bridge opened in 2001."),
    ("Who wrote the report?", ["The report was written by Ana Silva.", "It has 40 pages."],
     "Ana Silva wrote the report. It has 40 pages."),
]


def provider_for(project: str, exporter) -> TracerProvider:
    from openinference.semconv.resource import ResourceAttributes

    provider = TracerProvider(resource=Resource({ResourceAttributes.PROJECT_NAME: project}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def emit(provider: TracerProvider, questions=QUESTIONS, model: str = "gpt-test",
         root_output: bool = True) -> None:
    tracer = provider.get_tracer("rag-app")
    for question, passages, answer in questions:
        with tracer.start_as_current_span("rag-query") as root:
            root.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND, "CHAIN")
            root.set_attribute(SpanAttributes.INPUT_VALUE, question)
            with tracer.start_as_current_span("retrieve") as retriever:
                retriever.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND, "RETRIEVER")
                retriever.set_attribute(SpanAttributes.INPUT_VALUE, question)
                for i, text in enumerate(passages):
                    retriever.set_attribute(f"{DOCS}.{i}.{DocumentAttributes.DOCUMENT_CONTENT}", text)
                    retriever.set_attribute(f"{DOCS}.{i}.{DocumentAttributes.DOCUMENT_ID}", f"doc-{i}")
                    retriever.set_attribute(f"{DOCS}.{i}.{DocumentAttributes.DOCUMENT_SCORE}", 0.9 - i / 10)
                    retriever.set_attribute(f"{DOCS}.{i}.{DocumentAttributes.DOCUMENT_METADATA}",
                                            '{"title": "Atlas page %d"}' % (i + 1))
            with tracer.start_as_current_span("generate") as llm:
                llm.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND, "LLM")
                llm.set_attribute(SpanAttributes.LLM_MODEL_NAME, model)
                llm.set_attribute(SpanAttributes.OUTPUT_VALUE, answer)
            if root_output:
                root.set_attribute(SpanAttributes.OUTPUT_VALUE, answer)
    provider.force_flush()


def otlp_json(spans, hex_ids: bool = True) -> dict:
    """An OTLP ExportTraceServiceRequest in JSON, from the SDK's own OTLP encoder: with hex ids as the OTLP/JSON
    spec and the collector's file exporter write them, or protobuf's JSON mapping (base64 ids)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = MessageToDict(encode_spans(spans))
    if hex_ids:
        import base64

        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64decode(span[key]).hex()
    return request


def recorded(project: str = "rag-app", questions=QUESTIONS, root_output: bool = True, model: Optional[str] = None):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    emit(provider_for(project, exporter), questions, model or "gpt-test", root_output)
    return exporter.get_finished_spans()
