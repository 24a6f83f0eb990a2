"""Claims whose evidence is one sentence of their context, placed among that context's other sentences.

An item is a supported answer sentence (the claim), the single context sentence that holds its words (the
evidence) and up to five other sentences of the same context that share the most of its words without holding
them (same-topic distractors). Read with 0, 1, 2 or 5 distractors around the evidence (at a seeded random
place), a reader that finds one sentence among many keeps P(entailed) high; read with the distractors alone
(the control), it must not entail.

The same items serve two uses, on disjoint contexts (`is_probe` splits by the record's context group):
`benchmarks/distractor_probe.py` measures a reader on the probe's items; `training/teacher_pairs.py` turns
the others into training pairs. Only faithful records (every answer sentence supported) give items, so the
evidence sentence is a fair witness of the claim. Deterministic: the same records give the same items.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from pairs import ContextWindows

PROBE_SHARE = 0.16          # context groups (by hash) that belong to the probe, never to training
MIN_CHARS, MAX_CHARS = 40, 200  # a claim's, evidence's and distractor's length
PREMISE_CHARS = 720         # the whole premise: what one window of the model judge holds (pairs.WINDOW_CHARS)
EVIDENCE_SHARE = 0.6        # the evidence holds at least this idf-weighted share of the claim's words ...
WINDOW_SLACK = 0.1          # ... and at most this much less than the best window of the context does
DISTRACTOR_KEEPS = 0.4      # a distractor (and all of them together) holds at most this share of what the evidence does;
#                             higher lets in paraphrases of the evidence (a news article repeats its highlights)
DISTRACTORS = 5
COUNTS = (0, 1, 2, 5)       # the probe's distractor counts


def _stable(key: str) -> float:
    return int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def is_probe(group: str) -> bool:
    return _stable(f"probe:{group}") < PROBE_SHARE


@dataclass(frozen=True)
class Item:
    """A claim, its one evidence sentence and its same-topic distractors (hardest first)."""

    id: str
    source: str
    group: str
    claim: str
    hypothesis: str        # what the reader is given as the claim (a QA record's question before its answer)
    evidence: str
    distractors: tuple[str, ...]

    def _arranged(self, count: int) -> tuple[list[str], int]:
        """The first `count` distractors in a seeded order, and the evidence's place among them."""
        chosen = list(self.distractors[:count])
        rng = random.Random(f"{self.id}:{count}")
        rng.shuffle(chosen)
        return chosen, rng.randint(0, len(chosen))

    def premise(self, count: int) -> str:
        """The evidence at a seeded random place among the first `count` distractors."""
        chosen, at = self._arranged(count)
        return " ".join(chosen[:at] + [self.evidence] + chosen[at:])

    def among(self, others: tuple[str, ...]) -> str:
        """The evidence at a seeded random place among other sentences (e.g. another context's: unrelated)."""
        rng = random.Random(f"{self.id}:among")
        at = rng.randint(0, len(others))
        return " ".join(list(others[:at]) + [self.evidence] + list(others[at:]))

    def control(self, count: int = DISTRACTORS) -> str:
        """The same distractors, in the same order, without the evidence."""
        return " ".join(self._arranged(count)[0])

    @classmethod
    def from_json(cls, value: dict) -> "Item":
        """An item as `to_json` wrote it (`distractor_probe.py --write-items`)."""
        return cls(**{**value, "distractors": tuple(value["distractors"])})

    def to_json(self) -> dict:
        return {"id": self.id, "source": self.source, "group": self.group, "claim": self.claim, "hypothesis": self.hypothesis,
                "evidence": self.evidence, "distractors": list(self.distractors)}


def item_of(key: str, source: str, group: str, claim: str, hypothesis: str, context: str,
            windows: ContextWindows | None = None) -> Item | None:
    """The item of one supported claim, or None when its evidence is not one sentence of the context or fewer
    than five distractors fit the premise's length."""
    if not MIN_CHARS <= len(claim) <= MAX_CHARS:
        return None
    windows = windows or ContextWindows(context)
    sentences = [context[a:b] for a, b in windows.spans]
    if len(sentences) < DISTRACTORS + 1:
        return None
    share = [windows.share(claim, s) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (share[i], -i))
    evidence = sentences[best]
    if (share[best] < EVIDENCE_SHARE or not MIN_CHARS <= len(evidence) <= MAX_CHARS
            or share[best] < max(windows.coverage(claim)) - WINDOW_SLACK):
        return None
    ranked = sorted((i for i in range(len(sentences)) if i != best and MIN_CHARS <= len(sentences[i]) <= MAX_CHARS
                     and share[i] <= DISTRACTOR_KEEPS * share[best] and sentences[i] != evidence),
                    key=lambda i: (-share[i], i))
    chosen: list[str] = []
    length = len(evidence)
    for i in ranked:
        if len(chosen) == DISTRACTORS:
            break
        if length + 1 + len(sentences[i]) <= PREMISE_CHARS and sentences[i] not in chosen:
            chosen.append(sentences[i])
            length += 1 + len(sentences[i])
    if len(chosen) < DISTRACTORS:
        return None
    if windows.share(claim, " ".join(chosen)) > DISTRACTOR_KEEPS * windows.share(claim, " ".join(chosen + [evidence])):
        return None
    return Item(key, source, group, claim, hypothesis, evidence, tuple(chosen))


def faithful_records(path: Path, excluded_domains: Iterable[str] = ()) -> Iterator[dict]:
    """The records of a training file whose answer is faithful, in a fixed (hashed) order."""
    excluded = set(excluded_domains)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [r for r in records if not r["hallucinated"] and r["meta"].get("verdict") == "supported"
               and r["meta"].get("domain") not in excluded]
    records.sort(key=lambda r: _stable(f"order:{r['id']}"))
    yield from records


def items_of(records: Iterable[dict], probe: bool, limit: int, per_record: int = 2) -> list[Item]:
    """Up to `limit` items from the probe's (or the training's) context groups, at most `per_record` each."""
    from rt4chart.text.segment import split_sentences

    out: list[Item] = []
    for record in records:
        group = str(record["meta"].get("cv_group") or record["id"])
        if is_probe(group) != probe:
            continue
        windows = ContextWindows(record["context"])
        question = record["meta"].get("question")
        made = 0
        for n, sentence in enumerate(split_sentences(record["answer"]) or []):
            claim = sentence.text
            hypothesis = f"{question} {claim}" if question else claim
            item = item_of(f"{record['id']}#{n}", record["dataset"], group, claim, hypothesis, record["context"],
                           windows)
            if item is not None:
                out.append(item)
                made += 1
                if made == per_record:
                    break
        if len(out) >= limit:
            break
    return out[:limit]
