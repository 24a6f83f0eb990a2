"""What the hybrid judge fused, claim by claim, on the dev files: the offline and the model claim scores, the
model's probabilities and verdict, the final verdict and spans, with the gold spans each claim overlaps.

    .venv/bin/python benchmarks/claim_features.py --out claims/          # one FILE.jsonl per dev file, resumable
    .venv/bin/python benchmarks/claim_analysis.py claims/                 # the tables of docs/benchmarks.md

A full pass costs what `rt4chart bench --judge hybrid` costs (about 25 minutes for the three files on 2 cores);
every fusion rule is then scored from these lines in seconds (`claim_analysis.py`), and the script checks that
re-fusing the recorded scores gives exactly the judge's decisions.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.auditing.pipeline import audit  # noqa: E402
from rt4chart.evaluation.metrics import gold_span_counts  # noqa: E402
from rt4chart.judges.model.judge import HybridJudge, ModelSettings  # noqa: E402

FILES = {"ragtruth": "ragtruth_dev.jsonl", "faithbench": "faithbench_dev.jsonl", "halueval_qa": "halueval_qa_dev.jsonl"}


class RecordingHybrid(HybridJudge):
    """The hybrid judge, keeping what it fused for each claim of the answer being audited."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fused: dict[int, dict] = {}
        self.raw: dict[int, float] = {}

    def verify_global(self, claims, hints, audit, usage):
        finals = super().verify_global(claims, hints, audit, usage)
        self.raw.update({cid: j.score for cid, j in finals.items()})
        return finals

    def _fuse(self, claim, lexical, read, audit):
        out = super()._fuse(claim, lexical, read, audit)
        self.fused[claim.id] = {
            "offline": lexical.score, "offline_verdict": lexical.verdict.value, "model": read.score,
            "model_verdict": read.verdict.value, "entail": getattr(read, "entail", None),
            "contra": getattr(read, "contra", None), "fused": out.score}
        return out


def overlapping(spans: list[tuple[int, int]], gold: list[dict]) -> list[str]:
    """The labels of the gold spans that count as hallucinated (score.py's lenient setting) and overlap `spans`."""
    return sorted({g["label"] for g in gold if gold_span_counts(g) for s, e in spans if s < g["end"] and g["start"] < e})


def record(judge: RecordingHybrid, gold: dict) -> dict:
    judge.fused, judge.raw = {}, {}
    question = (gold.get("meta") or {}).get("question")
    report = audit(gold["context"], gold["answer"], question, judge=judge)
    claims = []
    for result in report.claims:
        spans = [(s.start, s.end) for s in result.claim.spans]
        fused = judge.fused.get(result.claim.id)
        claims.append({**(fused or {"proof": True}), "verdict": result.verdict.value, "raw": judge.raw.get(result.claim.id),
                       "spans": spans,
                       "gold_labels": overlapping(spans, gold.get("spans") or [])})
    return {"id": gold["id"], "task": gold.get("task"), "gold": bool(gold["hallucinated"]),
            "span_annotated": bool(gold.get("span_annotated")),
            "hallucinated": report.hallucinated, "score": report.score, "claims": claims}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for one FILE.jsonl per dev file")
    parser.add_argument("--bench-dir", type=Path, default=ROOT.parent / "shared" / "benchmarks")
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--model", default="shipped")
    args = parser.parse_args()
    judge = RecordingHybrid(ModelSettings(model=args.model))
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.files.split(","):
        path = args.out / f"{name}.jsonl"
        done = {json.loads(line)["id"] for line in path.read_text().splitlines()} if path.exists() else set()
        with path.open("a") as out:
            for line in (args.bench_dir / FILES[name]).read_text().splitlines():
                gold = json.loads(line)
                if gold["id"] not in done:
                    out.write(json.dumps(record(judge, gold)) + "\n")
                    out.flush()
        print(f"{name}: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
