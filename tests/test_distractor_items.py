"""training/distractors.py: a probe item holds its claim's one evidence sentence among same-topic distractors that
do not hold it; its control is the same distractors without it; probe and training contexts never meet."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

import distractors  # noqa: E402
from pairs import ContextWindows  # noqa: E402

CONTEXT = ("The Lindqvist Harbor Bridge opened to traffic on 14 May 1998. It is 1,240 metres long and carries four "
           "lanes of road traffic and a separate cycle path. Construction took four years and cost 310 million euros, "
           "which was 12 percent over the original budget. The bridge was designed by the engineering firm Aalto & "
           "Berg. Tolls are not charged for cyclists or pedestrians on the bridge. A major renovation of the deck is "
           "planned for 2027 by the city council.")
CLAIM = "The city council planned a major renovation of the deck for 2027."


def _item():
    item = distractors.item_of("harbor#0", "demo", "g-harbor", CLAIM, CLAIM, CONTEXT)
    assert item is not None
    return item


def test_the_evidence_is_the_sentence_holding_the_claims_words_and_the_distractors_do_not_hold_them():
    item, windows = _item(), ContextWindows(CONTEXT)
    assert item.evidence.startswith("A major renovation of the deck")
    assert len(item.distractors) == distractors.DISTRACTORS and item.evidence not in item.distractors
    evidence = windows.share(CLAIM, item.evidence)
    assert all(windows.share(CLAIM, d) <= distractors.DISTRACTOR_KEEPS * evidence for d in item.distractors)


def test_each_count_places_the_evidence_among_that_many_distractors_and_the_control_drops_only_the_evidence():
    item = _item()
    for count in distractors.COUNTS:
        premise = item.premise(count)
        assert item.evidence in premise and len(premise) <= distractors.PREMISE_CHARS
        assert sum(d in premise for d in item.distractors) == count
        assert item.premise(count) == premise  # seeded: the same item reads the same every time
    assert item.premise(0) == item.evidence
    assert item.evidence not in item.control() and item.control() == item.premise(5).replace(
        item.evidence, "").replace("  ", " ").strip()


def test_a_claim_whose_evidence_is_not_one_sentence_or_too_short_gives_no_item():
    assert distractors.item_of("x", "demo", "g", "Cats.", "Cats.", CONTEXT) is None
    unrelated = "The orchestra performed three symphonies by Sibelius in Helsinki last winter."
    assert distractors.item_of("x", "demo", "g", unrelated, unrelated, CONTEXT) is None


def test_probe_and_training_groups_are_disjoint_and_the_split_is_a_stable_share():
    groups = [f"g-{i}" for i in range(4000)]
    probe = [g for g in groups if distractors.is_probe(g)]
    assert probe == [g for g in groups if distractors.is_probe(g)]
    assert abs(len(probe) / len(groups) - distractors.PROBE_SHARE) < 0.03
    records = [{"id": f"r{i}", "dataset": "demo", "context": CONTEXT, "answer": CLAIM, "hallucinated": False,
                "meta": {"cv_group": g, "verdict": "supported"}} for i, g in enumerate(groups[:300])]
    held = distractors.items_of(records, probe=True, limit=1000)
    trained = distractors.items_of(records, probe=False, limit=1000)
    assert held and trained and not {i.group for i in held} & {i.group for i in trained}
    assert all(distractors.is_probe(i.group) for i in held)
