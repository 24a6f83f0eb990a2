"""The learned fusion's training and evaluation lines: every claim of every answer with its features (the
same `rt4chart.judges.fusion.signals.features` the judge scores with), its gold label and its group.

    .venv/bin/python benchmarks/fusion_signals.py --out fusion/ --files ragtruth           # resumable
    .venv/bin/python benchmarks/fusion_signals.py --out fusion/ --files faithbench,halueval_qa,xsum_spans:500,halueval_qa_train:500
    .venv/bin/python benchmarks/fit_fusion.py fusion/                                        # fit, cross-validate, write

A claim is hallucinated in gold when its answer span touches a gold span that counts (score.py's lenient
setting). In files without spans, a faithful answer's claims are all faithful; a hallucinated answer with one
claim is that claim; other claims of hallucinated answers are unlabelled (null), kept for answer scores.
Statements about the context keep the offline verdict (`fixed`: their score), as the judge does.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.auditing.pipeline import audit  # noqa: E402
from rt4chart.evaluation.metrics import touches_gold_span  # noqa: E402
from rt4chart.judges.base import Judgement  # noqa: E402
from rt4chart.judges.model.judge import HybridJudge, ModelSettings  # noqa: E402

SHARED = ROOT.parent / "shared"
FILES = {"ragtruth": SHARED / "benchmarks" / "ragtruth_dev.jsonl",
         "faithbench": SHARED / "benchmarks" / "faithbench_dev.jsonl",
         "halueval_qa": SHARED / "benchmarks" / "halueval_qa_dev.jsonl",
         "xsum_spans": SHARED / "training" / "xsum_spans.jsonl",
         "halueval_qa_train": SHARED / "training" / "halueval_qa.jsonl"}


class RecordingFusion(HybridJudge):
    """The learned hybrid's signals, recorded; verdicts are the word check's (no fusion file is needed)."""

    def __init__(self, settings: ModelSettings):
        super().__init__(settings)
        self.recorded: dict[int, dict] = {}

    @property
    def learned(self) -> bool:
        return True

    def _learned_verdict(self, claim, lexical, x, readings, piece, audit, usage) -> Judgement:
        self.recorded[claim.id] = x
        return lexical


def record(judge: RecordingFusion, gold: dict, name: str) -> dict:
    judge.recorded = {}
    meta = gold.get("meta") or {}
    report = audit(gold["context"], gold["answer"], meta.get("question"), judge=judge)
    claims = []
    for result in report.claims:
        spans = [(s.start, s.end) for s in result.claim.spans]
        if gold.get("span_annotated"):
            label = touches_gold_span(spans, gold.get("spans") or [])
        elif not gold["hallucinated"]:
            label = False
        else:
            label = True if len(judge.recorded) == 1 and result.claim.id in judge.recorded else None
        x = judge.recorded.get(result.claim.id)
        claims.append({"x": x, "fixed": None if x is not None else result.score, "label": label, "spans": spans})
    group = meta.get("source_id") or meta.get("cv_group") or meta.get("context_sha1") or gold["id"]
    return {"id": gold["id"], "file": name, "group": f"{name}:{group}", "task": gold.get("task"),
            "gold": bool(gold["hallucinated"]), "claims": claims}


def lines(name: str, limit: int | None, seed: int = 7) -> list[dict]:
    rows = [json.loads(line) for line in FILES[name].read_text().splitlines() if line.strip()]
    if limit is not None and limit < len(rows):
        rows = random.Random(seed).sample(rows, limit)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for one FILE.jsonl per file")
    parser.add_argument("--files", default="ragtruth", help="comma-separated names, each optionally NAME:N (a seeded sample)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--model", default="shipped", help="the checkpoint whose readings are recorded")
    args = parser.parse_args()
    judge = RecordingFusion(ModelSettings(model=args.model, threads=args.threads))
    args.out.mkdir(parents=True, exist_ok=True)
    for item in args.files.split(","):
        name, _, limit = item.partition(":")
        path = args.out / f"{name}.jsonl"
        done = {json.loads(line)["id"] for line in path.read_text().splitlines()} if path.exists() else set()
        with path.open("a") as out:
            for gold in lines(name, int(limit) if limit else None):
                if gold["id"] not in done:
                    out.write(json.dumps(record(judge, gold, name)) + "\n")
                    out.flush()
        print(f"{name}: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
