"""Claim-level training pairs from RAGTruth answers, made the way the judge reads them.

The shippable training files hold no claim-level labels from long, multi-passage RAG answers, which is where
the verifier fails (docs/benchmarks.md). RAGTruth's human spans give them. For each record this script runs
rt4chart's own steps: the answer's claims (`split_claims`), the windows the pipeline routes each claim to
(8 sentences every 4, the 3 best per claim), the pieces of each window that fit the model, and the global
step's best sentences. Those are exactly the (premise, hypothesis) pairs the model judge reads. A claim is
hallucinated when a gold span overlaps it (a Conflict span: contradicted; a Baseless one: baseless).

The judge takes the best piece (max over pieces), so the labels follow that rule (multiple-instance
learning): an entailed claim makes its best-read piece `entailed` (read by the current verifier; with
`--entailed-piece words`, the piece that holds most of the claim's words, where its evidence is); a
baseless claim makes its 3 best-read pieces `baseless` (the pieces the model must not read as support);
a contradicted claim makes its best-read piece `contradicted` and the next two `hallucinated`.

Records are split into two folds by source (every answer of a source in one fold), so that each fold's
model is scored on sources it never saw; `--fold K` writes the pairs of the other fold (K's model), `--fold
all` those of both (the shipped model). `--mix FILE --mix-count N` adds N pairs of an earlier pairs file so
the model keeps what it learnt there.

    python training/ragtruth_pairs.py --data ../shared/benchmarks/ragtruth_dev.jsonl --fold 0 \
        --mix training/work/pairs.jsonl --mix-count 4000 --out training/work/rt_fold0.jsonl
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import Counter
from pathlib import Path

from rt4chart.auditing.pipeline import prepare, route_claims
from rt4chart.core.config import AuditConfig
from rt4chart.core.cost import Cost
from rt4chart.judges.model.judge import ModelJudge
from rt4chart.text.coverage import ensure_coverage
from rt4chart.text.lexicon import tokenize
from rt4chart.text.segment import make_windows

CONFLICT = {"Evident Conflict", "Subtle Conflict"}


def fold_of(record: dict) -> int:
    """0 or 1, by the record's source (all answers of a source share a fold), per task."""
    key = f"rt4chart-cv:{record['task']}:{record['meta'].get('source_id', record['id'])}"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 2


def claim_label(spans: list[tuple[int, int]], record: dict) -> str:
    """entailed, contradicted or baseless: the gold spans that overlap the claim's characters."""
    answer = record["answer"]
    kinds = set()
    for gold in record["spans"]:
        for start, end in spans:
            lo, hi = max(start, gold["start"]), min(end, gold["end"])
            if hi > lo and answer[lo:hi].strip():
                kinds.add("contradicted" if gold.get("label") in CONFLICT else "baseless")
    if not kinds:
        return "entailed"
    return "contradicted" if "contradicted" in kinds else "baseless"


def candidates(judge: ModelJudge, record: dict) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(claim text, label, [(premise, hypothesis)]) for each claim, the pairs the judge would read."""
    config = AuditConfig()
    audit = prepare(record["context"], record["answer"], record["meta"].get("question"))
    claims = judge.decompose(audit, Cost()) if audit.answer_sentences else []
    claims, _ = ensure_coverage(claims, audit.answer, audit.answer_sentences)
    if not claims or not audit.context_sentences:
        return []
    windows = make_windows(len(audit.context_sentences), config.window_size, config.window_stride)
    routed = route_claims(claims, windows, audit, config.windows_per_claim)
    ids: dict[int, list[list[int]]] = {c.id: [] for c in claims}
    for window_index, window_claims in routed.items():
        for claim in window_claims:
            ids[claim.id].append(list(windows[window_index].sentence_ids()))
    out = []
    for claim in claims:
        hyp = judge._hypothesis(claim, audit)
        budget = max(16, judge.checkpoint.max_length - judge.checkpoint.count_tokens(hyp) - 4)
        texts: list[str] = []
        for sentence_ids in ids[claim.id] + [judge._best_sentences(claim, audit)]:
            for piece in judge._pieces(sentence_ids, budget, audit) if sentence_ids else []:
                texts.extend(judge._texts(piece, budget, audit))
        spans = [(s.start, s.end) for s in claim.spans]
        out.append((claim.text, claim_label(spans, record), [(t, hyp) for t in dict.fromkeys(texts)]))
    return out


def word_cover(premise: str, hypothesis: str) -> float:
    """Share of the hypothesis' content words (stems) that the premise contains: where its evidence is, by words."""
    wanted = {t.stem for t in tokenize(hypothesis) if t.is_content}
    if not wanted:
        return 0.0
    have = {t.stem for t in tokenize(premise) if t.is_content}
    return len(wanted & have) / len(wanted)


def claim_candidates(judge: ModelJudge, record: dict) -> list[dict]:
    """Every claim of the record with all the pairs the judge would read, the current verifier's reading of
    each, and how much of the claim's words each premise holds (the slow part, cached once for every rule)."""
    base = {"group": f"ragtruth:{record['meta'].get('source_id')}", "source": "ragtruth_dev",
            "record": record["id"], "fold": fold_of(record)}
    out = []
    for claim, label, pairs in candidates(judge, record):
        if not pairs:
            continue
        probs = judge.checkpoint.pair_probs([p for p, _ in pairs], [h for _, h in pairs])
        out.append({**base, "claim": claim, "label": label,
                    "pairs": [{"premise": p, "hypothesis": h, "entail": round(pr[0], 5), "contra": round(pr[1], 5),
                               "words": round(word_cover(p, claim), 4)} for (p, h), pr in zip(pairs, probs)]})
    return out


