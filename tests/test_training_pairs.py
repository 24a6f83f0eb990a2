"""training/pairs.py: a supported sentence meets its best window (entailed), maybe a window without its words
(baseless) and itself with one figure or negation changed (contradicted); an unsupported one keeps its record's
verdict; the same records give the same pairs under any hash seed."""
from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_each_sentence_meets_its_best_window_and_supported_ones_give_their_negatives():
    pairs = _pairs_module()
    supported = _record(1, "The museum opened on 14 May 1998 with maps and globes.")
    made = pairs.pairs_of(supported, random.Random(0))
    best = [p for p in made if p["kind"] == "best"]
    assert len(best) == 1 and best[0]["label"] == "entailed" and "14 May 1998" in best[0]["premise"]
    assert all(len(p["premise"]) <= 2 * pairs.WINDOW_CHARS for p in made)
    perturbed = [p for seed in range(40) for p in pairs.pairs_of(supported, random.Random(seed))
                 if p["kind"] == "perturbed"]
    assert perturbed and all(p["label"] == "contradicted" and p["hypothesis"] != supported["answer"]
                             for p in perturbed)
    unsupported = pairs.pairs_of(_record(2, "The museum opened in 2005.", hallucinated=True), random.Random(0))
    assert [(p["kind"], p["label"]) for p in unsupported] == [("best", "hallucinated")]  # no negatives of a flag


def test_a_perturbation_changes_one_figure_or_adds_one_negation():
    pairs = _pairs_module()
    changed = {pairs._perturb("It opened in 1998 and is closed.", random.Random(seed)) for seed in range(30)}
    assert any(c and "1998" not in c for c in changed) and any(c and "is not closed" in c for c in changed)
    assert pairs._perturb("Maps and globes.", random.Random(1)) is None


def test_a_dialogue_response_may_be_read_after_its_last_turn_as_a_qa_claim_is_after_its_question():
    """--dialogue-prompt: the last turn goes before each of the response's sentences (cut to its last 300
    characters at a word), a question still wins, and without the option the pairs are those v1 was trained on."""
    pairs = _pairs_module()
    record = _record(3, "The museum opened on 14 May 1998 with maps and globes.")
    record["meta"]["dialogue_history"] = "Hello there!\nWhen did the museum open?"
    plain = pairs.pairs_of(record, random.Random(0))
    prompted = pairs.pairs_of(record, random.Random(0), dialogue_prompt=True)
    assert [p["hypothesis"] for p in plain] == [p["hypothesis"].removeprefix("When did the museum open? ")
                                                for p in prompted]
    assert all(p["hypothesis"].startswith("When did the museum open? ") for p in prompted)
    assert [(p["kind"], p["label"], p["premise"]) for p in plain] == [(p["kind"], p["label"], p["premise"])
                                                                        for p in prompted]
    record["meta"]["dialogue_history"] = "Tell me. " + "word " * 100 + "and the last one?"
    prompt = pairs._prompt(record, True)
    assert len(prompt) <= pairs.PROMPT_CHARS and prompt.endswith("and the last one?") and prompt.startswith("word")
    record["meta"]["question"] = "Which year?"
    assert pairs._prompt(record, True) == "Which year?"
    assert pairs._prompt({"meta": {"dialogue_history": "\n \n"}}, True) == ""


@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
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
