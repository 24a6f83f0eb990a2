"""RAGTruth figures of verifiers trained on ragtruth_dev, cross-validated by source.

`training/ragtruth_pairs.py` splits ragtruth_dev into two folds by source; the model of fold K was trained on
the other fold only. Each record is audited with the model that never saw its source, the predictions of both
folds are merged, and score.py's figures are computed over all 689 records at once.

    .venv/bin/python benchmarks/ragtruth_cv.py --models training/work/rt_model_fold0,training/work/rt_model_fold1 \
        --judges model,hybrid --out /tmp/rt_cv
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

from ragtruth_pairs import fold_of  # noqa: E402

from rt4chart.bench import group_scores, load_gold, run_bench  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402

DEV = ROOT.parent / "shared" / "benchmarks" / "ragtruth_dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help="fold 0's model,fold 1's model")
    parser.add_argument("--judges", default="model,hybrid")
    parser.add_argument("--out", type=Path, help="folder for each judge's merged predictions (JSONL)")
    parser.add_argument("--fuse-biases", default="0",
                        help="hybrid: comma-separated fusion biases, each scored (the model reads each pair once)")
    args = parser.parse_args()
    models = args.models.split(",")
    gold = load_gold([str(DEV)])
    folds = [[g for g in gold if fold_of(g) == k] for k in (0, 1)]
    print(f"folds: {len(folds[0])} and {len(folds[1])} records")
    biases = [float(b) for b in args.fuse_biases.split(",")]
    runs = [(k, b) for k in args.judges.split(",") for b in (biases if k == "hybrid" else [0.0])]
    for kind, bias in runs:
        started = time.perf_counter()
        preds: dict[str, dict] = {}
        options = {"fuse_bias": bias} if kind == "hybrid" else {}
        for k, records in enumerate(folds):
            judge = make_judge(kind, model=models[k], **options)
            preds.update({p["id"]: p for p in run_bench(records, judge).predictions})
        s = group_scores(gold, preds, strict=False)["all"]
        print(json.dumps({"judge": kind, **options, "ba": s.balanced_accuracy, "f1": s.f1, "p": s.precision,
                          "r": s.recall, "span_f1": s.span_f1, "auroc": s.auroc,
                          "s": round(time.perf_counter() - started, 1)}), flush=True)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            name = f"{kind}_ragtruth.jsonl" if not bias else f"{kind}_b{bias:g}_ragtruth.jsonl"
            with (args.out / name).open("w") as fh:
                for g in gold:
                    fh.write(json.dumps(preds[g["id"]]) + "\n")


if __name__ == "__main__":
    main()
