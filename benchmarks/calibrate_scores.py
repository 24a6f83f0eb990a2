"""Fit the answer-score calibration of the offline judge: score = sigmoid(a · logit(raw) + b) (Platt
scaling). The verdicts' boundary raw = 0.5 maps to sigmoid(b), which becomes the default threshold, so the
default decisions are exactly the verdicts' while the scores read as probabilities.

Reports, on the three dev files: the slope `a` fitted with 5-fold cross-validation (folds grouped by
context, so answers about one context never sit on both sides), the held-out log loss and Brier score
against uncalibrated raw scores, a reliability table of held-out predictions (deciles of predicted
probability vs the observed share of hallucinated answers), and a cross-dataset check (fit on two files,
test on the third). AUROC does not change: the calibration is monotone.
Usage: python benchmarks/calibrate_scores.py
"""
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rt4chart.auditing.scores import calibrate  # noqa: E402
from rt4chart.batch.rows import run_records  # noqa: E402
from rt4chart.data.records import records_from_rows  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.judges.offline.judge import OfflineSettings  # noqa: E402

FILES = ["ragtruth", "faithbench", "halueval_qa"]
SLOPES = [round(0.05 * k, 2) for k in range(1, 41)]
BIASES = [round(-2 + 0.05 * k, 2) for k in range(0, 81)]


def raw_scores() -> dict[str, list[tuple[float, bool, str]]]:
    judge = make_judge("offline", **{**OfflineSettings().__dict__, "answer_calibration": (1.0, 0.0)})
    out = {}
    for name in FILES:
        gold = [json.loads(x) for x in (ROOT.parent / "shared" / "benchmarks" / f"{name}_dev.jsonl").read_text().splitlines()]
        rows = list(run_records(records_from_rows(gold, source=name), judge))
        out[name] = [(r.report.score if r.report and r.report.score is not None else 0.0, bool(g["hallucinated"]),
                      g["context"][:200]) for r, g in zip(rows, gold)]
    return out


def log_loss(pairs, ab) -> float:
    total = 0.0
    for raw, y, *_ in pairs:
        p = min(max(calibrate(raw, *ab), 1e-6), 1 - 1e-6)
        total -= math.log(p if y else 1 - p)
    return total / len(pairs)


def brier(pairs, ab) -> float:
    return sum((calibrate(raw, *ab) - y) ** 2 for raw, y, *_ in pairs) / len(pairs)


def fit(pairs) -> tuple[float, float]:
    return min(((a, b) for a in SLOPES for b in BIASES), key=lambda ab: log_loss(pairs, ab))


def folds(pairs, k=5):
    groups = sorted({c for *_, c in pairs})
    for i in range(k):
        held = set(groups[i::k])
        yield [p for p in pairs if p[2] not in held], [p for p in pairs if p[2] in held]


def main() -> None:
    data = raw_scores()
    everything = [p for name in FILES for p in data[name]]
    slopes, held_out = [], []
    for train, test in folds(everything):
        a = fit(train)
        slopes.append(a)
        held_out += [(calibrate(raw, *a), y) for raw, y, _ in test]
    final = fit(everything)
    boundary = calibrate(0.5, *final)
    print(f"fitted (a, b) per fold: {slopes}; on all dev data: {final}; the verdicts' boundary maps to {boundary:.4f}")
    n = len(held_out)
    ll = -sum(math.log(min(max(p if y else 1 - p, 1e-6), 1)) for p, y in held_out) / n
    print(f"held-out (5 folds by context): log loss {ll:.4f} (raw scores: {log_loss(everything, (1.0, 0.0)):.4f}), "
          f"Brier {sum((p - y) ** 2 for p, y in held_out) / n:.4f} (raw: {brier(everything, (1.0, 0.0)):.4f})")
    print("reliability of held-out predictions (predicted -> observed):")
    ordered = sorted(held_out)
    for d in range(10):
        part = ordered[d * n // 10:(d + 1) * n // 10]
        print(f"  {part[0][0]:.2f}-{part[-1][0]:.2f}: predicted {sum(p for p, _ in part) / len(part):.3f}, observed "
              f"{sum(y for _, y in part) / len(part):.3f} (n={len(part)})")
    for held in FILES:
        train = [p for name in FILES if name != held for p in data[name]]
        a = fit(train)
        own = fit(data[held])
        print(f"cross-dataset: fit on the other two -> (a, b)={a}; on {held}: log loss {log_loss(data[held], a):.4f} "
              f"(its own best {own}: {log_loss(data[held], own):.4f}; raw {log_loss(data[held], (1.0, 0.0)):.4f})")


if __name__ == "__main__":
    main()
