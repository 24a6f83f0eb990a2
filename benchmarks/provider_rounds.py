"""Requests per row and rounds per run of `batch --via batch-api`, against the tests' loopback Batch API server
(tests/batch_server.py: OpenAI's documented files/batches flow, instant replies), next to the synchronous path
on the tests' loopback chat server; and whether the two outputs are byte-identical.

    .venv/bin/python benchmarks/provider_rounds.py [--rows 1000]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.batch.provider.run import run_in_rounds  # noqa: E402
from rt4chart.batch.run import run_batch  # noqa: E402
from rt4chart.batch.spec import RunSpec  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.store import Store  # noqa: E402
from tests.batch_server import BatchServer  # noqa: E402
from tests.endpoint_server import EndpointServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rt4-rounds-"))
    source = work / "in.jsonl"
    source.write_text("".join(json.dumps({
        "id": f"r{i}", "question": f"How high is dam {i}?",
        "context": f"The dam on river {i} is {40 + i % 300} metres high. It opened in {1900 + i % 90}. "
                   f"It holds {i % 50} million cubic metres. Its turbines make {i % 7 + 1} megawatts. " * (1 + i % 3),
        "answer": f"The dam is {40 + i % 300} metres high. It opened in {1901 + i % 90}. It has {i % 5 + 2} turbines."})
        + "\n" for i in range(args.rows)))

    def judge(url: str):
        return make_judge("openai", base_url=url, api_key="local", model="m", use_cache=False, context_tokens=8192)

    with EndpointServer("ok") as sync_server:
        started = time.perf_counter()
        run_batch(str(source), str(work / "sync.jsonl"), judge(sync_server.url), workers=1)
        sync_s, sync_requests = time.perf_counter() - started, sync_server.chat_requests
    with BatchServer() as server:
        started = time.perf_counter()
        spec = RunSpec(judge=judge(server.url), store=Store(f"sqlite:///{work / 'runs.sqlite3'}"))
        _summary, report = run_in_rounds(str(source), str(work / "batch.jsonl"), spec, "batch-api", poll_every_s=0,
                                         sleep=lambda _s: None)
        batch_s = time.perf_counter() - started
    same = (work / "sync.jsonl").read_bytes() == (work / "batch.jsonl").read_bytes()
    print(json.dumps({"rows": args.rows, "sync_requests": sync_requests, "batch_requests": report.requests_submitted,
                      "requests_per_row": round(report.requests_submitted / args.rows, 2), "rounds": report.rounds,
                      "requests_per_round": report.per_round, "provider_batches": report.submissions,
                      "byte_identical": same, "sync_s": round(sync_s, 1), "rounds_local_s": round(batch_s, 1)}))


if __name__ == "__main__":
    main()
