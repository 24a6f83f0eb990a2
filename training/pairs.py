"""Training pairs for the shipped verifier: (context window, claim) -> entailed / contradicted / baseless.

The records of `../shared/training/` carry answer-level labels; the verifier is applied per (claim, window)
by the RT4CHART pipeline. This script turns records into pairs of that shape:

* the answer is split into sentences (rt4chart's own segmenter); each sentence is paired with the window
  of consecutive context sentences that best covers its words (idf-weighted), cut to a token budget;
* a faithful answer makes its sentences `entailed`; a hallucinated one of a single sentence takes the
  record's verdict (`contradicted`, `unsupported` -> `baseless`, or `hallucinated` when the source does not
  say which); in a multi-sentence answer only the sentences that hold a gold span or an edit take it;
* off-window pairs: a supported sentence with the window that covers it worst is `baseless` (a window
  without the evidence must never read as entailed, and never as contradicted);
* perturbed pairs: a supported sentence with one figure changed or one negation added (a meaning-level conflict
  in the same words) is `contradicted`.

Earlier rounds added evidence, list-item, name-swap and distracted pairs as off-by-default options; measured
not to help (docs/benchmarks.md), they left this script, and git keeps them (commit b3b0f31). The teacher's
distractor pairs are `teacher_pairs.py`'s.

Which files go in is decided by their licences (`SHIPPABLE`); every choice is recorded in the output's
manifest (file, records used, sha256). Deterministic: the same inputs give the same pairs.

    python training/pairs.py --data ../shared/training --out training/work/pairs.jsonl
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

from rt4chart.text.segment import split_sentences

LABELS = ("entailed", "contradicted", "baseless", "hallucinated")
# File -> domains excluded for their terms (None: whole file excluded from the shipped model).
SHIPPABLE = {
    "halueval_qa": set(),
    "summedits": {"samsum", "podcast"},
    "xsum_spans": set(),
    "begin": set(),
    "faithdial": set(),
    "dialfact": set(),
}
NOT_SHIPPABLE = {"halueval_dialogue": "OpenDialKG CC BY-NC 4.0", "ragtruth_data2txt": "Yelp dataset terms",
                 "halueval_summarization": "answer-level labels over long documents (no sentence label)"}
PER_FILE_CAP = {"halueval_qa": 5000, "summedits": 4000, "xsum_spans": 2400, "begin": 2600, "faithdial": 2000,
                "dialfact": 400}
PERTURB_RATE = 0.2      # share of supported sentences that also give a perturbed (contradicted) pair
WINDOW_CHARS = 720   # ~180 word pieces: the premise's budget within 256 tokens
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|can|did|does|do)\b(?! not)")
_STOP = frozenset("the a an of to in and or is are was were be been for on at by with as that this it its from".split())
# "A and B" with single-word items (where a list item is added); "A, B, and C" (where the items come from)


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def _stable(key: str) -> float:
    return int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


class ContextWindows:
    """Windows of consecutive sentences of one context, each within WINDOW_CHARS."""

    def __init__(self, context: str):
        self.context = context
        sentences = split_sentences(context) or []
        self.spans = [(s.start, s.end) for s in sentences] or [(0, len(context))]
        self.windows: list[tuple[int, int]] = []
        for i in range(len(self.spans)):
            j = i
            while j + 1 < len(self.spans) and self.spans[j + 1][1] - self.spans[i][0] <= WINDOW_CHARS:
                j += 1
            self.windows.append((i, j))
        self.bags = [Counter(_words(context[self.spans[i][0]:self.spans[j][1]])) for i, j in self.windows]
        df = Counter(w for bag in self.bags for w in bag)
        self.idf = {w: math.log(1 + len(self.bags) / c) for w, c in df.items()}

    def text(self, k: int) -> str:
        i, j = self.windows[k]
        start, end = self.spans[i][0], self.spans[j][1]
        return self.context[start:min(end, start + WINDOW_CHARS * 2)]

    def _weights(self, claim: str) -> dict[str, float]:
        """The claim's words with their idf (3.0 for a word the context lacks), in a fixed order: summed in a
        set's order, the shares moved in their last bit with the hash seed and near-tied windows swapped."""
        return {w: self.idf.get(w, 3.0) for w in sorted(set(_words(claim)))}

    @staticmethod
    def _held(weights: dict[str, float], held) -> float:
        return sum(v for w, v in weights.items() if w in held) / (sum(weights.values()) or 1.0)

    def coverage(self, claim: str) -> list[float]:
        weights = self._weights(claim)
        return [self._held(weights, bag) for bag in self.bags]

    def share(self, claim: str, text: str) -> float:
        """The idf-weighted share of the claim's words that `text` holds."""
        return self._held(self._weights(claim), set(_words(text)))

