"""Fit the learned fusion from benchmarks/fusion_signals.py's lines, report cross-validated figures, write it.

    .venv/bin/python benchmarks/fit_fusion.py training/work/fusion --write rt4chart/judges/fusion/fusion.json

Trained on: RAGTruth dev claims (5 folds grouped by source document: every RAGTruth figure printed is
out-of-fold) plus the training files recorded (xsum_spans, halueval_qa_train); never on FaithBench or the
HaluEval dev file, which are reported as held out. Each training file weighs the same in total. The model is a
standardised L2 logistic regression (scikit-learn) over `signals.features`; the claim threshold is the one that
maximises the mean answer BA over the training files; the answer score is the pipeline's aggregate of claim
scores, Platt-calibrated on the training answers (out-of-fold for RAGTruth).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rt4chart.auditing.scores import aggregate, logit  # noqa: E402
from rt4chart.judges.fusion.learned import LearnedFusion, shifted  # noqa: E402

CV_FILE = "ragtruth"
TRAIN_FILES = ("xsum_spans", "halueval_qa_train")
HELD_OUT = ("faithbench", "halueval_qa")
FOLDS = 5


def load(folder: Path) -> dict[str, list[dict]]:
    return {p.stem: [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
            for p in sorted(folder.glob("*.jsonl"))}


def names_of(data: dict[str, list[dict]]) -> list[str]:
    for rows in data.values():
        for row in rows:
            for c in row["claims"]:
                if c["x"] is not None:
                    return list(c["x"])
    raise SystemExit("no claim with features in the lines")


def matrix(rows: list[dict], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Labelled claims with features: X, y."""
    xs, ys = [], []
    for row in rows:
        for c in row["claims"]:
            if c["x"] is not None and c["label"] is not None:
                xs.append([c["x"][n] for n in names])
                ys.append(int(c["label"]))
    return np.array(xs, dtype=float).reshape(-1, len(names)), np.array(ys, dtype=int)


