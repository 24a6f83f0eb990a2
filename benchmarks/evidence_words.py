"""How much of an entailed claim the sentences shown as its support hold, from predictions written by
`rt4chart bench FILE -o PRED.jsonl`. The dev files have no gold evidence, so this is a proxy a reader can check:
the share of the claim's content words (stems, rt4chart's tokenizer) found in the first sentence shown and in all
of them, how many claims are shown first with a sentence holding under a third of their words, and how many
sentences are shown. Claims with fewer than three content words are left out (a bare name says little).

Usage: python benchmarks/evidence_words.py PRED.jsonl [PRED.jsonl ...]
"""
from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.text.lexicon import tokenize  # noqa: E402

MIN_WORDS = 3


def stems(text: str) -> set[str]:
    return {t.stem for t in tokenize(text) if t.is_content}


def shown_support(claim: dict) -> list[str]:
    return [e["text"] for e in claim.get("evidence", []) if e.get("relation") == "supports"]


def summary(path: str) -> dict:
    """The figures of one predictions file (see the module's docstring)."""
    first: list[float] = []
    whole: list[float] = []
    shown: Counter = Counter()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        for claim in json.loads(line)["claims"]:
            words, support = stems(claim["text"]), shown_support(claim)
            if claim["verdict"] != "entailed" or len(words) < MIN_WORDS:
                continue
            shown[min(len(support), 3)] += 1
            if not support:
                continue
            first.append(len(words & stems(support[0])) / len(words))
            whole.append(len(words & set().union(*map(stems, support))) / len(words))
    return {"entailed claims": sum(shown.values()), "with no sentence shown": shown[0],
            "first sentence holds (mean share)": round(statistics.fmean(first), 3) if first else None,
            "all shown hold (mean share)": round(statistics.fmean(whole), 3) if whole else None,
            "first sentence holds under a third": sum(share < 1 / 3 for share in first),
            "sentences shown (1 / 2 / 3+)": [shown[1], shown[2], shown[3]]}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for path in argv:
        print(path, json.dumps(summary(path)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
