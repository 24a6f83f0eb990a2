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
* perturbed pairs: a supported sentence with one figure changed, one negation added, or one name swapped
  for another name of the same window (a meaning-level conflict in the same words) is `contradicted`;
* evidence pairs (off by default), for a model that reads the topic but not the particulars, and whose
  P(entailed) fell as sentences without the evidence were added around it (v1: 0.79 for the evidence sentence
  alone, 0.01 for it among seven others on the same topic): a supported sentence with its best window widened
  by its neighbours to WIDE_CHARS (`--widen-rate`) is `entailed`; the widened window less the sentences that
  hold its evidence (`--evidence-cut-rate`; the topic stays, the particulars go) is `baseless`; the sentence
  with one more list item that its window never names (`--particular-rate`: "A and B" -> "A, C and B", C from
  another answer's list of the same file) is `baseless`. Each is drawn with its own hashed coin, so the other
  pairs stay the same byte for byte.
* distracted pairs (off by default, `--distract-rate`), for a model that finds the evidence only where it is
  the window's topic: the sentence's evidence (the one or two sentences of its best window that hold its words)
  put at a random place among hard distractors, the sentences of its own context and of other contexts of the
  same file that share the most of its words without its evidence, is `entailed`; the same distractors without
  the evidence, when they cover at most CUT_KEEPS of what the whole premise covers, are `baseless`. The same
  claim is thus seen with and without its evidence among the same sentences on its topic.

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
NAME_SWAP_SHARE = 0.0   # share of perturbations that swap a name (0 in the first shipped model's pairs)
EVIDENCE_CUT_RATE = 0.0  # share of supported sentences that also give an evidence-cut (baseless) pair
PARTICULAR_RATE = 0.0    # share of supported sentences with a list that also give a list-item-added (baseless) pair
WIDEN_RATE = 0.0         # share of supported sentences that also give their window widened by its neighbours (entailed)
DISTRACT_RATE = 0.0      # share of supported sentences that also give a distracted (entailed) and distractors-only pair
DISTRACTORS_FROM = 12    # candidate distractors drawn from the file's other contexts, per claim
WIDE_CHARS = 960         # a widened window's length (~240 word pieces: what a long context's piece holds at inference)
CUT_KEEPS = 0.5          # an evidence cut counts when the rest of the window covers at most this share of the claim
FIRST_KINDS = ("best", "off-window", "perturbed")  # the kinds a file's cap counts (the same records with extras on)
WINDOW_CHARS = 720   # ~180 word pieces: the premise's budget within 256 tokens
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|can|did|does|do)\b(?! not)")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})*\b")
_STOP = frozenset("the a an of to in and or is are was were be been for on at by with as that this it its from".split())
# "A and B" with single-word items (where a list item is added); "A, B, and C" (where the items come from)
_LIST = re.compile(r"\b([A-Za-z][a-z]{2,})(,? and )([A-Za-z][a-z]{2,})\b")
_LIST3 = re.compile(r"\b([A-Za-z][a-z]{2,}), ([A-Za-z][a-z]{2,}),? and ([A-Za-z][a-z]{2,})\b")


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

    def sentence_text(self, ids: list[int]) -> str:
        return " ".join(self.context[self.spans[s][0]:self.spans[s][1]] for s in ids)

    def widened(self, k: int, chars: int) -> list[int]:
        """Window `k`'s sentences with their neighbours (the following first, then the preceding) while the
        text, joined by single spaces, stays within `chars`."""
        i, j = self.windows[k]
        length = len(self.sentence_text(list(range(i, j + 1))))
        while j + 1 < len(self.spans) and length + 1 + self.spans[j + 1][1] - self.spans[j + 1][0] <= chars:
            j += 1
            length += 1 + self.spans[j][1] - self.spans[j][0]
        while i > 0 and length + 1 + self.spans[i - 1][1] - self.spans[i - 1][0] <= chars:
            i -= 1
            length += 1 + self.spans[i][1] - self.spans[i][0]
        return list(range(i, j + 1))

    def cut_evidence(self, ids: list[int], claim: str) -> str | None:
        """These sentences less those that hold the claim's evidence (the best-covering first, at most two), when
        the rest covers at most CUT_KEEPS of what all of them cover and keeps a sentence; else None."""
        if len(ids) < 2:
            return None
        full = self.share(claim, self.sentence_text(ids))
        if full <= 0:
            return None
        kept = list(ids)
        for _ in range(2):
            best = max(kept, key=lambda s: self.share(claim, self.sentence_text([s])))
            kept.remove(best)
            if not kept:
                return None
            rest = self.sentence_text(kept)
            if self.share(claim, rest) <= CUT_KEEPS * full:
                return rest
        return None


