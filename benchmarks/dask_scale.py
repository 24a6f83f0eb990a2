"""Throughput and driver CPU of `rt4chart batch` (offline judge unless named, no cache, no journal, no store) for the
local engine with 1 and N processes and the Dask engine with 1 and N workers, on the ragtruth_dev
answers repeated with fresh ids. Prints rows/s, speed-up against one local process, the driver
process's own CPU per row (imports included; the workers are other processes), and whether every output
is identical to the one-process output.
Usage: python benchmarks/dask_scale.py [ROWS] [WORKERS] [WORKDIR] [JUDGE]
(the judge is always passed: the CLI's default is the app's, which is no longer the offline judge)
"""
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "benchmarks" / "ragtruth_dev.jsonl"
DRIVER = """
import resource, sys
from rt4chart.cli.main import main
code = main(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"DRIVER_CPU {r.ru_utime + r.ru_stime}", file=sys.stderr)
sys.exit(code)
"""


def generate(path: Path, rows: int) -> None:
    gold = [json.loads(x) for x in DEV.read_text(encoding="utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            g = gold[i % len(gold)]
            f.write(json.dumps({"id": f"r{i}", "context": g["context"], "answer": g["answer"],
                                "question": (g.get("meta") or {}).get("question")}) + "\n")


def run(source: Path, out: Path, engine: str, workers: int, judge: str) -> tuple[float, float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", DRIVER, "batch", str(source), "-o", str(out), "--quiet",
                           "--no-cache", "--no-journal", "--no-store", "--engine", engine, "--workers", str(workers),
                           "--judge", judge],
                          check=True, cwd=ROOT, capture_output=True, text=True)
    cpu = float(done.stderr.split("DRIVER_CPU ")[1].split()[0])
    return time.perf_counter() - started, cpu


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    work = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/rt4chart-scale")
    judge = sys.argv[4] if len(sys.argv) > 4 else "offline"
    work.mkdir(parents=True, exist_ok=True)
    source = work / "rows.jsonl"
    generate(source, rows)
    base = None
    outputs = []
    for engine, n in (("local", 1), ("local", workers), ("dask", 1), ("dask", workers)):
        out = work / f"out-{engine}-{n}.jsonl"
        seconds, cpu = run(source, out, engine, n, judge)
        base = base or rows / seconds
        outputs.append(out.read_bytes())
        print(f"{engine:5} workers={n:2}: {seconds:6.1f} s, {rows / seconds:6.1f} rows/s, "
              f"{rows / seconds / base:4.2f}x one process, driver CPU {1000 * cpu / rows:.3f} ms/row", flush=True)
    print(f"outputs identical: {len(set(outputs)) == 1}")


if __name__ == "__main__":
    main()