def _label_of(record: dict) -> str:
    verdict = record["meta"].get("verdict")
    if not record["hallucinated"]:
        return "entailed"
    return {"contradicted": "contradicted", "unsupported": "baseless"}.get(verdict, "hallucinated")


def _span_label(label: str) -> str:
    return {"intrinsic": "contradicted", "extrinsic": "baseless"}.get(label, "hallucinated")


PROMPT_CHARS = 300  # the most of a dialogue's last turn put before a response (a question is rarely longer)


def _prompt(record: dict, dialogue_prompt: bool) -> str:
    """What the judge would put before the answer's claims: a QA record's question, and with `dialogue_prompt` a
    dialogue record's last turn (a prompt followed by a whole sentence that is entailed: HaluEval QA alone teaches
    the reader that a question before a whole sentence marks a hallucination)."""
    question = record["meta"].get("question")
    if question or not dialogue_prompt:
        return question or ""
    turns = [t.strip() for t in str(record["meta"].get("dialogue_history") or "").splitlines() if t.strip()]
    last = turns[-1] if turns else ""
    return last if len(last) <= PROMPT_CHARS else last[-PROMPT_CHARS:].split(" ", 1)[-1]


def _hypothesis(record: dict, sentence: str, dialogue_prompt: bool = False) -> str:
    prompt = _prompt(record, dialogue_prompt)
    return f"{prompt} {sentence}" if prompt else sentence


def sentence_labels(record: dict) -> list[tuple[str, str]]:
    """(sentence, label) for the answer's sentences whose label the record determines."""
    answer = record["answer"]
    sentences = split_sentences(answer) or []
    pieces = [(s.start, s.end, s.text) for s in sentences] or [(0, len(answer), answer)]
    label = _label_of(record)
    if label == "entailed" or len(pieces) == 1:
        if record["spans"] and len(pieces) == 1:
            kinds = {_span_label(s["label"]) for s in record["spans"]}
            label = kinds.pop() if len(kinds) == 1 else "hallucinated"
        return [(text, label) for _, _, text in pieces]
    marked = [(s["start"], s["end"], _span_label(s.get("label", ""))) for s in record["spans"]]
    if not marked and record["meta"].get("edit_diff_spans"):
        marked = [(s[0], s[1], label) if isinstance(s, list) else (s["start"], s["end"], label)
                  for s in record["meta"]["edit_diff_spans"]]
    if not marked:
        return []
    out = []
    for start, end, text in pieces:
        kinds = {kind for s, e, kind in marked if s < end and e > start}
        if kinds:
            out.append((text, kinds.pop() if len(kinds) == 1 else "hallucinated"))
    return out


def _perturb(sentence: str, rng: random.Random) -> str | None:
    """The sentence with one figure changed or one negation added, or None when it has neither."""
    numbers = list(_NUMBER.finditer(sentence))
    if numbers and rng.random() < 0.6:
        m = rng.choice(numbers)
        value = m.group().replace(",", "")
        try:
            new = str(int(float(value)) + rng.choice([-3, -2, -1, 1, 2, 5, 10]))
        except ValueError:
            return None
        if new == value or new.startswith("-"):
            return None
        return sentence[:m.start()] + new + sentence[m.end():]
    aux = list(_AUX.finditer(sentence))
    if aux:
        m = rng.choice(aux)
        return sentence[:m.end()] + " not" + sentence[m.end():]
    return None


