"""Cross-validated calibration of the offline judge's thresholds.

Every grid point is run once over the dev files; then 5 folds, grouped by context (answers that
share a context never straddle folds): the grid point with the best mean balanced accuracy over the
three datasets on four folds is scored on the fifth. The spread between in-sample and held-out
figures says how much the thresholds overfit.
Usage: python benchmarks/calibrate.py DEV_DIR
"""
import hashlib
import itertools
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.bench import load_gold, run_bench  # noqa: E402
from rt4chart.evaluation.metrics import score  # noqa: E402
from rt4chart.judges.offline.judge import OfflineJudge, OfflineSettings  # noqa: E402

GRID = {"baseless_ratio": [0.3, 0.4, 0.5], "min_unsupported_weight": [2.0, 3.0, 4.0], "evidence_k": [2, 3, 4]}
FILES = ["ragtruth_dev.jsonl", "faithbench_dev.jsonl", "halueval_qa_dev.jsonl"]


def fold_of(record) -> int:
    return int(hashlib.sha256(record["context"].encode()).hexdigest(), 16) % 5


def macro_ba(gold, preds) -> float:
    values = []
    for name in sorted({g["dataset"] for g in gold}):
        part = [g for g in gold if g["dataset"] == name]
        ba = score(part, preds).balanced_accuracy
        if ba is not None:
            values.append(ba)
    return statistics.mean(values)


def main(dev: Path) -> None:
    gold = load_gold([str(dev / f) for f in FILES])
    points = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    predictions = []
    for point in points:
        result = run_bench(gold, OfflineJudge(OfflineSettings(**point)))
        predictions.append({p["id"]: p for p in result.predictions})
        print(point, f"in-sample macro BA {macro_ba(gold, predictions[-1]):.3f}", flush=True)
    held_out = []
    for fold in range(5):
        train = [g for g in gold if fold_of(g) != fold]
        test = [g for g in gold if fold_of(g) == fold]
        best = max(range(len(points)), key=lambda i: macro_ba(train, predictions[i]))
        held_out.append(macro_ba(test, predictions[best]))
        print(f"fold {fold}: chose {points[best]}, train {macro_ba(train, predictions[best]):.3f}, "
              f"held-out {held_out[-1]:.3f}")
    default = OfflineSettings()
    chosen = next(i for i, p in enumerate(points) if all(getattr(default, k) == v for k, v in p.items()))
    print(f"cross-validated macro BA {statistics.mean(held_out):.3f} ± {statistics.stdev(held_out):.3f}; "
          f"shipped defaults in-sample {macro_ba(gold, predictions[chosen]):.3f}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/benchmarks"))