def labelled_pairs(candidate: dict, entailed_piece: str = "read") -> list[dict]:
    """The training pairs of one claim (see the module docstring). `entailed_piece`: which piece an entailed
    claim labels `entailed` -- `read`, the one the current verifier reads best; `words`, the one holding most of
    the claim's words (where its evidence is; the verifier's reading breaks ties)."""
    pairs, label = candidate["pairs"], candidate["label"]
    if label == "entailed":
        key = (lambda i: (-pairs[i]["words"], -pairs[i]["entail"])) if entailed_piece == "words" \
            else (lambda i: -pairs[i]["entail"])
        ranked = sorted(range(len(pairs)), key=key)
        chosen = [(ranked[0], "entailed")]
    elif label == "baseless":
        ranked = sorted(range(len(pairs)), key=lambda i: -pairs[i]["entail"])
        chosen = [(i, "baseless") for i in ranked[:3]]
    else:
        ranked = sorted(range(len(pairs)), key=lambda i: -max(pairs[i]["entail"], pairs[i]["contra"]))
        chosen = [(ranked[0], "contradicted")] + [(i, "hallucinated") for i in ranked[1:3]]
    base = {k: candidate[k] for k in ("group", "source", "record", "fold")}
    return [{**base, "premise": pairs[i]["premise"], "hypothesis": pairs[i]["hypothesis"], "label": pair_label,
             "kind": f"claim-{label}"} for i, pair_label in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/benchmarks/ragtruth_dev.jsonl"))
    parser.add_argument("--cache", type=Path, default=Path("training/work/rt_candidates.jsonl"),
                        help="every claim's candidate pairs with the verifier's reading, made once (the slow part) "
                             "and reused for each fold and rule")
    parser.add_argument("--fold", default="all", help="0 or 1: the pairs for the model scored on that fold; all")
    parser.add_argument("--mix", type=Path, default=None)
    parser.add_argument("--mix-count", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--tasks", default="qa,summary",
                        help="the RAGTruth tasks whose pairs are trained on (summary only: the shippable set; QA "
                             "contexts are MS MARCO passages, for non-commercial research only)")
    parser.add_argument("--entailed-ratio", type=float, default=0.0,
                        help="keep at most this many entailed pairs per pair of a hallucinated claim (0: all)")
    parser.add_argument("--entailed-piece", choices=("read", "words"), default="read",
                        help="an entailed claim's pair: the piece the verifier reads best, or the one holding most "
                             "of its words")
    args = parser.parse_args()
    raw = args.data.read_bytes()
    if not args.cache.exists():
        judge = ModelJudge()
        records = [json.loads(line) for line in raw.splitlines() if line.strip()]
        tmp = args.cache.with_suffix(".tmp")
        with tmp.open("w") as fh:
            for record in records:
                for candidate in claim_candidates(judge, record):
                    fh.write(json.dumps(candidate, ensure_ascii=False) + "\n")
        tmp.replace(args.cache)
    pairs = [pair for line in args.cache.read_text().splitlines() if line.strip()
             for pair in labelled_pairs(json.loads(line), args.entailed_piece)]
    if args.fold != "all":
        pairs = [p for p in pairs if p["fold"] != int(args.fold)]
    tasks = {t.strip() for t in args.tasks.split(",") if t.strip()}
    pairs = [p for p in pairs if p["record"].split("-")[1] in tasks]  # ids are ragtruth-<task>-<source>-<model>
    if args.entailed_ratio:  # supported claims outnumber the others 4:1 and their pieces are the noisier labels
        others = [p for p in pairs if p["label"] != "entailed"]
        entailed = [p for p in pairs if p["label"] == "entailed"]
        keep = int(args.entailed_ratio * len(others))
        entailed.sort(key=lambda p: hashlib.sha1(f"{args.seed}:{p['record']}:{p['hypothesis']}".encode()).hexdigest())
        pairs = others + entailed[:keep]
    mixed: list[dict] = []
    if args.mix and args.mix_count:
        earlier = [json.loads(line) for line in args.mix.read_text().splitlines() if line.strip()]
        mixed = random.Random(args.seed).sample(earlier, min(args.mix_count, len(earlier)))
    out = pairs + mixed
    random.Random(args.seed).shuffle(out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as fh:
        for pair in out:
            fh.write(json.dumps(pair, ensure_ascii=False) + "\n")
    manifest = {"ragtruth": {"file": args.data.name, "sha256": hashlib.sha256(raw).hexdigest(),
                             "trained_folds": "both" if args.fold == "all" else f"{1 - int(args.fold)}",
                             "tasks": sorted(tasks), "entailed_ratio": args.entailed_ratio,
                             "entailed_piece": args.entailed_piece,
                             "pairs": dict(Counter(p["label"] for p in pairs)),
                             "claims": dict(Counter(p["kind"] for p in pairs))},
                "mix": {"file": str(args.mix) if args.mix else None, "pairs": len(mixed)},
                "total": len(out)}
    earlier_manifest = args.mix.with_suffix(".manifest.json") if args.mix else None
    if earlier_manifest is not None and earlier_manifest.exists():  # every data file the model has seen, with its sha256
        earlier = json.loads(earlier_manifest.read_text())
        manifest["files"] = {**earlier.get("files", {}), args.data.name: {
            "sha256": manifest["ragtruth"]["sha256"], "tasks": sorted(tasks),
            "records_used": len({p["record"] for p in pairs}), "pairs": manifest["ragtruth"]["pairs"]}}
        manifest["excluded_files"] = {**earlier.get("excluded_files", {}), **(
            {f"{args.data.name} (qa task)": "MS MARCO passages: non-commercial research purposes only"}
            if "qa" not in tasks else {})}
    args.out.with_suffix(".manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