class SentencePool:
    """The sentences of a file's contexts, indexed by their words, to draw distractors that share a claim's words."""

    def __init__(self, records: list[dict]):
        self.texts: list[str] = []
        self.owner: list[str] = []
        index: dict[str, list[int]] = {}
        for record in records:
            context = record["context"]
            for sentence in split_sentences(context) or []:
                k = len(self.texts)
                self.texts.append(context[sentence.start:sentence.end])
                self.owner.append(record["id"])
                for word in sorted(set(_words(self.texts[-1]))):
                    index.setdefault(word, []).append(k)
        self.index = index
        self.idf = {w: math.log(1 + len(self.texts) / len(ids)) for w, ids in index.items()}

    def sharing(self, claim: str, record_id: str, n: int) -> list[str]:
        """The `n` sentences of other records' contexts that share the most idf-weighted words with `claim`
        (ties by position), leaving out words so common that they carry no topic."""
        score: Counter = Counter()
        for word in sorted(set(_words(claim))):
            ids = self.index.get(word, [])
            if not ids or len(ids) > 0.02 * len(self.texts) + 50:
                continue
            for k in ids:
                if self.owner[k] != record_id:
                    score[k] += self.idf[word]
        ranked = sorted(score, key=lambda k: (-score[k], k))[:n]
        return [self.texts[k] for k in ranked]


def distracted(record: dict, sentence: str, windows: ContextWindows, best: int,
               pool: SentencePool | None) -> tuple[str, str] | None:
    """(evidence among distractors, distractors alone) for one supported sentence, within WINDOW_CHARS, or None
    when no two distractors fit, or when the distractors alone cover more than CUT_KEEPS of the claim."""
    first, last = windows.windows[best]
    own = list(range(first, last + 1))
    share = {s: windows.share(sentence, windows.sentence_text([s])) for s in own}
    evidence = [max(own, key=lambda s: (share[s], -s))]
    rest = [s for s in own if s not in evidence]
    if rest and windows.share(sentence, windows.sentence_text(own)) > share[evidence[0]] + 0.15:
        evidence.append(max(rest, key=lambda s: (share[s], -s)))
    evidence_text = windows.sentence_text(sorted(evidence))
    candidates = [windows.sentence_text([s]) for s in range(len(windows.spans)) if s not in evidence]
    if pool is not None:
        candidates += pool.sharing(sentence, record["id"], DISTRACTORS_FROM)
    candidates = sorted(dict.fromkeys(c for c in candidates if c.strip() and c not in evidence_text),
                        key=lambda c: (-windows.share(sentence, c), c))
    chosen: list[str] = []
    length = len(evidence_text)
    for text in candidates:
        if length + 1 + len(text) <= WINDOW_CHARS:
            chosen.append(text)
            length += 1 + len(text)
    if len(chosen) < 2:
        return None
    rng = random.Random(f"distract:{record['id']}:{sentence}")
    rng.shuffle(chosen)
    at = rng.randint(0, len(chosen))
    premise = " ".join(chosen[:at] + [evidence_text] + chosen[at:])
    alone = " ".join(chosen)
    if windows.share(sentence, alone) > CUT_KEEPS * windows.share(sentence, premise):
        return None
    return premise, alone


def _label_of(record: dict) -> str:
    verdict = record["meta"].get("verdict")
    if not record["hallucinated"]:
        return "entailed"
    return {"contradicted": "contradicted", "unsupported": "baseless"}.get(verdict, "hallucinated")


def _span_label(label: str) -> str:
    return {"intrinsic": "contradicted", "extrinsic": "baseless"}.get(label, "hallucinated")


def _hypothesis(record: dict, sentence: str) -> str:
    question = record["meta"].get("question")
    return f"{question} {sentence}" if question else sentence


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


def _swap_name(sentence: str, premise: str, rng: random.Random) -> str | None:
    """The sentence with one of its names replaced by another name that the premise mentions."""
    mine = list(_NAME.finditer(sentence))
    others = sorted({m.group() for m in _NAME.finditer(premise)} - {m.group() for m in mine})
    others = [o for o in others if not any(o in m.group() or m.group() in o for m in mine)]
    if not mine or not others:
        return None
    m = rng.choice(mine)
    return sentence[:m.start()] + rng.choice(others) + sentence[m.end():]


