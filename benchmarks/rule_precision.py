"""The word check's rules at the claim level, as the offline judge decides today: for each rule, how many claims
it flags on each dev file, how many of those touch a gold span (its precision), and how often an answer whose
flags all come from that one rule is hallucinated in gold. No model and no recording: the three files take
about 12 s.

    .venv/bin/python benchmarks/rule_precision.py            # a markdown table
    .venv/bin/python benchmarks/rule_precision.py --json OUT  # the counts behind it

A claim is hallucinated in gold when its answer span touches a gold span that counts (lenient), as in
`fusion_signals.py`; HaluEval has no spans, so only its answer column is filled. A flag "found elsewhere" is one
whose every unsupported word the context has, in sentences other than the claim's nearest ones (its rationale
says only "the sentences nearest to the claim do not mention …").
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.auditing.pipeline import audit  # noqa: E402
from rt4chart.core.types import Verdict  # noqa: E402
from rt4chart.evaluation.metrics import touches_gold_span  # noqa: E402
from rt4chart.judges.offline.judge import OfflineJudge  # noqa: E402

DEV = ("ragtruth", "faithbench", "halueval_qa")
ELSEWHERE = "the sentences nearest to the claim do not mention"


class RuleRecorder(OfflineJudge):
    """The offline judge, keeping the rule of each claim's global verdict (the one the audit reports)."""

    def __init__(self) -> None:
        super().__init__()
        self.rules: dict[int, tuple[str, Verdict]] = {}

    def verify_global(self, claims, hints, audit_input, usage):
        results = super().verify_global(claims, hints, audit_input, usage)
        self.rules.update({cid: (j.rule, j.verdict) for cid, j in results.items()})
        return results


def count(name: str, path: Path) -> dict[str, Counter]:
    """Per rule: claims flagged and touching gold ('claims', 'in_gold'), answers whose flags all come from it and
    those hallucinated in gold ('answers', 'answers_gold')."""
    judge, tally = RuleRecorder(), {k: Counter() for k in ("claims", "in_gold", "answers", "answers_gold")}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        gold = json.loads(line)
        judge.rules = {}
        report = audit(gold["context"], gold["answer"], (gold.get("meta") or {}).get("question"), judge=judge)
        rules = set()
        for result in report.claims:
            if result.verdict is Verdict.ENTAILED:
                continue
            rule, verdict = judge.rules.get(result.claim.id, ("?", None))
            rule = rule if verdict is result.verdict else "a local verdict"
            if rule in ("missing_content", "unknown_name_or_number") and result.rationale.startswith(ELSEWHERE):
                rule += ", found elsewhere"
            rules.add(rule)
            if gold.get("span_annotated"):
                tally["claims"][rule] += 1
                tally["in_gold"][rule] += touches_gold_span([(s.start, s.end) for s in result.claim.spans], gold.get("spans") or [])
        if len(rules) == 1:
            [rule] = rules
            tally["answers"][rule] += 1
            tally["answers_gold"][rule] += bool(gold.get("hallucinated_lenient", gold["hallucinated"]))
    return tally


def table(tallies: dict[str, dict[str, Counter]]) -> str:
    files = list(tallies)
    rows = ["| rule | " + " | ".join(f"{f}: claims | precision | answers by it alone | hallucinated" for f in files)
            + " |", "|---|" + "---:|---:|---:|---:|" * len(files)]
    names = sorted({r for t in tallies.values() for r in t["claims"] | t["answers"]},
                   key=lambda r: -sum(t["claims"][r] + t["answers"][r] for t in tallies.values()))
    for rule in names:
        cells = []
        for f in files:
            t = tallies[f]
            n, a = t["claims"][rule], t["answers"][rule]
            cells.append(f"{n} | {t['in_gold'][rule] / n:.3f}" if n else "0 | –")
            cells.append(f"{a} | {t['answers_gold'][rule] / a:.3f}" if a else "0 | –")
        rows.append(f"| {rule.replace('_', ' ')} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=Path, default=ROOT.parent / "shared" / "benchmarks")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    args = parser.parse_args()
    tallies = {f: count(f, args.benchmarks / f"{f}_dev.jsonl") for f in DEV
               if (args.benchmarks / f"{f}_dev.jsonl").exists()}
    print(table(tallies))
    if args.json:
        args.json.write_text(json.dumps({f: {k: dict(v) for k, v in t.items()} for f, t in tallies.items()}, indent=1))


if __name__ == "__main__":
    main()
