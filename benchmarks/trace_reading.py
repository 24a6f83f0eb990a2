"""How long reading OpenInference traces takes, and the memory it needs (traces are read whole: a trace's spans
may lie anywhere in the file). The spans are made by the OpenTelemetry SDK and written as OTLP JSON by its own
encoder, one request per 100 traces, as a collector's file exporter batches them.

    .venv/bin/python benchmarks/trace_reading.py --traces 10000
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.data.records import open_table, table_records  # noqa: E402
from tests.traces_made import otlp_json, recorded  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=10_000)
    args = parser.parse_args()
    questions = [(f"How high is dam {i}?", [f"Dam {i} is {40 + i} metres high.", f"It opened in {1900 + i % 99}.",
                                            f"It holds {i % 70} million cubic metres."], f"Dam {i} is {40 + i} metres high.")
                 for i in range(args.traces)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traces.jsonl"
        with path.open("w") as fh:
            for start in range(0, len(questions), 100):
                fh.write(json.dumps(otlp_json(recorded(questions=questions[start:start + 100]))) + "\n")
        size = path.stat().st_size
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        table = open_table(str(path))
        records = sum(1 for _ in table_records(table, {}))
        elapsed = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"traces": args.traces, "spans": 3 * args.traces, "file_mb": round(size / 1e6, 1),
                      "records": records, "read_s": round(elapsed, 2),
                      "traces_per_s": round(records / elapsed), "peak_rss_mb": round(peak / 1024),
                      "rss_growth_mb": round((peak - before) / 1024)}))


if __name__ == "__main__":
    main()
