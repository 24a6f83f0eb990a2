"""The teacher's training pairs: v1's pairs (`pairs.py`) and distractor pairs built like the probe's items.

Distractor pairs come from `distractors.py` items of the training's context groups only (never the probe's):
per item, the evidence among 1, 2, 3 or 5 of its same-topic distractors is `entailed`; the same distractors
alone are `baseless`; with PERTURB_RATE, the claim with one figure or one negation changed, read against the
evidence among distractors, is `contradicted`. v1's pairs are kept whole or as a hashed share (`--v1-share`),
so the run fits the machine. Deterministic; a manifest beside the output records every count and checksum.

    python training/teacher_pairs.py --out training/work/teacher_pairs.jsonl
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import distractors
import pairs

# file -> (domains left out, at most this many items); the shipped files' terms as in pairs.SHIPPABLE
ITEM_FILES = {"halueval_summarization": (set(), 2400), "summedits": ({"samsum", "podcast"}, 900),
              "xsum_spans": (set(), 100)}
COUNTS = (1, 2, 3, 5)
PERTURB_RATE = 0.4


def distractor_pairs(item: distractors.Item) -> list[dict]:
    rng = random.Random(f"teacher:{item.id}")
    base = {"group": item.group, "source": item.source, "record": item.id}
    count = rng.choice(COUNTS)
    out = [{**base, "premise": item.premise(count), "hypothesis": item.hypothesis, "label": "entailed",
            "kind": "distracted"},
           {**base, "premise": item.control(count), "hypothesis": item.hypothesis, "label": "baseless",
            "kind": "distractors"}]
    if rng.random() < PERTURB_RATE:
        changed = pairs._perturb(item.claim, rng)
        if changed:
            hypothesis = item.hypothesis[:len(item.hypothesis) - len(item.claim)] + changed
            out.append({**base, "premise": item.premise(rng.choice(COUNTS)), "hypothesis": hypothesis,
                        "label": "contradicted", "kind": "distracted-perturbed"})
    return out


def build(data: Path, v1_share: float, seed: int = 13) -> tuple[list[dict], dict]:
    v1, v1_manifest = pairs.build(data, pairs.SHIPPABLE, seed=seed)
    kept = [p for p in v1 if not distractors.is_probe(str(p["group"]))  # the probe's contexts never train
            and distractors._stable(f"v1:{p['record']}:{p['hypothesis']}:{p['kind']}") < v1_share]
    made: list[dict] = []
    files: dict = {}
    for name, (excluded, limit) in ITEM_FILES.items():
        path = data / f"{name}.jsonl"
        records = list(distractors.faithful_records(path, excluded))
        items = distractors.items_of(records, probe=False, limit=limit)
        file_pairs = [pair for item in items for pair in distractor_pairs(item)]
        made.extend(file_pairs)
        files[path.name] = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "items": len(items),
                            "excluded_domains": sorted(excluded), "pairs": dict(Counter(p["label"] for p in file_pairs))}
    out = kept + made
    out.sort(key=lambda p: distractors._stable(f"{seed}:{p['record']}:{p['hypothesis']}:{p['kind']}:{p['label']}"))
    manifest = {"v1": {"manifest": v1_manifest, "share": v1_share, "pairs": len(v1), "kept": len(kept)},
                "distractor_files": files, "counts": list(COUNTS), "perturb_rate": PERTURB_RATE,
                "probe_share": distractors.PROBE_SHARE, "pairs": dict(Counter(p["label"] for p in out)),
                "kinds": dict(Counter(p["kind"] for p in out)), "total": len(out)}
    return out, manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/training"))
    parser.add_argument("--out", type=Path, default=Path("training/work/teacher_pairs.jsonl"))
    parser.add_argument("--v1-share", type=float, default=1.0, help="hashed share of v1's pairs kept")
    args = parser.parse_args()
    out, manifest = build(args.data, args.v1_share)
    pairs.write_pairs(args.out, out, manifest)
    print(json.dumps(manifest["pairs"]), json.dumps(manifest["kinds"]), len(out), "pairs ->", args.out)


if __name__ == "__main__":
    main()
