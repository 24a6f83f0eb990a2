"""A fine-tuned model's probabilities (entailed, contradicted, baseless) for every pair of a pairs file.

What a student learns from (`train.py --teacher-probs`): the file records the pairs file's sha256, so it is
refused for other pairs, and the probabilities are in the pairs file's order. Read in order of length, batches of
`--batch-size`, on `--device` (bfloat16 autocast on a GPU with `--bf16`).

    python training/label_pairs.py --model training/work/teacher/final --pairs training/work/student_pairs.jsonl \\
        --out training/work/student_pairs.teacher.json
"""
from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def label(model_dir: Path, pairs: list[dict], device: str, bf16: bool, batch_size: int, max_len: int) -> list[list[float]]:
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).float().to(device).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i]["premise"]) + len(pairs[i]["hypothesis"]))
    out: list[list[float]] = [[] for _ in pairs]
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            enc = tokenizer([pairs[i]["premise"] for i in chunk], [pairs[i]["hypothesis"] for i in chunk],
                            truncation="only_first", max_length=max_len, padding=True, return_tensors="pt").to(device)
            with torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16, enabled=bf16):
                logits = model(**enc).logits.float()
            for i, row in zip(chunk, torch.softmax(logits, dim=-1).cpu().tolist()):
                out[i] = [round(x, 6) for x in row]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--bf16", action="store_true")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--max-len", type=int, default=256)
    args = parser.parse_args()
    raw = args.pairs.read_bytes()
    pairs = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
    started = time.time()
    probs = label(args.model, pairs, args.device, args.bf16, args.batch_size, args.max_len)
    args.out.write_text(json.dumps({"pairs_sha256": hashlib.sha256(raw).hexdigest(), "model": str(args.model),
                                    "max_len": args.max_len, "bf16": args.bf16, "pairs": len(pairs),
                                    "seconds": round(time.time() - started, 1), "probs": probs}))
    print(f"{len(pairs)} pairs labelled in {time.time() - started:.1f} s -> {args.out}")


if __name__ == "__main__":
    main()
