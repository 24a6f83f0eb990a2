"""Where the hybrid judge's model helps and where it hurts, from `claim_features.py`'s recording:

1. the recording re-fused with the shipped settings gives exactly the judge's decisions (checked, or it stops);
2. how often each kind of flag is right at the claim level: the flagged claims by what decided them (a proof, the
   model's contradiction, a word-level contradiction, no support) against the gold spans they overlap;
3. answer BA / AUROC by how many claims the answer has, with the model's logit weighted 0, 0.5, 1 or 2;
4. the same files with the model's contradiction reading set aside (its P(entailed) alone scores the claim), and
   with the model's weight shrunk by the answer's claim count.

    .venv/bin/python benchmarks/claim_analysis.py claims/ [--json OUT]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.auditing.scores import aggregate  # noqa: E402
from rt4chart.evaluation.metrics import Scores  # noqa: E402
from rt4chart.judges.model.judge import ModelSettings, fused_score, model_verdict  # noqa: E402

Rescore = Callable[[dict, dict], float]   # (claim, answer) -> the claim's fused score


def shipped(settings: ModelSettings) -> Rescore:
    return lambda claim, answer: fused_score(claim["offline"], claim["model"], settings)


def without_model_contradiction(settings: ModelSettings) -> Rescore:
    """The model's claim score from its P(entailed) alone: a contradiction reading no longer scores the claim."""
    def rescore(claim: dict, answer: dict) -> float:
        return fused_score(claim["offline"], model_verdict(claim["entail"], claim["contra"],
                                                           settings.entail_threshold)[1], settings)
    return rescore


def shrunk_by_claims(settings: ModelSettings, power: float) -> Rescore:
    """The model's logit weighted k / (claims of the answer)^power: less say the more claims an answer has."""
    def rescore(claim: dict, answer: dict) -> float:
        k = settings.fuse_model / len(answer["claims"]) ** power
        return fused_score(claim["offline"], claim["model"], dataclasses.replace(settings, fuse_model=k))
    return rescore


def answer_raw(answer: dict, rescore: Rescore) -> float:
    """The answer's raw score: a proved claim keeps its recorded score, the others are re-fused."""
    scores = [c["raw"] if c.get("proof") else rescore(c, answer) for c in answer["claims"]]
    return aggregate([s for s in scores if s is not None])


def figures(answers: list[dict], rescore: Rescore) -> dict:
    s = Scores()
    for a in answers:
        raw = answer_raw(a, rescore)
        flagged = raw >= 0.5
        s.tp += a["gold"] and flagged
        s.fp += not a["gold"] and flagged
        s.fn += a["gold"] and not flagged
        s.tn += not a["gold"] and not flagged
        s.scored.append((raw, a["gold"]))
    return {"n": s.n, "ba": _rounded(s.balanced_accuracy), "auroc": _rounded(s.auroc), "precision": _rounded(s.precision)}


def _rounded(x: Optional[float]) -> Optional[float]:
    return None if x is None else round(x, 3)


def check_reproduces(name: str, answers: list[dict], settings: ModelSettings) -> None:
    fuse = shipped(settings)
    for a in answers:
        for c in a["claims"]:
            if not c.get("proof") and abs(fuse(c, a) - c["fused"]) > 1e-9:
                raise SystemExit(f"{name} {a['id']}: re-fused {fuse(c, a)} != recorded {c['fused']}")
        if (answer_raw(a, fuse) >= 0.5) != bool(a["hallucinated"]):
            raise SystemExit(f"{name} {a['id']}: the re-fused decision differs from the judge's")


def decided_by(claim: dict) -> str:
    if claim.get("proof"):
        return "proof"
    if claim["verdict"] == "contradicted":
        return "model contradiction" if claim["model_verdict"] == "contradicted" else "word-level contradiction"
    return "no support"


def flag_table(answers: list[dict]) -> dict[str, dict[str, int]]:
    """Flagged claims by what decided them, against the gold spans they overlap (span-annotated answers only)."""
    table: dict[str, Counter] = {}
    for a in answers:
        if not a.get("span_annotated"):
            continue
        for c in a["claims"]:
            if c["verdict"] == "entailed":
                continue
            labels = c["gold_labels"]
            where = ("a conflict span" if any("Conflict" in label for label in labels)
                     else "another gold span" if labels else "no gold span")
            table.setdefault(decided_by(c), Counter())[where] += 1
    return {k: dict(v) for k, v in table.items()}


def by_claim_count(answers: list[dict], settings: ModelSettings, bins=((1, 4), (5, 7), (8, 10_000))) -> list[dict]:
    rows = []
    for lo, hi in bins:
        part = [a for a in answers if lo <= len(a["claims"]) <= hi]
        if not part:
            continue
        row = {"claims": f"{lo}-{hi}" if hi < 10_000 else f"{lo}+", "answers": len(part)}
        for k in (0.0, 0.5, 1.0, 2.0):
            row[f"k={k:g}"] = figures(part, shipped(dataclasses.replace(settings, fuse_model=k)))
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = ModelSettings()
    out = {}
    for path in sorted(args.folder.glob("*.jsonl")):
        answers = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        check_reproduces(path.stem, answers, settings)
        out[path.stem] = {"shipped": figures(answers, shipped(settings)),
                          "without the model's contradictions": figures(answers, without_model_contradiction(settings)),
                          **{f"model weight / claims^{p:g}": figures(answers, shrunk_by_claims(settings, p))
                             for p in (0.5, 1.0)},
                          "flags": flag_table(answers), "by claim count": by_claim_count(answers, settings)}
        print(f"== {path.stem}: {len(answers)} answers; the recording re-fused gives the judge's decisions exactly")
        for name in ("shipped", "without the model's contradictions", "model weight / claims^0.5",
                     "model weight / claims^1"):
            print(f"  {name}: {out[path.stem][name]}")
        print("  flagged claims (decided by -> gold spans overlapped; span-annotated answers):"
              if out[path.stem]["flags"] else "  no span-annotated answers: no claim-level table")
        for source, counts in sorted(out[path.stem]["flags"].items()):
            print(f"    {source}: {counts}")
        print("  by claims per answer (BA / AUROC with the model's logit weighted k):")
        for row in out[path.stem]["by claim count"]:
            cells = "  ".join(f"{k} {v['ba']}/{v['auroc']}" for k, v in row.items() if k.startswith("k="))
            print(f"    {row['claims']} claims ({row['answers']} answers): {cells}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
