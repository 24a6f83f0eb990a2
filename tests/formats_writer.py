"""Writes RAG logs with the real packages (run by tests/test_real_formats.py with .venv-formats' Python, where
ragas, deepeval, langchain/langsmith, trulens-core and openinference-instrumentation-langchain are installed: scripts/setup.sh --formats). Each file is written by the
package's own save call; `expected.json` lists what each file holds, for the test to compare with what
rt4chart reads.

    .venv-formats/bin/python tests/formats_writer.py OUT_DIR
"""
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

# (question, passages, answer, reference); a passage with "|" and one with a comma and quotes on purpose
LOGS = [
    ("How high is the Kariba dam?", ["The Kariba dam is 128 metres high.", "It was completed in 1959."],
     "The Kariba dam is 128 metres high.", "128 metres"),
    ("When did the bridge open?", ["The bridge opened on 14 May 1998, after \"years\" of work.",
                                   "It is 1,240 metres long."], "The bridge opened in 2001.", "14 May 1998"),
    ("Who wrote the report?", ["The report was written by Ana Silva.", "It has 40 pages."],
     "Ana Silva wrote the report.", "Ana Silva"),
]


def ragas_files(out: Path) -> dict:
    from ragas import EvaluationDataset, SingleTurnSample

    dataset = EvaluationDataset(samples=[SingleTurnSample(user_input=q, retrieved_contexts=p, response=a, reference=r)
                                         for q, p, a, r in LOGS])
    dataset.to_jsonl(str(out / "ragas.jsonl"))
    dataset.to_csv(str(out / "ragas.csv"))
    dataset.to_pandas().to_parquet(out / "ragas.parquet")
    return {name: "RAGAS EvaluationDataset" for name in ("ragas.jsonl", "ragas.csv", "ragas.parquet")}


def deepeval_files(out: Path) -> dict:
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.test_case import LLMTestCase

    goldens = EvaluationDataset(goldens=[Golden(input=q, actual_output=a, expected_output=r, retrieval_context=p)
                                         for q, p, a, r in LOGS])
    written = {}
    for kind in ("json", "csv", "jsonl"):
        path = goldens.save_as(file_type=kind, directory=str(out), file_name=f"deepeval_goldens_{kind}")
        written[Path(path).name] = "DeepEval test cases"
    cases = EvaluationDataset()
    for q, p, a, r in LOGS:
        cases.add_test_case(LLMTestCase(input=q, actual_output=a, expected_output=r, retrieval_context=p))
    path = cases.save_as(file_type="json", directory=str(out), file_name="deepeval_test_cases", include_test_cases=True)
    written[Path(path).name] = "DeepEval test cases"
    return written


