"""training/pairs.py: the same records give the same pairs under any hash seed, and the particular hard
negatives keep the topic while taking away exactly the claim's particulars (its evidence sentences, or a list
item the window never names)."""
from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONTEXT = ("The museum stands on the river bank in the old town. It was designed by a Danish architect. "
           "The museum opened on 14 May 1998 with a collection of maps and globes. "
           "Its roof garden grows lavender and thyme. Visitors can reach it by tram or by ferry.")


def _pairs_module():
    spec = importlib.util.spec_from_file_location("rt4chart_training_pairs", ROOT / "training" / "pairs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(i: int, answer: str, hallucinated: bool = False) -> dict:
    return {"id": f"toy-{i}", "dataset": "toy", "task": "summary", "context": CONTEXT, "answer": answer,
            "hallucinated": hallucinated, "span_annotated": False, "spans": [],
            "meta": {"verdict": "not_supported" if hallucinated else "supported", "cv_group": f"g-{i % 3}"}}


def test_a_window_less_its_evidence_keeps_the_topic_and_loses_the_particulars():
    pairs = _pairs_module()
    windows = pairs.ContextWindows(CONTEXT)
    claim = "The museum opened on 14 May 1998 with maps and globes."
    best = max(range(len(windows.windows)), key=windows.coverage(claim).__getitem__)
    ids = windows.widened(best, pairs.WIDE_CHARS)
    assert ids == list(range(len(windows.spans)))  # a short context: the widened window is all of it
    rest = windows.cut_evidence(ids, claim)
    assert rest is not None
    assert "1998" not in rest and "globes" not in rest
    assert "museum" in rest.lower()  # the topic stays
    assert windows.share(claim, rest) <= pairs.CUT_KEEPS * windows.share(claim, windows.sentence_text(ids))


def test_a_widened_window_grows_by_its_neighbours_within_its_length():
    pairs = _pairs_module()
    windows = pairs.ContextWindows(" ".join(f"Sentence number {i} is about the museum." for i in range(40)))
    i, j = windows.windows[10]
    ids = windows.widened(10, 1000)
    assert ids == list(range(ids[0], ids[-1] + 1)) and ids[0] <= i and ids[-1] > j  # the following come first
    assert len(windows.sentence_text(ids)) <= 1000 < len(windows.sentence_text(ids + [ids[-1] + 1]))


def test_a_claim_whose_evidence_fills_the_window_gives_no_cut():
    pairs = _pairs_module()
    windows = pairs.ContextWindows("The bridge is old.")
    assert windows.cut_evidence([0], "The bridge is old.") is None  # one sentence: nothing would be left


def test_an_added_list_item_is_one_that_neither_the_claim_nor_the_window_names():
    pairs = _pairs_module()
    items = pairs.list_items(["They sell apples, pears and plums.", "Oslo, Bergen and Lavender met."])
    assert items[False] == ["apples", "pears", "plums"] and "Oslo" in items[True]
    window = "Its roof garden grows lavender and thyme; apples grow by the gate."
    added = pairs.add_particular("The garden grows lavender and thyme.", window, items, random.Random(1))
    assert added in ("The garden grows lavender, pears and thyme.", "The garden grows lavender, plums and thyme.")
    assert pairs.add_particular("The garden is green.", window, items, random.Random(1)) is None


def test_hard_negatives_are_baseless_and_leave_the_other_pairs_as_they_were():
    pairs = _pairs_module()
    records = [_record(i, a) for i, a in enumerate([
        "The museum opened on 14 May 1998 with maps and globes.",
        "The roof garden grows lavender and thyme.",
        "A Danish architect designed the museum.",
        "Visitors can reach the museum by tram or by ferry."])]
    records.append(_record(9, "The museum opened in 2005.", hallucinated=True))

    def made(cut: float, particular: float) -> list[dict]:
        pairs.WIDEN_RATE, pairs.EVIDENCE_CUT_RATE, pairs.PARTICULAR_RATE = cut, cut, particular
        items = {True: [], False: ["pears", "plums"]}
        return [p for r in records for p in pairs.pairs_of(r, random.Random(13), items)]

    plain, extra = made(0.0, 0.0), made(1.0, 1.0)
    new = [p for p in extra if p["kind"] in ("widened", "evidence-cut", "particular-added")]
    assert [p for p in extra if p not in new] == plain
    assert {p["kind"] for p in new} == {"evidence-cut", "particular-added"}  # a short context is never widened
    assert all(p["label"] == "baseless" for p in new)
    assert not any(p["record"] == "toy-9" for p in new)  # only supported sentences give hard negatives


def test_window_coverage_is_the_same_to_the_last_bit_under_any_hash_seed():
    """The best window is an argmax over float sums; summed in a set's order, near-ties broke differently from
    one run to the next, and so did the pairs."""
    script = f"""
import importlib.util, random
spec = importlib.util.spec_from_file_location('p', {str(ROOT / 'training' / 'pairs.py')!r})
p = importlib.util.module_from_spec(spec); spec.loader.exec_module(p)
rng = random.Random(5)
vocab = ['w%d' % i for i in range(60)]
context = ' '.join(' '.join(rng.choice(vocab) for _ in range(12)).capitalize() + '.' for _ in range(40))
windows = p.ContextWindows(context)
for _ in range(30):
    claim = ' '.join(rng.choice(vocab) for _ in range(9))
    print([c.hex() for c in windows.coverage(claim)], windows.share(claim, context[:300]).hex())
"""
    runs = [subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")]
    assert runs[0] and runs[0] == runs[1] == runs[2]


def test_distracted_pairs_show_the_same_claim_with_and_without_its_evidence_among_the_same_sentences():
    pairs = _pairs_module()
    other = {"id": "other", "context": "The museum shop sells maps of the old town. A ferry leaves every hour."}
    record = _record(1, "The museum opened on 14 May 1998 with maps and globes.")
    pool = pairs.SentencePool([record, other])
    assert pool.sharing("museum maps", "toy-1", 5) == ["The museum shop sells maps of the old town."]  # not its own
    windows = pairs.ContextWindows(CONTEXT)
    claim = record["answer"]
    best = max(range(len(windows.windows)), key=windows.coverage(claim).__getitem__)
    with_evidence, alone = pairs.distracted(record, claim, windows, best, pool)
    evidence = "The museum opened on 14 May 1998 with a collection of maps and globes."
    assert evidence in with_evidence and evidence not in alone
    assert sorted(with_evidence.replace(evidence, "").split()) == sorted(alone.split())  # the same distractors
    assert "The museum shop sells maps of the old town." in alone  # another context's sentence on the topic
    assert len(with_evidence) <= pairs.WINDOW_CHARS
    assert windows.share(claim, alone) <= pairs.CUT_KEEPS * windows.share(claim, with_evidence)


def test_distracted_pairs_are_drawn_beside_the_others_without_moving_them():
    pairs = _pairs_module()
    records = [_record(i, a) for i, a in enumerate([
        "The museum opened on 14 May 1998 with maps and globes.", "A Danish architect designed the museum."])]
    pool = pairs.SentencePool(records)

    def made(rate: float) -> list[dict]:
        pairs.DISTRACT_RATE = rate
        return [p for r in records for p in pairs.pairs_of(r, random.Random(13), {}, pool)]

    plain, extra = made(0.0), made(1.0)
    new = [p for p in extra if p["kind"] in ("distracted", "distractors")]
    assert [p for p in extra if p not in new] == plain and new
    assert {(p["kind"], p["label"]) for p in new} == {("distracted", "entailed"), ("distractors", "baseless")}