class Fit:
    """A standardised logistic regression, as the shipped file stores it."""

    def __init__(self, names: list[str], c: float):
        self.names, self.c = names, c

    def train(self, parts: list[tuple[np.ndarray, np.ndarray]], weights: list[float]) -> "Fit":
        x = np.vstack([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        w = np.concatenate([np.full(len(p[1]), wt / max(1, len(p[1]))) for p, wt in zip(parts, weights)])
        w *= len(y) / w.sum()
        self.mean = x.mean(axis=0)
        self.scale = x.std(axis=0)
        self.scale[self.scale < 1e-6] = 1.0
        model = LogisticRegression(C=self.c, max_iter=2000)
        model.fit((x - self.mean) / self.scale, y, sample_weight=w)
        self.coef, self.intercept = model.coef_[0], float(model.intercept_[0])
        self.fusion = LearnedFusion(features=tuple(self.names), mean=tuple(map(float, self.mean)),
                                    scale=tuple(map(float, self.scale)), coef=tuple(map(float, self.coef)),
                                    intercept=self.intercept, threshold=0.5, answer_calibration=(1.0, 0.0), digest="")
        return self

    def p(self, x: dict) -> float:
        """P(hallucinated) exactly as the judge computes it from the file this fit writes."""
        return self.fusion.probability(x)


def answer_scores(rows: list[dict], fit: Fit, t: float) -> list[float]:
    out = []
    for row in rows:
        scores = [shifted(fit.p(c["x"]), t) if c["x"] is not None else c["fixed"] for c in row["claims"]]
        out.append(aggregate([s for s in scores if s is not None]))
    return out


def ba(gold: list[bool], flagged: list[bool]) -> float:
    pos = [f for g, f in zip(gold, flagged) if g]
    neg = [not f for g, f in zip(gold, flagged) if not g]
    return 0.5 * ((sum(pos) / len(pos) if pos else 0.0) + (sum(neg) / len(neg) if neg else 0.0))


def figures(rows: list[dict], scores: list[float], claim_flags: list[tuple[bool, bool]]) -> dict:
    gold = [r["gold"] for r in rows]
    flagged = [s >= 0.5 for s in scores]
    tp = sum(g and f for g, f in zip(gold, flagged))
    fp = sum(f and not g for g, f in zip(gold, flagged))
    fn = sum(g and not f for g, f in zip(gold, flagged))
    in_gold = sum(1 for f, lab in claim_flags if f and lab)
    flagged_claims = sum(1 for f, _ in claim_flags if f)
    return {"answers": len(rows), "ba": round(ba(gold, flagged), 4),
            "f1": round(2 * tp / max(1, 2 * tp + fp + fn), 4),
            "auroc": round(float(roc_auc_score(gold, scores)), 4) if len(set(gold)) == 2 else None,
            "precision": round(tp / max(1, tp + fp), 4), "recall": round(tp / max(1, tp + fn), 4),
            "claims_flagged": flagged_claims, "claim_precision": round(in_gold / max(1, flagged_claims), 4)}


def claim_flags(rows: list[dict], fit: Fit, t: float) -> list[tuple[bool, bool]]:
    return [(fit.p(c["x"]) >= t, bool(c["label"])) for r in rows for c in r["claims"]
            if c["x"] is not None and c["label"] is not None]


def offline_figures(rows: list[dict]) -> dict:
    """The word check alone on the same rows (its claim scores from the features; its verdicts decide)."""
    scores, flags = [], []
    for row in rows:
        claim_scores = [1 / (1 + math.exp(-c["x"]["offline_logit"])) if c["x"] is not None else c["fixed"]
                        for c in row["claims"]]
        scores.append(aggregate([s for s in claim_scores if s is not None]))
        flags += [(c["x"]["offline_flagged"] > 0, bool(c["label"])) for c in row["claims"]
                  if c["x"] is not None and c["label"] is not None]
    return figures(rows, scores, flags)


def best_threshold(files: list[list[dict]], fit: Fit) -> float:
    """The claim threshold with the best mean answer BA over `files` (each answer flagged when any claim is)."""
    best = (-1.0, 0.5)
    per_file = [[(r["gold"], max([fit.p(c["x"]) for c in r["claims"] if c["x"] is not None] or [0.0]),
                  any(c["x"] is None and (c["fixed"] or 0) >= 0.5 for c in r["claims"])) for r in rows] for rows in files]
    for t in np.arange(0.05, 0.951, 0.01):
        mean = np.mean([ba([g for g, _, _ in f], [m >= t or fx for _, m, fx in f]) for f in per_file])
        if mean > best[0]:
            best = (float(mean), round(float(t), 2))
    return best[1]


def platt(scores: list[float], gold: list[bool]) -> tuple[float, float]:
    x = np.array([[logit(s)] for s in scores])
    model = LogisticRegression(C=1e4, max_iter=2000).fit(x, np.array(gold, dtype=int))
    return float(model.coef_[0][0]), float(model.intercept_[0])


INTERACT = ("best_entail", "whole_entail", "window_entail", "sentence_entail", "neighbours_entail", "offline_logit",
            "unmatched_idf_share")
REGIMES = ("context_sentences", "question_given")  # how much a reading counts depends on these


def feature_names(signals: list[str], interactions: bool) -> list[str]:
    return signals + ([f"{a}*{b}" for a in INTERACT for b in REGIMES] if interactions else [])


def with_products(data: dict[str, list[dict]], names: list[str]) -> None:
    """Each claim's x gains the product features the fusion file names ('a*b'), as the judge computes them."""
    from rt4chart.judges.fusion.learned import value_of

    for rows in data.values():
        for row in rows:
            for c in row["claims"]:
                if c["x"] is not None:
                    c["x"] = {**c["x"], **{n: value_of(n, c["x"]) for n in names if "*" in n}}


def folds(data: dict[str, list[dict]], files: list[str], k: int = FOLDS) -> list[dict[str, tuple[list, list]]]:
    """k folds, each file split by its groups: fold i -> file -> (training rows, test rows)."""
    out: list[dict[str, tuple[list, list]]] = [{} for _ in range(k)]
    for f in files:
        rows = data[f]
        for i, (tr, te) in enumerate(GroupKFold(n_splits=k).split(rows, groups=[r["group"] for r in rows])):
            out[i][f] = ([rows[j] for j in tr], [rows[j] for j in te])
    return out


class Plan:
    """One fusion recipe: which features, how strong the L2, how much each training file weighs."""

    def __init__(self, names: list[str], c: float, weights: dict[str, float]):
        self.names, self.c, self.weights = names, c, weights

    def fit(self, rows: dict[str, list[dict]]) -> tuple[Fit, float]:
        files = [f for f in rows if self.weights.get(f, 0) > 0]
        fit = Fit(self.names, self.c).train([matrix(rows[f], self.names) for f in files],
                                            [self.weights[f] for f in files])
        return fit, best_threshold([rows[f] for f in files], fit)


def cross_validated(plan: Plan, data: dict[str, list[dict]], files: list[str]) -> tuple[dict[str, dict], dict[str, float]]:
    """The figures of every training file from out-of-fold answer scores and claim flags (folds grouped by
    source), and those scores by answer id."""
    scores: dict[str, dict[str, float]] = {f: {} for f in files}
    flags: dict[str, list] = {f: [] for f in files}
    for fold in folds(data, files):
        fit, t = plan.fit({f: part[0] for f, part in fold.items()})
        for f, (_, test) in fold.items():
            scores[f].update(zip((r["id"] for r in test), answer_scores(test, fit, t)))
            flags[f] += claim_flags(test, fit, t)
    return ({f: figures(data[f], [scores[f][r["id"]] for r in data[f]], flags[f]) for f in files},
            {i: v for f in files for i, v in scores[f].items()})


def provenance(name: str, rows: list[dict]) -> dict:
    """Which file a training set came from, its checksum, and how many of its answers were used."""
    from fusion_signals import FILES  # benchmarks/ is on the path when this script runs

    path = FILES[name]
    return {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None,
            "answers_used": len(rows), "claims_labelled": sum(c["label"] is not None for r in rows for c in r["claims"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--grid", action="store_true", help="choose C, interactions and file weights by the mean "
                        "out-of-fold answer BA of the training files (else: the defaults below)")
    parser.add_argument("--c", type=float, default=0.3, help="inverse L2 strength")
    parser.add_argument("--interactions", action="store_true", help="readings times context length and question")
    parser.add_argument("--weights", default="ragtruth=1,xsum_spans=1,halueval_qa_train=1",
                        help="each training file's total weight (FILE=W,...)")
    parser.add_argument("--write", type=Path, help="write the fusion file here")
    args = parser.parse_args()
    data = load(args.folder)
    signals = names_of(data)
    weights = {k: float(v) for k, v in (item.split("=") for item in args.weights.split(","))}
    train = [f for f in (CV_FILE,) + TRAIN_FILES if f in data]
    candidates = [Plan(feature_names(signals, args.interactions), args.c, weights)]
    if args.grid:
        candidates = [Plan(feature_names(signals, inter), c, {CV_FILE: 1.0, "xsum_spans": wx, "halueval_qa_train": wh})
                      for inter in (False, True) for c in (0.1, 1.0) for wx in (0.0, 0.3, 1.0) for wh in (0.3, 1.0)]
    with_products(data, feature_names(signals, True))
    best = None
    for plan in candidates:
        cv, oof = cross_validated(plan, data, train)
        mean = float(np.mean([cv[f]["ba"] for f in train]))
        each = ", ".join(f"{f} {cv[f]['ba']:.3f}/{cv[f]['auroc']:.3f}" for f in train)
        print(f"C {plan.c} products {len(plan.names) > len(signals)} weights {plan.weights}: mean out-of-fold BA "
              f"{mean:.4f} ({each})", file=sys.stderr)
        if best is None or mean > best[0]:
            best = (mean, plan, cv, oof)
    assert best is not None
    _, plan, cv, by_id = best
    fit, t = plan.fit({f: data[f] for f in train})
    oof_answers = [r for f in train for r in data[f]]  # Platt on their out-of-fold scores
    a, b = platt([by_id[r["id"]] for r in oof_answers], [r["gold"] for r in oof_answers])
    report = {f"{f} (out-of-fold, 5 folds by source)": cv[f] for f in train}
    report.update({f"{f}, the word check alone": offline_figures(data[f]) for f in train})
    for name in HELD_OUT:
        if name in data:
            report[f"{name} (held out)"] = figures(data[name], answer_scores(data[name], fit, t),
                                                   claim_flags(data[name], fit, t))
            report[f"{name}, the word check alone"] = offline_figures(data[name])
    print(json.dumps({"threshold": t, "answer_calibration": [round(a, 4), round(b, 4)], "c": plan.c,
                      "weights": plan.weights, "features": len(plan.names), "figures": report}, indent=1))
    top = sorted(zip(plan.names, fit.coef), key=lambda nc: -abs(nc[1]))
    print("coefficients (standardised):", ", ".join(f"{n} {c:+.2f}" for n, c in top[:20]), file=sys.stderr)
    if args.write:
        body = {"features": plan.names, "mean": [float(v) for v in fit.mean], "scale": [float(v) for v in fit.scale],
                "coef": [float(v) for v in fit.coef], "intercept": fit.intercept, "threshold": t,
                "answer_calibration": [a, b], "c": plan.c, "weights": plan.weights,
                "trained_on": {f: provenance(f, data[f]) for f in train}, "figures": report}
        body["digest"] = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
        args.write.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
        print(f"wrote {args.write}", file=sys.stderr)


if __name__ == "__main__":
    main()
