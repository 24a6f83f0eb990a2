"""Rows/s of `rt4chart batch` (offline judge) for the local and Dask engines with 1 and 2 workers.

Rows are generated from sample_data/rag_audit_sample.csv with a seeded script: each row takes a sample
row and swaps numbers and a few words, so texts differ and nothing is served from a cache.
Usage: python benchmarks/dask_scale.py [ROWS] [WORKDIR]
"""
import csv
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def generate(path: Path, rows: int, seed: int = 42) -> None:
    sample = list(csv.DictReader((ROOT / "sample_data" / "rag_audit_sample.csv").open(encoding="utf-8")))
    rnd = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            base = rnd.choice(sample)
            shift = rnd.randint(1, 9)
            answer = base["answer"]
            if rnd.random() < 0.5:
                answer = re.sub(r"\d+", lambda m, k=shift: str(int(m.group()) + k), answer)
            f.write(json.dumps({"id": f"g{i}", "question": base["question"], "context": base["context"],
                                "answer": answer}) + "\n")


def run(source: Path, out: Path, engine: str, workers: int) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rt4chart", "batch", str(source), "-o", str(out), "--quiet", "--no-cache",
                    "--no-journal", "--engine", engine, "--workers", str(workers)], check=True, cwd=ROOT)
    return time.perf_counter() - started


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    work = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/rt4chart-scale")
    work.mkdir(parents=True, exist_ok=True)
    source = work / "rows.jsonl"
    generate(source, rows)
    results = {}
    for engine, workers in (("local", 1), ("local", 2), ("dask", 1), ("dask", 2)):
        seconds = run(source, work / f"out-{engine}-{workers}.jsonl", engine, workers)
        results[(engine, workers)] = rows / seconds
        print(f"{engine:5} workers={workers}: {seconds:6.1f} s, {rows / seconds:7.1f} rows/s", flush=True)
    same = len({(work / f"out-{e}-{w}.jsonl").read_bytes() for e, w in results}) == 1
    overhead = 1 - results[("dask", 1)] / results[("local", 1)]
    print(f"outputs identical: {same}; Dask overhead at 1 worker: {overhead:.0%}")


if __name__ == "__main__":
    main()
