"""Run a 200-row batch with the openai judge against the fault-injecting server and print what
happened: injected faults by kind, and row outcomes. Loopback only; stops by itself.

Usage: python benchmarks/fault_matrix.py [RATE] [SEED]
"""
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.batch.run import run_batch  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from tests.fault_server import FaultServer  # noqa: E402


def main(rate: float, seed: int) -> None:
    server = FaultServer(rate=rate, seed=seed, slow_s=1.5).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            source, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
            with source.open("w") as f:
                for i in range(200):
                    f.write(json.dumps({"id": f"r{i}", "context": f"The gauge reads {i} units. It was built in {1900 + i}.",
                                        "answer": f"The gauge reads {i} units. It was built in {1900 + i}."}) + "\n")
            judge = make_judge("openai", base_url=server.url, api_key="sk-fake", model="fault-test", timeout_s=0.5,
                               max_attempts=4, use_cache=False, max_concurrency=8)
            started = time.perf_counter()
            summary = run_batch(str(source), str(out), judge, workers=8)
            elapsed = time.perf_counter() - started
            lines = [json.loads(x) for x in out.read_text().splitlines()]
    finally:
        server.stop()
    outcomes = Counter(x["status"] for x in lines)
    claims = Counter(c["verdict"] for x in lines for c in x["claims"])
    print(f"rate={rate} seed={seed}: {summary.rows} rows in {elapsed:.1f} s; ids unique and in order: "
          f"{[x['id'] for x in lines] == [f'r{i}' for i in range(200)]}")
    print("requests and injected faults:", dict(server.stats))
    print("row outcomes:", dict(outcomes), "| claim verdicts:", dict(claims))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.1, int(sys.argv[2]) if len(sys.argv) > 2 else 11)
