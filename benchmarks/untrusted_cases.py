"""#39's cases run as a user runs them, outside the test suite: each one a fresh `rt4chart` process against a
hand-made fault (model folders, traces and logs, tables, provider batches on a loopback Batch API). One row per
case: its exit code, its time, the first line it printed on stderr, and whether it left a stored run `running`.
Exit 1 when a case ends 70 (a bug), runs past its time limit (a hang), leaves a stuck run, or ends otherwise than
its row says. Loopback only; everything is written under a temporary folder; it stops by itself.

Usage: python benchmarks/untrusted_cases.py [--only PREFIX] [--limit-s SECONDS]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.store import Store  # noqa: E402
from tests.batch_server import BatchServer  # noqa: E402
from tests.fakes import flagged_predictions  # noqa: E402
from tests.tiny_models import SHIPPED_VERIFIER as SHIPPED  # noqa: E402
from tests.tiny_models import shipped_copy

CONTEXT, ANSWER, QUESTION = "The bridge opened to traffic in 1998.", "It opened in 1998.", "When did the bridge open?"


@dataclass
class Case:
    name: str
    argv: Callable[[Path], list[str]]  # the folder of the case -> rt4chart's arguments
    ends: tuple[int, ...] = (2,)       # the exit codes a user may see for it
    server: Optional[dict] = None      # BatchServer faults (a provider case); "{url}" in argv is its address
    again: bool = False                # run the same command a second time: it must end 0 and submit nothing


# -- model folders ----------------------------------------------------------------------------------------
def model_folder(case: Path, change: Callable[[Path], None]) -> Path:
    folder = shipped_copy(case / "ckpt")
    change(folder)
    return folder


def graph(data: bytes) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / "model_int8.onnx").unlink()
        (folder / "model_int8.onnx").write_bytes(data)
    return write


def fifo_graph(folder: Path) -> None:
    (folder / "model_int8.onnx").unlink()
    os.mkfifo(folder / "model_int8.onnx")


def no_labels(folder: Path) -> None:
    config = json.loads((folder / "config.json").read_text())
    config.pop("id2label", None)
    config.pop("label2id", None)
    (folder / "config.json").write_text(json.dumps(config))


def audit_with(change: Callable[[Path], None]) -> Callable[[Path], list[str]]:
    def argv(case: Path) -> list[str]:
        (case / "context.txt").write_text(CONTEXT)
        (case / "answer.txt").write_text(ANSWER)
        return ["audit", "--judge", "model", "--model", str(model_folder(case, change)), "--context",
                str(case / "context.txt"), "--answer", str(case / "answer.txt")]
    return argv


def truncated(folder: Path) -> None:
    data = (SHIPPED / "model_int8.onnx").read_bytes()
    graph(data[: len(data) // 3])(folder)


def audit_model_named(name: str) -> Callable[[Path], list[str]]:
    def argv(case: Path) -> list[str]:
        (case / "context.txt").write_text(CONTEXT)
        (case / "answer.txt").write_text(ANSWER)
        return ["audit", "--judge", "model", "--model", name, "--context", str(case / "context.txt"),
                "--answer", str(case / "answer.txt")]
    return argv


# -- traces and logs --------------------------------------------------------------------------------------
def _attr(key: str, value) -> dict:
    return {"key": key, "value": value}


def otlp(extra_attr: Optional[dict] = None, resource_spans=None, trace: str = "t1") -> dict:
    root = {"traceId": trace, "spanId": "b7ad6b7169203331", "name": "rag",
            "attributes": [_attr("openinference.span.kind", {"stringValue": "CHAIN"}),
                           _attr("input.value", {"stringValue": QUESTION}),
                           _attr("output.value", {"stringValue": ANSWER})] + ([extra_attr] if extra_attr else [])}
    retriever = {"traceId": trace, "spanId": "00f067aa0ba902b7", "parentSpanId": "b7ad6b7169203331", "name": "r",
                 "attributes": [_attr("openinference.span.kind", {"stringValue": "RETRIEVER"}),
                                _attr("retrieval.documents.0.document.content", {"stringValue": CONTEXT})]}
    spans = {"resourceSpans": [{"scopeSpans": [{"spans": [root, retriever]}]}]}
    if resource_spans is not None:
        spans["resourceSpans"] = resource_spans
    return spans


def langsmith(trace: str = "t1", **changes) -> dict:
    llm = {"id": f"{trace}-l", "run_type": "llm", "outputs": {"generations": [[{"text": ANSWER}]]},
           "extra": {"metadata": {"ls_model_name": "gpt-test"}}}
    for key, value in changes.items():
        if key == "generations":
            llm["outputs"]["generations"] = value
        else:
            llm[key] = value
    return {"id": f"{trace}-root", "trace_id": trace, "run_type": "chain", "name": "rag", "inputs": {"question": QUESTION},
            "outputs": {"output": ANSWER}, "child_runs": [
                {"id": f"{trace}-r", "run_type": "retriever", "inputs": {"query": QUESTION},
                 "outputs": {"documents": [{"page_content": CONTEXT, "metadata": {}}]}}, llm]}


def trulens_deep(case: Path) -> Path:
    from rt4chart.data import traces

    tl = traces.TL
    root = {tl + "record_id": "t1", tl + "span_type": "record_root", tl + "record_root.input": QUESTION,
            tl + "record_root.output": ANSWER}
    nested = json.dumps(root)[:-1] + ', "nest": ' + "[" * 2500 + '"x"' + "]" * 2500 + "}"  # json.dumps cannot
    rows = [{"record": json.dumps({"name": "rag"}), "record_attributes": nested,
             "trace": json.dumps({"span_id": "s1", "parent_id": None, "trace_id": "t1"}),
             "start_timestamp": "2026-12-04T10:00:00"}]
    path = case / "trulens.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def predict_lines(records: list, good: dict) -> Callable[[Path], list[str]]:
    """A JSONL file: the broken record, then a good one of the same format."""
    def argv(case: Path) -> list[str]:
        path = case / "in.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in [*records, good]))
        return ["predict", str(path), "-o", str(case / "out.jsonl"), "--judge", "offline"]
    return argv


def predict_file(make: Callable[[Path], Path]) -> Callable[[Path], list[str]]:
    def argv(case: Path) -> list[str]:
        return ["predict", str(make(case)), "-o", str(case / "out.jsonl"), "--judge", "offline"]
    return argv


def latin1_csv(case: Path) -> Path:
    path = case / "latin1.csv"
    path.write_bytes("id,context,answer\nr1,Le café a ouvert en 1998 à Paris.,Il a ouvert en 1998.\n".encode("latin-1"))
    return path


# -- provider batches -------------------------------------------------------------------------------------
def provider_input(case: Path, rows: int = 4) -> Path:
    path = case / "in.jsonl"
    path.write_text("".join(json.dumps({
        "id": f"r{i}", "question": f"How high is dam {i}?",
        "context": f"The dam on river {i} is {40 + i} metres high. It opened in {1900 + i}.",
        "answer": f"The dam is {40 + i} metres high. It opened in {1901 + i}."}) + "\n" for i in range(rows)))
    return path


def via_batch_api(case: Path) -> list[str]:
    return ["batch", str(provider_input(case)), "-o", str(case / "out.jsonl"), "--judge", "openai", "--base-url",
            "{url}", "--api-key", "sk-untrusted-cases-0001", "--model", "m", "--via", "batch-api", "--poll-every",
            "0", "--no-cache", "--max-attempts", "3", "--quiet"]


def insights_via_batch_api(case: Path) -> list[str]:
    preds = flagged_predictions(case / "preds.jsonl", 8)
    return ["insights", str(preds), "-o", str(case / "insights.json"), "--judge", "openai", "--base-url", "{url}",
            "--api-key", "sk-untrusted-cases-0001", "--model", "m", "--no-cache", "--warmup", "2", "--via",
            "batch-api", "--poll-every", "0", "--quiet"]


CASES: list[Case] = [
    Case("model: graph of zero bytes", audit_with(graph(b""))),
    Case("model: graph that is text", audit_with(graph(b"this is not an onnx graph\n"))),
    Case("model: graph truncated to a third", audit_with(truncated)),
    Case("model: graph that is a FIFO", audit_with(fifo_graph)),
    Case("model: config.json not JSON", audit_with(lambda f: (f / "config.json").write_text("{not json"))),
    Case("model: tokenizer.json not JSON", audit_with(lambda f: (f / "tokenizer.json").write_text("{not json"))),
    Case("model: config without id2label", audit_with(no_labels)),
    Case("model: no tokenizer.json", audit_with(lambda f: (f / "tokenizer.json").unlink())),
    Case("model: --model ''", audit_model_named("")),
    Case("model: --model of a missing folder", audit_model_named("/nonexistent/rt4chart-model")),
    Case("langsmith: extra.metadata null", predict_lines([langsmith(extra={"metadata": None})], langsmith("t2")), (0, 1, 2)),
    Case("langsmith: extra a list", predict_lines([langsmith(extra=["a"])], langsmith("t2")), (0, 1, 2)),
    Case("langsmith: extra a string", predict_lines([langsmith(extra="x")], langsmith("t2")), (0, 1, 2)),
    Case("langsmith: outputs.generations a dict", predict_lines([langsmith(generations={"text": ANSWER})], langsmith("t2")), (0, 1, 2)),
    Case("otlp: resourceSpans items are strings", predict_lines([otlp(resource_spans=["a", "b"])], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: scopeSpans items are strings", predict_lines([otlp(resource_spans=[{"scopeSpans": ["x"]}])], otlp(trace="t2")),
         (0, 1, 2)),
    Case("otlp: an attribute value that is a number", predict_lines([otlp(_attr("llm.x", 12))], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: intValue 'twelve'", predict_lines([otlp(_attr("llm.x", {"intValue": "twelve"}))], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: intValue '1.5'", predict_lines([otlp(_attr("llm.x", {"intValue": "1.5"}))], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: intValue null", predict_lines([otlp(_attr("llm.x", {"intValue": None}))], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: intValue of 5,000 digits", predict_lines([otlp(_attr("llm.x", {"intValue": "9" * 5000}))], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: arrayValue a bare list", predict_lines([otlp(_attr("llm.x", {"arrayValue": [1, 2]}))], otlp(trace="t2")), (0, 1, 2)),
    Case("otlp: kvlistValue item without key",
         predict_lines([otlp(_attr("llm.x", {"kvlistValue": {"values": [{"value": {"stringValue": "v"}}]}}))], otlp(trace="t2")),
         (0, 1, 2)),
    Case("trulens: attributes nested 2,500 deep", predict_file(trulens_deep), (0, 1, 2)),
    Case("table: a latin-1 CSV", predict_file(latin1_csv), (0, 1, 2)),
    Case("provider: upload answered 500 twice", via_batch_api, (0,), {"upload_status": [500, 500]}, again=True),
    Case("provider: upload answered 413", via_batch_api, (2,), {"upload_status": [413]}),
    Case("provider: create answered 400", via_batch_api, (2,), {"create_status": [400]}),
    Case("provider: an output file answers 404", via_batch_api, (0,), {"lost_files": 1}, again=True),
    Case("provider: every batch fails", via_batch_api, (0, 1), {"fail_batches": True}, again=True),
    Case("provider: a batch expires half answered", via_batch_api, (0, 1), {"expire_after": 2}, again=True),
    Case("insights: upload answered 500 twice", insights_via_batch_api, (0,), {"upload_status": [500, 500]},
         again=True),
    Case("insights: create answered 400", insights_via_batch_api, (2,), {"create_status": [400]}),
    Case("insights: an output file answers 404", insights_via_batch_api, (0,), {"lost_files": 1}, again=True),
    Case("insights: every batch fails", insights_via_batch_api, (0, 1), {"fail_batches": True}, again=True),
]


@dataclass
class Outcome:
    case: str
    code: Optional[int]
    seconds: float
    said: str
    stuck: int
    problem: str


def run_case(case: Case, folder: Path, env: dict, limit_s: float) -> Outcome:
    folder.mkdir(parents=True)
    if case.server is None:
        return _run(case, folder, env, limit_s, None)
    with BatchServer(**case.server) as server:
        return _run(case, folder, env, limit_s, server)


def _run(case: Case, folder: Path, env: dict, limit_s: float, server: Optional[BatchServer]) -> Outcome:
    argv = [a.replace("{url}", server.url) if server else a for a in case.argv(folder)]
    started = time.monotonic()
    code, said = _rt4chart(argv, env, limit_s)
    seconds = time.monotonic() - started
    problem = ""
    if code is None:
        problem = f"ran past {limit_s:.0f} s (a hang)"
    elif code == 70:
        problem = "exit 70 (a bug)"
    elif code not in case.ends:
        problem = f"exit {code}, expected {' or '.join(map(str, case.ends))}"
    if not problem and case.again and server is not None:
        batches = server.stats["batches"]
        code2, _ = _rt4chart(argv, env, limit_s)
        if code2 != code or server.stats["batches"] != batches:
            problem = f"the same command again: exit {code2}, {server.stats['batches'] - batches} more batches"
    store = Path(env["RT4CHART_DATA_DIR"]) / "runs.sqlite3"
    stuck = sum(r.status == "running" for r in Store(f"sqlite:///{store}").list_runs()) if store.exists() else 0
    if stuck and not problem:
        problem = f"{stuck} stored run(s) left running"
    return Outcome(case.name, code, seconds, said, stuck, problem)


def _rt4chart(argv: list[str], env: dict, limit_s: float) -> tuple[Optional[int], str]:
    try:
        done = subprocess.run([sys.executable, "-m", "rt4chart", *argv], env=env, capture_output=True, text=True,
                              timeout=limit_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, ""
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    return done.returncode, (lines[0] if lines else "")[:150]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the cases whose name starts with this")
    parser.add_argument("--limit-s", type=float, default=60.0, help="a case running longer is a hang")
    args = parser.parse_args()
    failures = 0
    print("| case | exit | s | first line on stderr | verdict |\n|---|---:|---:|---|---|")
    with tempfile.TemporaryDirectory(prefix="rt4-untrusted-") as tmp:
        for n, case in enumerate(c for c in CASES if c.name.startswith(args.only)):
            folder = Path(tmp) / f"case{n}"
            env = {**os.environ, "RT4CHART_DATA_DIR": str(folder / "data"), "RT4CHART_CACHE_DIR": str(folder / "cache"),
                   "HOME": str(folder / "home"), "PYTHONPATH": str(ROOT)}
            env.pop("RT4CHART_DB", None)
            env.pop("OPENAI_API_KEY", None)
            out = run_case(case, folder, env, args.limit_s)
            failures += bool(out.problem)
            said = out.said.replace("|", "\\|").replace(tmp, "TMP")
            print(f"| {out.case} | {out.code} | {out.seconds:.1f} | {said} | {out.problem or 'ok'} |", flush=True)
    print(f"\n{len([c for c in CASES if c.name.startswith(args.only)]) - failures} ok, {failures} not")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