def pairs_of(record: dict, rng: random.Random, dialogue_prompt: bool = False) -> list[dict]:
    labelled = sentence_labels(record)
    if not labelled:
        return []
    windows = ContextWindows(record["context"])
    group = record["meta"].get("cv_group", record["id"])
    out = []
    for sentence, label in labelled:
        cover = windows.coverage(sentence)
        best = max(range(len(cover)), key=cover.__getitem__)
        base = {"group": group, "source": record["dataset"], "record": record["id"]}
        hyp = _hypothesis(record, sentence, dialogue_prompt)
        out.append({**base, "premise": windows.text(best), "hypothesis": hyp, "label": label, "kind": "best"})
        if label != "entailed":
            continue
        worst = min(range(len(cover)), key=cover.__getitem__)
        if len(cover) > 2 and cover[worst] < 0.25 and rng.random() < 0.35:
            out.append({**base, "premise": windows.text(worst), "hypothesis": hyp, "label": "baseless",
                        "kind": "off-window"})
        if rng.random() < PERTURB_RATE:
            changed = _perturb(sentence, rng)
            if changed:
                out.append({**base, "premise": windows.text(best), "hypothesis": _hypothesis(record, changed, dialogue_prompt),
                            "label": "contradicted", "kind": "perturbed"})
    return out


def _keep(record: dict, excluded: set[str]) -> bool:
    verdict = record["meta"].get("verdict")
    if verdict in ("generic", "uncooperative"):
        return False
    return record["meta"].get("domain") not in excluded


def build(data: Path, files: dict[str, set[str]], seed: int = 13, cap_scale: float = 1.0,
          dialogue_prompt: bool = False) -> tuple[list[dict], dict]:
    pairs: list[dict] = []
    manifest: dict = {"files": {}, "excluded_files": NOT_SHIPPABLE, "seed": seed, "window_chars": WINDOW_CHARS,
                      "cap_scale": cap_scale, "perturb_rate": PERTURB_RATE, "name_swap_share": 0.0}
    if dialogue_prompt:  # written only when set, so v1's manifest is reproduced as it was
        manifest["dialogue_prompt"] = {"turn": "last", "chars": PROMPT_CHARS}
    for name, excluded in files.items():
        path = data / f"{name}.jsonl"
        raw = path.read_bytes()
        records = [json.loads(line) for line in raw.splitlines() if line.strip()]
        kept = [r for r in records if _keep(r, excluded)]
        kept.sort(key=lambda r: _stable(f"{seed}:{r['id']}"))
        rng = random.Random(seed)
        file_pairs: list[dict] = []
        used = counted = 0
        for record in kept:
            if counted >= PER_FILE_CAP[name] * cap_scale:
                break
            made = pairs_of(record, rng, dialogue_prompt)
            file_pairs.extend(made)
            counted += len(made)
            used += 1
        pairs.extend(file_pairs)
        manifest["files"][path.name] = {
            "sha256": hashlib.sha256(raw).hexdigest(), "records": len(records), "records_used": used,
            "excluded_domains": sorted(excluded), "dropped": "generic and uncooperative verdicts",
            "pairs": dict(Counter(p["label"] for p in file_pairs))}
    pairs.sort(key=lambda p: _stable(f"{seed}:{p['record']}:{p['hypothesis']}:{p['kind']}"))
    manifest["pairs"] = dict(Counter(p["label"] for p in pairs))
    manifest["kinds"] = dict(Counter(p["kind"] for p in pairs))
    return pairs, manifest


def write_pairs(out: Path, pairs: list[dict], manifest: dict) -> None:
    """The pairs as JSONL (one pair a line, in order) and their manifest beside them (`OUT.manifest.json`)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        for pair in pairs:
            fh.write(json.dumps(pair, ensure_ascii=False) + "\n")
    out.with_suffix(".manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/training"))
    parser.add_argument("--out", type=Path, default=Path("training/work/pairs.jsonl"))
    parser.add_argument("--cap-scale", type=float, default=1.0, help="multiply each file's cap on pairs")
    parser.add_argument("--dialogue-prompt", action="store_true",
                        help="put a dialogue's last turn before its response's sentences, as a question is put")
    args = parser.parse_args()
    pairs, manifest = build(args.data, SHIPPABLE, cap_scale=args.cap_scale, dialogue_prompt=args.dialogue_prompt)
    write_pairs(args.out, pairs, manifest)
    print(json.dumps(manifest["pairs"]), len(pairs), "pairs ->", args.out)


if __name__ == "__main__":
    main()
