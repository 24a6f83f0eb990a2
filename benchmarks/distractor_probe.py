"""Does a reader find one sentence among many? Mean P(entailed) of a claim whose evidence is one sentence, alone and
placed among 1, 2 and 5 same-topic sentences of its own context, and of the distractors alone (a baseless control);
also among 5 sentences of another context (`unrelated_5`): a reader that loses the evidence there loses it to
length, not to sentences on its topic.

Items come from the faithful records of `../shared/training/` only (never a dev file), from the context groups that
`training/distractors.py` keeps for the probe (no training pair of the teacher comes from them). The demo's claims on
the app's bridge example are named cases, read against growing slices of its six-sentence context.

    python benchmarks/distractor_probe.py --model rt4chart/judges/model/verifier --out benchmarks/results/distractor_probe_v1.json
    python benchmarks/distractor_probe.py --write-items training/work/probe_items.jsonl   # for train.py --probe
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

import distractors  # noqa: E402

PROBE_FILES = {"halueval_summarization": (set(), 400), "summedits": ({"samsum", "podcast"}, 120)}
ITEMS = 400
# the app's bridge example (sample_data/make_sample.py), read the way docs/benchmarks.md reads it
HARBOR = ("The Lindqvist Harbor Bridge opened to traffic on 14 May 1998.",
          "It is 1,240 metres long and carries four lanes of road traffic and a separate cycle path.",
          "Construction took four years and cost 310 million euros, which was 12 percent over the original budget.",
          "The bridge was designed by the engineering firm Aalto & Berg.",
          "Tolls are not charged for cyclists or pedestrians.",
          "A major renovation of the deck is planned for 2027.")
NAMED = {"A deck renovation is planned for 2027.": 5, "The bridge opened to traffic in 1998.": 0}


def probe_items(data: Path) -> list[distractors.Item]:
    """The probe's items: the first of each file's faithful records (hashed order) in the probe's groups."""
    items: list[distractors.Item] = []
    for name, (excluded, limit) in PROBE_FILES.items():
        records = distractors.faithful_records(data / f"{name}.jsonl", excluded)
        items += distractors.items_of(records, probe=True, limit=limit)
    return items[:ITEMS] if len(items) > ITEMS else items


def named_cases(reader) -> dict:
    """Each named claim against its sentence alone, with the next one, the first three, and all six."""
    out = {}
    for claim, at in NAMED.items():
        slices = {"alone": [HARBOR[at]], "plus_one": [HARBOR[at], HARBOR[(at + 1) % 6]] if at == 0 else
                  [HARBOR[at - 1], HARBOR[at]], "three": list(HARBOR[max(0, at - 2):max(0, at - 2) + 3]),
                  "all_six": list(HARBOR)}
        probs = reader.pair_probs([" ".join(s) for s in slices.values()], [claim] * len(slices))
        out[claim] = {name: round(p[0], 3) for name, p in zip(slices, probs)}
    return out


def unrelated(items: list[distractors.Item], n: int) -> tuple[str, ...]:
    """Five sentences of another context: the distractors of the next item from another group whose sentences fit
    beside this evidence in one window (a reader that loses the evidence among these loses it to length, not to
    sentences on its topic)."""
    for step in range(1, len(items)):
        other = items[(n + step) % len(items)]
        if other.group != items[n].group and len(items[n].among(other.distractors)) <= distractors.PREMISE_CHARS:
            return other.distractors
    raise ValueError(f"no other context's five sentences fit beside item {items[n].id}'s evidence")


def measure(reader, items: list[distractors.Item]) -> dict:
    conditions = {f"distractors_{k}": [i.premise(k) for i in items] for k in distractors.COUNTS}
    conditions["control"] = [i.control() for i in items]
    conditions["unrelated_5"] = [i.among(unrelated(items, n)) for n, i in enumerate(items)]
    hypotheses = [i.hypothesis for i in items]
    per: dict[str, list[float]] = {}
    started = time.process_time()
    for name, premises in conditions.items():
        per[name] = [p[0] for p in reader.pair_probs(premises, hypotheses)]
    cpu = time.process_time() - started
    summary = {name: round(statistics.fmean(v), 4) for name, v in per.items()}
    by_source = {}
    for source in sorted({i.source for i in items}):
        idx = [n for n, i in enumerate(items) if i.source == source]
        by_source[source] = {"items": len(idx), **{name: round(statistics.fmean(v[n] for n in idx), 4)
                                                     for name, v in per.items()}}
    alone = summary["distractors_0"]
    return {"mean_p_entailed": summary, "ratio_5_to_alone": round(summary["distractors_5"] / alone, 4) if alone else None,
            "share_entailed_over_half": {name: round(sum(p > 0.5 for p in v) / len(v), 4) for name, v in per.items()},
            "by_source": by_source, "cpu_s": round(cpu, 1), "pairs": len(items) * len(conditions)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "training")
    parser.add_argument("--model", default=str(ROOT / "rt4chart" / "judges" / "model" / "verifier"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--write-items", type=Path, default=None, help="write the items (jsonl) and stop")
    parser.add_argument("--first", type=int, default=None,
                        help="read only the first N items (a partial probe, marked so in the output)")
    parser.add_argument("--items", type=Path, default=None,
                        help="read the items --write-items wrote instead of building them from --data")
    args = parser.parse_args()
    items = ([distractors.Item.from_json(json.loads(line)) for line in args.items.read_text().splitlines()
              if line.strip()] if args.items else probe_items(args.data))
    partial = args.first is not None and args.first < len(items)
    if partial:
        items = items[:args.first]
    if args.write_items:
        args.write_items.parent.mkdir(parents=True, exist_ok=True)
        args.write_items.write_text("".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in items))
        print(len(items), "items ->", args.write_items)
        return
    if len(items) < 300 and not partial:
        raise SystemExit(f"only {len(items)} probe items; the probe needs at least 300")
    from rt4chart.judges.model.checkpoint import Checkpoint

    reader = Checkpoint(args.model, threads=args.threads)
    result = {"model": args.model, "runtime": reader.runtime, "threads": args.threads, "items": len(items),
              "partial": partial,
              "sources": {s: sum(i.source == s for i in items) for s in sorted({i.source for i in items})},
              "item_rules": {"probe_share": distractors.PROBE_SHARE, "evidence_share": distractors.EVIDENCE_SHARE,
                             "distractor_keeps": distractors.DISTRACTOR_KEEPS,
                             "premise_chars": distractors.PREMISE_CHARS},
              **measure(reader, items), "named": named_cases(reader)}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