def _perturb(sentence: str, rng: random.Random, premise: str = "") -> str | None:
    if premise and NAME_SWAP_SHARE and rng.random() < NAME_SWAP_SHARE:
        swapped = _swap_name(sentence, premise, rng)
        if swapped:
            return swapped
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


def list_items(answers: list[str]) -> dict[bool, list[str]]:
    """Single-word items of these answers' lists of three or more ("A, B and C": nouns far more often than a
    pair joined by "and" is), by case (True: capitalised), sorted."""
    items: dict[bool, set[str]] = {True: set(), False: set()}
    for answer in answers:
        for m in _LIST3.finditer(answer):
            words = m.groups()
            if len({w[0].isupper() for w in words}) == 1 and not any(w.lower() in _STOP for w in words):
                items[words[0][0].isupper()].update(words)
    return {k: sorted(v) for k, v in items.items()}


def add_particular(sentence: str, premise: str, items: dict[bool, list[str]], rng: random.Random) -> str | None:
    """The sentence with one more list item ("A and B" -> "A, C and B") that neither it nor the premise names."""
    lists = [m for m in _LIST.finditer(sentence) if m.group(1)[0].isupper() == m.group(3)[0].isupper()
             and m.group(1).lower() not in _STOP and m.group(3).lower() not in _STOP]
    if not lists:
        return None
    m = rng.choice(lists)
    known = set(_WORD.findall(premise.lower())) | set(_WORD.findall(sentence.lower()))
    pool = [w for w in items.get(m.group(1)[0].isupper(), []) if w.lower() not in known]
    if not pool:
        return None
    return sentence[:m.end(1)] + ", " + rng.choice(pool) + " and " + sentence[m.start(3):]


def hard_negatives(record: dict, sentence: str, windows: ContextWindows, best: int, base: dict,
                   items: dict[bool, list[str]], pool: SentencePool | None = None) -> list[dict]:
    """The particular hard negatives of one supported sentence (see the module's docstring), each drawn
    with its own hashed coin so that the other pairs do not move."""
    out = []
    key = f"{record['id']}:{sentence}"
    widen = bool(WIDEN_RATE) and _stable(f"widen:{key}") < WIDEN_RATE
    cut = bool(EVIDENCE_CUT_RATE) and _stable(f"cut:{key}") < EVIDENCE_CUT_RATE
    wide = windows.widened(best, WIDE_CHARS) if widen or cut else []
    first, last = windows.windows[best]
    if widen and len(wide) > last - first + 1:  # a window that could not grow is no new pair
        out.append({**base, "premise": windows.sentence_text(wide), "hypothesis": _hypothesis(record, sentence),
                    "label": "entailed", "kind": "widened"})
    if cut:
        rest = windows.cut_evidence(wide, sentence)
        if rest:
            out.append({**base, "premise": rest, "hypothesis": _hypothesis(record, sentence), "label": "baseless",
                        "kind": "evidence-cut"})
    if PARTICULAR_RATE and _stable(f"particular:{key}") < PARTICULAR_RATE:
        rng = random.Random(key)
        added = add_particular(sentence, windows.text(best), items, rng)
        if added:
            out.append({**base, "premise": windows.text(best), "hypothesis": _hypothesis(record, added),
                        "label": "baseless", "kind": "particular-added"})
    if DISTRACT_RATE and _stable(f"distract:{key}") < DISTRACT_RATE:
        made = distracted(record, sentence, windows, best, pool)
        if made:
            hyp = _hypothesis(record, sentence)
            out.append({**base, "premise": made[0], "hypothesis": hyp, "label": "entailed", "kind": "distracted"})
            out.append({**base, "premise": made[1], "hypothesis": hyp, "label": "baseless", "kind": "distractors"})
    return out


def pairs_of(record: dict, rng: random.Random, items: dict[bool, list[str]] | None = None,
             pool: SentencePool | None = None) -> list[dict]:
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
        hyp = _hypothesis(record, sentence)
        out.append({**base, "premise": windows.text(best), "hypothesis": hyp, "label": label, "kind": "best"})
        if label != "entailed":
            continue
        out.extend(hard_negatives(record, sentence, windows, best, base, items or {}, pool))
        worst = min(range(len(cover)), key=cover.__getitem__)
        if len(cover) > 2 and cover[worst] < 0.25 and rng.random() < 0.35:
            out.append({**base, "premise": windows.text(worst), "hypothesis": hyp, "label": "baseless",
                        "kind": "off-window"})
        if rng.random() < PERTURB_RATE:
            changed = _perturb(sentence, rng, windows.text(best))
            if changed:
                out.append({**base, "premise": windows.text(best), "hypothesis": _hypothesis(record, changed),
                            "label": "contradicted", "kind": "perturbed"})
    return out


