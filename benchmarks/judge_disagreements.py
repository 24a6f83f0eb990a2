"""Where two judges disagree on a claim, which one the gold spans side with: for the claims of two predictions
files of one dev file (same claims, matched by their answer spans), how many each judge flags alone and how many
of those touch a gold span (their precision), beside the base rate.

    .venv/bin/rt4chart bench ../shared/benchmarks/ragtruth_dev.jsonl --judge offline --no-cache -o offline.jsonl
    .venv/bin/rt4chart bench ../shared/benchmarks/ragtruth_dev.jsonl --judge hybrid --no-cache -o hybrid.jsonl
    .venv/bin/python benchmarks/judge_disagreements.py ../shared/benchmarks/ragtruth_dev.jsonl offline.jsonl hybrid.jsonl

A claim is hallucinated in gold when its answer span touches a gold span that counts (lenient); in a file without
spans (HaluEval) only the claims of one-claim answers are labelled, by the answer's label.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.evaluation.metrics import gold_span_counts  # noqa: E402

FLAGS = ("baseless", "contradicted")


def _lines(path: str) -> dict[str, dict]:
    return {r["id"]: r for r in (json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip())}


def _key(claim: dict) -> tuple:
    return tuple((s["start"], s["end"]) for s in claim["spans"])


def _touches(spans: list[dict], gold: list[dict]) -> bool:
    return any(s["start"] < g["end"] and g["start"] < s["end"] for s in spans for g in gold)


def labelled_pairs(gold_path: str, a_path: str, b_path: str):
    """(claim of A, the same claim of B, gold label) for every labelled claim both judged."""
    a_lines, b_lines = _lines(a_path), _lines(b_path)
    for record in _lines(gold_path).values():
        a, b = a_lines.get(record["id"]), b_lines.get(record["id"])
        if not a or not b or "claims" not in a or "claims" not in b:
            continue
        spans = [s for s in record.get("spans") or [] if gold_span_counts(s)]
        if not record.get("span_annotated") and len(a["claims"]) != 1:
            continue  # answer-level labels say nothing about one claim among several
        theirs = {_key(c): c for c in b["claims"]}
        for claim in a["claims"]:
            other = theirs.get(_key(claim))
            if other is not None:
                label = _touches(claim["spans"], spans) if record.get("span_annotated") else bool(record["hallucinated"])
                yield claim, other, label


def table(gold_path: str, a_path: str, b_path: str, a_name: str, b_name: str) -> str:
    counts: Counter = Counter()
    for a, b, label in labelled_pairs(gold_path, a_path, b_path):
        kind = {(True, True): "both flag it", (True, False): f"only {a_name} flags it",
                (False, True): f"only {b_name} flags it", (False, False): "neither flags it"}[
            (a["verdict"] in FLAGS, b["verdict"] in FLAGS)]
        for k in (kind, "every labelled claim (the base rate)"):
            counts[k, "n"] += 1
            counts[k, "gold"] += label
    rows = ["| claims | n | touching a gold span | precision |", "|---|---:|---:|---:|"]
    for kind in ("every labelled claim (the base rate)", "both flag it", f"only {a_name} flags it",
                 f"only {b_name} flags it", "neither flags it"):
        n, g = counts[kind, "n"], counts[kind, "gold"]
        rows.append(f"| {kind} | {n} | {g} | {g / n:.3f} |" if n else f"| {kind} | 0 | 0 | – |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--names", default="", help="A,B as the table names them (default: the file names)")
    args = parser.parse_args()
    names = args.names.split(",") if args.names else [Path(args.a).stem, Path(args.b).stem]
    print(table(args.gold, args.a, args.b, *names))


if __name__ == "__main__":
    main()
