"""How well other ways of making an answer's score from its claims' scores would rank answers, read from saved
predictions (`rt4chart bench … -o PRED`): the shipped score (a noisy-OR, `auditing.scores`), the maximum claim score,
the noisy-OR of every claim score, the count and the share of flagged claims, their mean. For each: AUROC over all
answers and among the flagged answers alone, and the best BA any threshold of it reaches (an upper bound on what a
re-tuned threshold could give on these very answers, not a held-out figure). Nothing is re-audited: seconds per file.

    .venv/bin/python benchmarks/answer_aggregates.py PRED ../shared/benchmarks/ragtruth_dev.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.evaluation.metrics import auroc  # noqa: E402

Aggregate = Callable[[list[float], dict], float]


def _noisy_or(values: list[float]) -> float:
    kept = 1.0
    for v in values:
        kept *= 1.0 - v
    return 1.0 - kept


AGGREGATES: dict[str, Aggregate] = {
    "shipped (noisy-OR)": lambda scores, row: float(row["score"]),
    "maximum": lambda scores, row: max(scores, default=0.0),
    "noisy-OR of every claim": lambda scores, row: _noisy_or(scores),
    "count of flagged claims": lambda scores, row: sum(s >= 0.5 for s in scores) + 0.01 * max(scores, default=0.0),
    "share of flagged claims": lambda scores, row: (sum(s >= 0.5 for s in scores) / max(1, len(scores))
                                                    + 0.01 * max(scores, default=0.0)),
    "mean": lambda scores, row: sum(scores) / max(1, len(scores)),
}


def best_ba(pairs: list[tuple[float, bool]]) -> float:
    """The highest balanced accuracy of any threshold 'flag from this score up'."""
    positives = sum(h for _, h in pairs)
    negatives = len(pairs) - positives
    if not positives or not negatives:
        return float("nan")
    best = 0.0
    for threshold in sorted({s for s, _ in pairs}):
        tp = sum(h and s >= threshold for s, h in pairs)
        tn = sum((not h) and s < threshold for s, h in pairs)
        best = max(best, (tp / positives + tn / negatives) / 2)
    return best


def _shown(value: Optional[float]) -> str:
    return "–" if value is None else f"{value:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions", type=Path)
    parser.add_argument("gold", type=Path)
    args = parser.parse_args()
    predicted = {r["id"]: r for r in map(json.loads, args.predictions.read_text().splitlines())}
    gold = [json.loads(line) for line in args.gold.read_text().splitlines()]
    missing = [g["id"] for g in gold if g["id"] not in predicted]
    if missing:
        raise SystemExit(f"{args.predictions} has no prediction for {len(missing)} gold rows (first: {missing[0]})")
    print("| answer score | AUROC | AUROC among flagged answers | best BA of any threshold |\n|---|---:|---:|---:|")
    for name, aggregate in AGGREGATES.items():
        pairs, flagged = [], []
        for g in gold:
            row = predicted[g["id"]]
            value = aggregate([float(c["score"]) for c in row["claims"] if c.get("score") is not None], row)
            pairs.append((value, bool(g["hallucinated"])))
            if row["hallucinated"]:
                flagged.append(pairs[-1])
        print(f"| {name} | {_shown(auroc(pairs))} | {_shown(auroc(flagged))} | {best_ba(pairs):.4f} |")


if __name__ == "__main__":
    main()
