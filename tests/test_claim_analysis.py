"""The claim-level recording of the hybrid judge (benchmarks/claim_features.py) and its analysis
(benchmarks/claim_analysis.py): re-fusing what was recorded gives exactly the judge's decisions, a recording
that does not is refused, and setting the model's contradiction reading aside scores a claim by its
P(entailed) alone."""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

from rt4chart.core.errors import JudgeConfigError
from rt4chart.core.types import Verdict
from rt4chart.judges.factory import make_judge
from rt4chart.judges.model.judge import ModelSettings, fused_score, graded, model_verdict

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
RECORDS = [
    {"id": "bridge-right", "task": "qa", "hallucinated": False, "span_annotated": True, "spans": [],
     "context": "The Lindqvist bridge opened to traffic on 14 May 1998 after four years of work. It is 1,240 metres "
                "long. It carries four lanes of traffic.",
     "answer": "The bridge opened in May 1998. It is 1,240 metres long.", "meta": {"question": "When did it open?"}},
    {"id": "bridge-wrong", "task": "summary", "hallucinated": True, "span_annotated": True,
     "context": "The Lindqvist bridge opened to traffic on 14 May 1998 after four years of work. It is 1,240 metres "
                "long. It carries four lanes of traffic.",
     "answer": "The bridge opened in 2004. It carries six lanes and a railway line.",
     "spans": [{"start": 21, "end": 25, "text": "2004", "label": "Evident Conflict"}]},
]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    features = _load("claim_features")
    judge = features.RecordingHybrid(ModelSettings())
    return [features.record(judge, r) for r in RECORDS]


def test_the_recording_re_fused_gives_the_judges_own_decisions(recorded):
    analysis = _load("claim_analysis")
    analysis.check_reproduces("fixture", recorded, ModelSettings())
    wrong = recorded[1]
    assert wrong["hallucinated"] and wrong["claims"][0]["gold_labels"] == ["Evident Conflict"]
    assert any(c.get("proof") for c in wrong["claims"])  # '2004' against '1998': the offline proof decides
    table = analysis.flag_table(recorded)
    assert table["proof"] == {"a conflict span": 1}


def test_a_recording_that_does_not_re_fuse_to_the_judges_scores_is_refused(recorded):
    analysis = _load("claim_analysis")
    tampered = json.loads(json.dumps(recorded))
    claim = next(c for a in tampered for c in a["claims"] if not c.get("proof"))
    claim["fused"] = 1.0 - claim["fused"]
    with pytest.raises(SystemExit, match="re-fused"):
        analysis.check_reproduces("tampered", tampered, ModelSettings())


def test_the_models_claim_score_is_half_at_its_thresholds_and_contradiction_comes_first():
    s = ModelSettings()
    assert model_verdict(s.entail_threshold, 0.0, s.entail_threshold) == (Verdict.ENTAILED, 0.5)
    assert model_verdict(0.05, 0.9, s.entail_threshold, s.contradict_threshold) == (Verdict.CONTRADICTED, 0.95)
    verdict, score = model_verdict(0.05, 0.9, s.entail_threshold)  # set aside: P(entailed) 0.05 alone scores it
    assert verdict is Verdict.BASELESS and score == pytest.approx(0.5 + 0.5 * 0.25 / 0.3)
    decided = dataclasses.replace(s, fuse_grade_words=0.0)  # the fused score before its grading within a side
    assert fused_score(0.5, 0.5, decided) == pytest.approx(0.5)
    assert fused_score(0.0001, 0.9999, decided) == pytest.approx(0.5)  # each logit clipped to ±3: neither decides alone
    assert fused_score(0.0001, 0.9999, s) >= 0.5  # a tie stays flagged once graded


@pytest.mark.parametrize("model", [0.0001, 0.05, 0.2, 0.3, 0.5])
@pytest.mark.parametrize("offline", [0.5, 0.51, 0.7, 0.9999])
def test_the_models_support_never_clears_a_claim_the_word_check_flags(offline, model):
    """The hybrid's model may add doubt to a claim the word check flags, never take it away; without the rule the
    same readings clear it (the model's support outweighs the words)."""
    s = dataclasses.replace(ModelSettings(), fuse_grade_words=0.0)
    assert fused_score(offline, model, ModelSettings()) >= 0.5
    assert fused_score(offline, model, s) == pytest.approx(1 / (1 + math.exp(-min(3.0, math.log(offline / (1 - offline))))))
    assert fused_score(offline, 0.9, s) > fused_score(offline, model, s)  # its doubt still adds
    if model <= 0.05 and offline < 0.9:
        assert fused_score(offline, model, dataclasses.replace(s, word_flags_stand=False)) < 0.5


def test_the_models_doubt_still_flags_a_claim_the_words_support():
    s = ModelSettings()
    assert fused_score(0.2, 0.99, s) >= 0.5  # HaluEval's swapped answers: every word is in the context, the model doubts
    assert fused_score(0.2, 0.1, s) < 0.5


@pytest.mark.parametrize("share", [0.0, 0.25, 0.5, 0.99])
def test_grading_a_claims_score_never_moves_it_across_the_boundary(share):
    """However much of the word check's score grades it, a claim stays on the side of 0.5 its fused score is on."""
    values = [0.0, 1e-6, 0.1, 0.3, 0.4999, 0.5, 0.5001, 0.7, 0.95, 1.0]
    for decided in values:
        for offline in values:
            score = graded(decided, offline, share)
            assert 0.0 <= score <= 1.0
            assert (score >= 0.5) == (decided >= 0.5)


@pytest.mark.parametrize("share", [-0.1, 1.0, 2.0])
def test_a_grading_share_that_could_move_a_verdict_is_refused(share):
    with pytest.raises(ValueError, match="fuse_grade_words"):
        graded(0.4, 1.0, share)
    with pytest.raises(JudgeConfigError, match="fuse_grade_words must be at least 0 and below 1"):
        make_judge("hybrid", fuse_grade_words=share)  # a spec from a file or a job says so before any audit


def test_the_word_checks_margin_orders_claims_the_models_saturated_readings_tie():
    """Two claims flagged by the same saturated readings are ordered by how strongly the word check flags them;
    two supported ones by how little it doubts them."""
    s = ModelSettings()
    assert fused_score(0.9, 0.99, s) > fused_score(0.6, 0.99, s) >= 0.5
    assert fused_score(0.3, 0.01, s) > fused_score(0.02, 0.01, s)
    assert fused_score(0.3, 0.01, s) < 0.5