def _keep(record: dict, excluded: set[str]) -> bool:
    verdict = record["meta"].get("verdict")
    if verdict in ("generic", "uncooperative"):
        return False
    return record["meta"].get("domain") not in excluded


def build(data: Path, files: dict[str, set[str]], seed: int = 13, cap_scale: float = 1.0) -> tuple[list[dict], dict]:
    pairs: list[dict] = []
    manifest: dict = {"files": {}, "excluded_files": NOT_SHIPPABLE, "seed": seed, "window_chars": WINDOW_CHARS,
                      "cap_scale": cap_scale, "perturb_rate": PERTURB_RATE, "name_swap_share": NAME_SWAP_SHARE}
    if WIDEN_RATE or EVIDENCE_CUT_RATE or PARTICULAR_RATE or DISTRACT_RATE:  # absent when off: v1's is unchanged
        manifest.update(widen_rate=WIDEN_RATE, wide_chars=WIDE_CHARS, evidence_cut_rate=EVIDENCE_CUT_RATE,
                        cut_keeps=CUT_KEEPS, particular_rate=PARTICULAR_RATE)
    if DISTRACT_RATE:
        manifest.update(distract_rate=DISTRACT_RATE, distractors_from=DISTRACTORS_FROM)
    for name, excluded in files.items():
        path = data / f"{name}.jsonl"
        raw = path.read_bytes()
        records = [json.loads(line) for line in raw.splitlines() if line.strip()]
        kept = [r for r in records if _keep(r, excluded)]
        kept.sort(key=lambda r: _stable(f"{seed}:{r['id']}"))
        rng = random.Random(seed)
        items = list_items([r["answer"] for r in kept]) if PARTICULAR_RATE else {}
        pool = SentencePool(kept) if DISTRACT_RATE else None
        file_pairs: list[dict] = []
        used = counted = 0
        for record in kept:
            if counted >= PER_FILE_CAP[name] * cap_scale:
                break
            made = pairs_of(record, rng, items, pool)
            file_pairs.extend(made)
            counted += sum(p["kind"] in FIRST_KINDS for p in made)
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


def main() -> None:
    global PERTURB_RATE, NAME_SWAP_SHARE, WIDEN_RATE, EVIDENCE_CUT_RATE, PARTICULAR_RATE, DISTRACT_RATE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/training"))
    parser.add_argument("--out", type=Path, default=Path("training/work/pairs.jsonl"))
    parser.add_argument("--cap-scale", type=float, default=1.0, help="multiply each file's cap on pairs")
    parser.add_argument("--perturb-rate", type=float, default=PERTURB_RATE)
    parser.add_argument("--name-swap-share", type=float, default=NAME_SWAP_SHARE)
    parser.add_argument("--widen-rate", type=float, default=WIDEN_RATE,
                        help="share of supported sentences that also give their window widened by its neighbours")
    parser.add_argument("--evidence-cut-rate", type=float, default=EVIDENCE_CUT_RATE,
                        help="share of supported sentences that also give their window less the evidence (baseless)")
    parser.add_argument("--particular-rate", type=float, default=PARTICULAR_RATE,
                        help="share of supported sentences with a list that also give one with an item added (baseless)")
    parser.add_argument("--distract-rate", type=float, default=DISTRACT_RATE,
                        help="share of supported sentences that also give their evidence among hard distractors "
                             "(entailed) and the distractors alone (baseless)")
    args = parser.parse_args()
    PERTURB_RATE, NAME_SWAP_SHARE = args.perturb_rate, args.name_swap_share
    WIDEN_RATE, EVIDENCE_CUT_RATE, PARTICULAR_RATE = args.widen_rate, args.evidence_cut_rate, args.particular_rate
    DISTRACT_RATE = args.distract_rate
    pairs, manifest = build(args.data, SHIPPABLE, cap_scale=args.cap_scale)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as fh:
        for pair in pairs:
            fh.write(json.dumps(pair, ensure_ascii=False) + "\n")
    args.out.with_suffix(".manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest["pairs"]), len(pairs), "pairs ->", args.out)


if __name__ == "__main__":
    main()
