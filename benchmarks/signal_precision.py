"""Every signal at the claim level: how many claims it flags on each dev file and how many of those touch a
gold span (its precision), from benchmarks/fusion_signals.py's lines.

    .venv/bin/python benchmarks/signal_precision.py training/work/fusion      # a markdown table

A claim is hallucinated in gold when its answer span touches a gold span that counts (lenient). Rules are
the word check's deciding rule against the whole context; a model reading flags a claim when its P(entailed)
is under the model judge's threshold (0.3) or its P(contradicted) reaches 0.85, at each granularity.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt4chart.judges.fusion.signals import GRANULARITIES, RULES  # noqa: E402
from rt4chart.judges.model.judge import ModelSettings  # noqa: E402

DEV = ("ragtruth", "faithbench", "halueval_qa")
FLAGGING_RULES = tuple(r for r in RULES if r not in ("restates_question", "no_content"))


def _p(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-logit))


def tests() -> list[tuple[str, object]]:
    """(name, claim features -> flagged?) for every signal."""
    settings = ModelSettings()
    out: list[tuple[str, object]] = [("the word check flags it (any rule)", lambda x: x["offline_flagged"] > 0)]
    out += [(f"rule: {r.replace('_', ' ')}", lambda x, r=r: x[f"rule_{r}"] > 0) for r in FLAGGING_RULES]
    out.append(("an exact figure proof (the v1 hybrid lets it decide)", lambda x: x["proof"] > 0))
    for g in GRANULARITIES:
        out.append((f"model: P(entailed) < {settings.entail_threshold} against the {g}",
                    lambda x, g=g: _p(x[f"{g}_entail"]) < settings.entail_threshold))
    out.append((f"model: best P(entailed) of all four < {settings.entail_threshold}",
                lambda x: _p(x["best_entail"]) < settings.entail_threshold))
    for g in GRANULARITIES:
        out.append((f"model: P(contradicted) >= {settings.contradict_threshold} against the {g}",
                    lambda x, g=g: _p(x[f"{g}_contra"]) >= settings.contradict_threshold))
    out.append(("word check and best model reading both flag it",
                lambda x: x["offline_flagged"] > 0 and _p(x["best_entail"]) < settings.entail_threshold))
    return out


def table(folder: Path) -> str:
    claims = {f: [c for line in (folder / f"{f}.jsonl").read_text().splitlines() if line.strip()
                  for c in json.loads(line)["claims"] if c["x"] is not None and c["label"] is not None]
              for f in DEV if (folder / f"{f}.jsonl").exists()}
    files = list(claims)
    head = "| signal | " + " | ".join(f"{f}: flagged | precision" for f in files) + " |"
    rows = [head, "|---|" + "---:|---:|" * len(files)]
    base = " | ".join(f"{len(claims[f])} | {sum(c['label'] for c in claims[f]) / max(1, len(claims[f])):.3f}"
                      for f in files)
    rows.append(f"| every labelled claim (the base rate) | {base} |")
    for name, flags in tests():
        cells = []
        for f in files:
            hit = [c for c in claims[f] if flags(c["x"])]
            cells.append(f"{len(hit)} | {sum(c['label'] for c in hit) / len(hit):.3f}" if hit else "0 | –")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    print(table(parser.parse_args().folder))


if __name__ == "__main__":
    main()
