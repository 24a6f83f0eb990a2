"""Unlabelled (piece, claim) pairs shaped exactly as the model judge reads them, from the shippable training files.

A student learns the teacher's reading best on the pairs it will be asked about: rt4chart's own claims
(`split_claims`), each routed to its windows, cut into pieces that fit the student's 256 tokens, plus the global
step's best sentences, a QA record's question before each claim (`meta.question`, as `rt4chart bench` reads it).
This runs the model judge over training records with a recording reader in place of a model: every pair the judge
asks about is written (label `unlabelled`; `train.py --teacher-probs` gives it the teacher's probabilities), and the
reader answers "baseless" so that every window and the global step are read.
Records come from the files and domains `pairs.SHIPPABLE` allows and HaluEval summarization, never from the
probe's context groups (`distractors.is_probe`), at most `--per-file` records a file and `--max-pairs` pairs in all (seeded sample).
Deterministic; a manifest beside the output records the files, their sha256 and the counts.

    python training/judge_pairs.py --out training/work/judge_pairs.jsonl
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import Counter
from pathlib import Path
from typing import Sequence

import distractors
import pairs as v1_pairs

from rt4chart.judges.model import judge as model_judge

NAME = "recording-reader"
# v1's shippable files, and HaluEval summarization, left out of v1 only for its answer-level labels (MIT; CNN/DM
# texts, as the distractor pairs use): unlabelled pairs need no label
UNLABELLED_OK = {**v1_pairs.SHIPPABLE, "halueval_summarization": set()}
FILES = {"halueval_summarization": 700, "halueval_qa": 500, "summedits": 400, "xsum_spans": 400,
         "begin": 250, "faithdial": 250, "dialfact": 150}


class RecordingReader:
    """Stands in for a Checkpoint: counts tokens with the student's tokenizer, records the pairs it is asked."""

    kind = "nli"
    runtime = "recording"
    digest = "recording-reader"

    def __init__(self, tokenizer_json: Path, max_length: int):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_json))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.max_length = max_length
        self.asked: list[tuple[str, str]] = []

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def fits(self, premise_tokens: int, claim_tokens: int) -> bool:
        return premise_tokens + claim_tokens + 4 <= self.max_length

    def pair_probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[tuple[float, float, float]]:
        self.asked.extend(zip(premises, hypotheses))
        return [(0.0, 0.0, 1.0)] * len(premises)


def records(path: Path, excluded: set[str], limit: int, rng: random.Random) -> list[dict]:
    kept = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        group = str(record.get("meta", {}).get("cv_group", record["id"]))
        if v1_pairs._keep(record, excluded) and not distractors.is_probe(group):
            kept.append(record)
    rng.shuffle(kept)
    return kept[:limit]


def question_of(record: dict) -> str | None:
    """A training record's question: `meta.question` (QA records), as `rt4chart bench` reads it."""
    return record.get("question") or record.get("meta", {}).get("question") or None


def judge_read(record: dict, judge, reader: RecordingReader) -> list[dict]:
    """Every (piece, claim) pair the model judge asks about `record`, as the judge reads it (a QA record's question
    before each claim), once each, in the order asked."""
    from rt4chart.auditing.pipeline import audit

    reader.asked.clear()
    audit(record["context"], record["answer"], question_of(record), judge=judge)
    group = str(record.get("meta", {}).get("cv_group", record["id"]))
    return [{"group": group, "source": record["dataset"], "record": record["id"], "premise": premise,
             "hypothesis": hypothesis, "label": "unlabelled", "kind": "judge-read"}
            for premise, hypothesis in dict.fromkeys(reader.asked)]


def recording_judge(max_length: int = 256) -> tuple:
    """The model judge with a RecordingReader as its model (the shipped tokenizer counts its tokens)."""
    from rt4chart.judges.model.judge import ModelJudge, ModelSettings, shipped_path

    reader = RecordingReader(Path(shipped_path()) / "tokenizer.json", max_length)
    model_judge._CHECKPOINTS[(NAME, 0)] = reader  # type: ignore[assignment]
    return ModelJudge(ModelSettings(model=NAME)), reader


def main() -> None:

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/training"))
    parser.add_argument("--out", type=Path, default=Path("training/work/judge_pairs.jsonl"))
    parser.add_argument("--per-file", type=float, default=1.0, help="scale of each file's record cap")
    parser.add_argument("--max-pairs", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    judge, reader = recording_judge(256)
    rng = random.Random(args.seed)
    out: list[dict] = []
    manifest: dict = {"files": {}, "seed": args.seed, "max_length": reader.max_length}
    for name, cap in FILES.items():
        excluded = UNLABELLED_OK.get(name)
        if excluded is None:
            continue
        path = args.data / f"{name}.jsonl"
        chosen = records(path, excluded, int(cap * args.per_file), rng)
        before = len(out)
        for record in chosen:
            out.extend(judge_read(record, judge, reader))
        manifest["files"][path.name] = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                                        "records": len(chosen), "pairs": len(out) - before,
                                        "excluded_domains": sorted(excluded)}
    rng.shuffle(out)
    out = out[:args.max_pairs]
    manifest.update(total=len(out), sources=dict(Counter(p["source"] for p in out)))
    v1_pairs.write_pairs(args.out, out, manifest)
    print(json.dumps(manifest["sources"]), len(out), "pairs ->", args.out)


if __name__ == "__main__":
    main()