def rag_chain(retriever_titles: bool = True):
    """A LangChain RAG chain over the LOGS' passages (a retriever, a prompt, a scripted chat model)."""
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnablePassthrough

    passages = {q: p for q, p, _a, _r in LOGS}

    class Retriever(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return [Document(page_content=text, metadata={"title": f"Atlas page {i + 1}"})
                    for i, text in enumerate(passages[query])]

    prompt = ChatPromptTemplate.from_template("Context: {context}\nQuestion: {question}")
    model = FakeListChatModel(responses=[a for _q, _p, a, _r in LOGS])
    return {"context": Retriever(), "question": RunnablePassthrough()} | prompt | model | StrOutputParser()


def openinference_files(out: Path) -> dict:
    """The same chain auto-instrumented by openinference-instrumentation-langchain, its spans exported by the
    OpenTelemetry SDK through the SDK's own OTLP encoder, as an OTel collector's file exporter writes them."""
    import base64

    from google.protobuf.json_format import MessageToDict
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    LangChainInstrumentor().instrument(tracer_provider=provider)
    try:
        chain = rag_chain()
        for q, _p, _a, _r in LOGS:
            chain.invoke(q)
    finally:
        LangChainInstrumentor().uninstrument()
    request = MessageToDict(encode_spans(exporter.get_finished_spans()))
    for resource in request["resourceSpans"]:  # OTLP/JSON writes ids in hex (protobuf's mapping: base64)
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    (out / "openinference_langchain.jsonl").write_text(json.dumps(request) + "\n")
    return {"openinference_langchain.jsonl": "OpenTelemetry OTLP JSON spans (OpenInference)"}


def langsmith_files(out: Path) -> dict:
    """A LangChain RAG chain run with LangChain's run collector: the runs LangSmith receives, serialized by the
    langsmith SDK, one run per line (as `Client.list_runs()` gives them), and as nested run trees."""
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
    from langsmith._internal._serde import dumps_json
    from langsmith.schemas import Run

    chain = rag_chain()
    collector = RunCollectorCallbackHandler()
    for q, _p, _a, _r in LOGS:
        chain.invoke(q, config={"callbacks": [collector]})
    fields = set(Run.model_fields) - {"child_runs"}

    def flat(run):
        yield run
        for child in run.child_runs:
            yield from flat(child)

    with (out / "langsmith_runs.jsonl").open("w") as fh:
        for root in collector.traced_runs:
            for run in flat(root):
                fh.write(dumps_json({k: getattr(run, k, None) for k in fields}).decode() + "\n")

    def tree(run):
        return {**json.loads(dumps_json({k: getattr(run, k, None) for k in fields})),
                "child_runs": [tree(c) for c in run.child_runs]}

    with (out / "langsmith_trees.jsonl").open("w") as fh:
        for root in collector.traced_runs:
            fh.write(json.dumps(tree(root)) + "\n")
    return {"langsmith_runs.jsonl": "LangSmith runs", "langsmith_trees.jsonl": "LangSmith runs"}


def trulens_files(out: Path) -> dict:
    """A RAG app instrumented with TruLens (OpenTelemetry mode): its own SQLite database, and its events as
    `get_events()` gives them, saved as JSONL."""
    os.environ["TRULENS_OTEL_TRACING"] = "1"
    from trulens.apps.app import TruApp
    from trulens.core import TruSession
    from trulens.core.otel.instrument import instrument
    from trulens.otel.semconv.trace import SpanAttributes

    session = TruSession(database_url=f"sqlite:///{out / 'default.sqlite'}")
    passages = {q: p for q, p, _a, _r in LOGS}
    answers = {q: a for q, _p, a, _r in LOGS}

    class RAG:
        @instrument(span_type=SpanAttributes.SpanType.RETRIEVAL,
                    attributes={SpanAttributes.RETRIEVAL.QUERY_TEXT: "query",
                                SpanAttributes.RETRIEVAL.RETRIEVED_CONTEXTS: "return"})
        def retrieve(self, query: str) -> list:
            return passages[query]

        @instrument(span_type=SpanAttributes.SpanType.GENERATION)
        def generate(self, query: str, contexts: list) -> str:
            return answers[query]

        @instrument(attributes={SpanAttributes.RECORD_ROOT.INPUT: "query", SpanAttributes.RECORD_ROOT.OUTPUT: "return"})
        def query(self, query: str) -> str:
            return self.generate(query, self.retrieve(query))

    rag = RAG()
    app = TruApp(rag, app_name="rag", app_version="v1")
    for q, _p, _a, _r in LOGS:
        with app:
            rag.query(q)
    session.force_flush()
    session.connector.get_events(app_name="rag").to_json(out / "trulens_events.jsonl", orient="records", lines=True,
                                                                date_format="iso")
    return {"default.sqlite": "TruLens OpenTelemetry events", "trulens_events.jsonl": "TruLens OpenTelemetry events"}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    files = {**ragas_files(out), **deepeval_files(out), **langsmith_files(out), **trulens_files(out),
             **openinference_files(out)}
    (out / "expected.json").write_text(json.dumps({"files": files, "logs": LOGS}, indent=1))


if __name__ == "__main__":
    main()
