"""Seconds to audit one answer, as the dashboard does it (a loaded judge, one answer at a time), for each
judge, on a seeded sample of dev answers; median, 90th percentile and maximum.

    .venv/bin/python benchmarks/single_audit_latency.py [--judges offline,model,hybrid] [--n 40]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart import audit  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", default="offline,model,hybrid")
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--file", default=str(ROOT.parent / "shared" / "benchmarks" / "ragtruth_dev.jsonl"))
    args = parser.parse_args()
    records = [json.loads(x) for x in Path(args.file).read_text().splitlines()]
    sample = random.Random(7).sample(records, min(args.n, len(records)))
    for name in args.judges.split(","):
        started = time.perf_counter()
        judge = make_judge(name)
        load = time.perf_counter() - started
        times = []
        for r in sample:
            t = time.perf_counter()
            audit(r["context"], r["answer"], (r.get("meta") or {}).get("question"), judge=judge)
            times.append(time.perf_counter() - t)
        times.sort()
        print(f"{name}: load {load:.2f} s; per answer median {statistics.median(times):.2f} s, "
              f"p90 {times[int(0.9 * (len(times) - 1))]:.2f} s, max {times[-1]:.2f} s over {len(times)} answers")


if __name__ == "__main__":
    main()
