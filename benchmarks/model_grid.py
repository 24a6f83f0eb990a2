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
FUSE = (0.0, 0.25, 0.5, 1.0, 2.0)   # hybrid: weight of the model's claim logit beside the offline one's
BIAS = (-0.5, 0.0, 0.5)


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
    parser.add_argument("--fuse", action="store_true",
                        help="hybrid only: the grid of the fusion weight and bias (thresholds --entail/--contra)")
    parser.add_argument("--clip", default="50", help="hybrid --fuse: comma-separated clips of each judge's logit")
    parser.add_argument("--fuse-weights", default=",".join(map(str, FUSE)))
    parser.add_argument("--biases", default=",".join(map(str, BIAS)))
    parser.add_argument("--entail", type=float, default=0.3)
    parser.add_argument("--contra", type=float, default=0.85)
    args = parser.parse_args()
    model_judge.PAIR_CACHE_SIZE = 2_000_000
    fuse_weights = tuple(float(x) for x in args.fuse_weights.split(","))
    biases = tuple(float(x) for x in args.biases.split(","))
    gold = {name: load_gold([str(Path(args.bench_dir) / f)], limit=args.limit, seed=1) for name, f in FILES.items()}
    rows = []
    for kind in args.judges.split(","):
        judge = make_judge(kind, model=args.model)
        base = judge.config
        clips = [float(c) for c in args.clip.split(",")]
        grid = ([(args.entail, args.contra, k, b, c) for c, k, b in itertools.product(clips, fuse_weights, biases)] if args.fuse
                else [(e, c, base.fuse_model, base.fuse_bias, base.fuse_clip) for e, c in itertools.product(ENTAIL, CONTRA)])
        for entail, contra, fuse, bias, clip in grid:
            judge.config = dataclasses.replace(base, entail_threshold=entail, contradict_threshold=contra,
                                               fuse_model=fuse, fuse_bias=bias, fuse_clip=clip)
            point = {"judge": kind, "entail": entail, "contra": contra, "fuse": fuse, "bias": bias, "clip": clip}
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
            print(f"  {kind}: tuned on {'+'.join(others)} -> entail {best['entail']}, contra {best['contra']}, "
                  f"fuse {best['fuse']}, bias {best['bias']}; "
                  f"{held} BA {best[held]['ba']:.3f} (best on {held} itself: "
                  f"{max(r[held]['ba'] or 0 for r in mine):.3f})")


if __name__ == "__main__":
    main()
