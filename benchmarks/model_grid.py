"""The model and hybrid judges on the dev files over a grid of their two thresholds, with the cross-dataset
check: thresholds chosen on two files, scored on the third.

    .venv/bin/python benchmarks/model_grid.py [--model PATH] [--limit N] [--json OUT]

The model reads each (text, claim) pair once: later grid points reuse the pair probabilities of the
first, so a grid costs about one pass. Figures are score.py's (rt4chart bench).
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.bench import load_gold, run_bench  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.judges.model import judge as model_judge  # noqa: E402

FILES = {"ragtruth": "ragtruth_dev.jsonl", "faithbench": "faithbench_dev.jsonl", "halueval_qa": "halueval_qa_dev.jsonl"}
ENTAIL = (0.3, 0.45, 0.6, 0.75)
CONTRA = (0.6, 0.85, 1.01)   # 1.01: the model never contradicts on its own


def figures(result, name: str) -> dict:
    s = result.scores.get(name) or result.scores.get("all")
    return {"ba": s.balanced_accuracy, "f1": s.f1, "p": s.precision, "r": s.recall, "auroc": s.auroc,
            "span_f1": s.span_f1 if s.span_records else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="shipped")
    parser.add_argument("--judges", default="model,hybrid")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--bench-dir", default=str(ROOT.parent / "shared" / "benchmarks"))
    parser.add_argument("--json", help="write every grid point here")
    args = parser.parse_args()
    model_judge.PAIR_CACHE_SIZE = 2_000_000
    gold = {name: load_gold([str(Path(args.bench_dir) / f)], limit=args.limit, seed=1) for name, f in FILES.items()}
    rows = []
    for kind in args.judges.split(","):
        judge = make_judge(kind, model=args.model)
        base = judge.config
        for entail, contra in itertools.product(ENTAIL, CONTRA):
            judge.config = dataclasses.replace(base, entail_threshold=entail, contradict_threshold=contra)
            point = {"judge": kind, "entail": entail, "contra": contra}
            for name, records in gold.items():
                started = time.perf_counter()
                result = run_bench(records, judge)
                point[name] = {**figures(result, name), "s": round(time.perf_counter() - started, 1)}
            rows.append(point)
            print(json.dumps(point), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print("\ncross-dataset check (thresholds by mean BA on the other two files):")
    for kind in args.judges.split(","):
        mine = [r for r in rows if r["judge"] == kind]
        for held in FILES:
            others = [n for n in FILES if n != held]
            best = max(mine, key=lambda r: sum(r[n]["ba"] or 0 for n in others))
            print(f"  {kind}: tuned on {'+'.join(others)} -> entail {best['entail']}, contra {best['contra']}; "
                  f"{held} BA {best[held]['ba']:.3f} (best on {held} itself: "
                  f"{max(r[held]['ba'] or 0 for r in mine):.3f})")


if __name__ == "__main__":
    main()
