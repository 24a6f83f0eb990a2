"""Peak memory of `rt4chart batch` on a large generated JSONL file (default 100 MB).

Usage: python benchmarks/stream_memory.py [MEGABYTES] [WORKDIR]
Writes WORKDIR/big.jsonl (seeded), runs the CLI under `resource` accounting and prints rows, seconds
and the child's peak RSS.
"""
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("river bridge council budget harbor engineer report tunnel steel traffic cyclist opened "
         "million percent design planned renovation construction").split()


def generate(path: Path, megabytes: int, seed: int = 3) -> int:
    rnd = random.Random(seed)
    rows, size = 0, 0
    with path.open("w", encoding="utf-8") as f:
        while size < megabytes * 1_000_000:
            sentences = [f"The {rnd.choice(WORDS)} {rnd.choice(WORDS)} cost {rnd.randint(1, 900)} million in "
                         f"{rnd.randint(1950, 2024)}." for _ in range(40)]
            line = json.dumps({"id": f"row-{rows}", "context": " ".join(sentences),
                               "answer": f"{sentences[3]} {sentences[7]} It was opened by {rnd.choice(WORDS).title()}."})
            f.write(line + "\n")
            rows += 1
            size += len(line) + 1
    return rows


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    work = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/rt4chart-stream")
    work.mkdir(parents=True, exist_ok=True)
    source = work / "big.jsonl"
    rows = generate(source, megabytes)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rt4chart", "batch", str(source), "-o", str(work / "out.jsonl"), "--quiet",
                    "--no-cache", "--restart"], check=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{source.stat().st_size / 1e6:.0f} MB, {rows} rows: {elapsed:.0f} s ({rows / elapsed:.0f} rows/s), "
          f"peak RSS of the batch process {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
