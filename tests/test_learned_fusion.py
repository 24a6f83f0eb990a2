"""The learned fusion: its file is checked where it enters, it scores a claim from the same signals it was
trained on, its verdicts agree with their threshold and their rationale, and the word check says which rule
decided each claim."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rt4chart import audit
from rt4chart.core.errors import JudgeConfigError
from rt4chart.core.types import Verdict
from rt4chart.judges.factory import make_judge
from rt4chart.judges.fusion.learned import LearnedFusion
from rt4chart.judges.fusion.signals import RULES, SIGNALS

CONTEXT = ("The Lindqvist Harbor Bridge opened on 14 May 1998. It is 1,240 metres long and carries four lanes. "
           "A deck renovation is planned for 2027. The bridge was designed by the engineer Maja Holm.")
ANSWER = ("The bridge opened in 1998 and is 1,240 metres long. It was designed by Lars Berg. "
          "It carries six lanes. A renovation is planned for 2027.")


def _file(tmp_path: Path, **changes) -> Path:
    body = {"features": ["best_entail", "offline_logit", "best_entail*question_given"], "mean": [0, 0, 0],
            "scale": [1, 1, 1], "coef": [-1.0, 1.0, 0.5], "intercept": 0.0, "threshold": 0.4,
            "answer_calibration": [1.0, 0.0], **changes}
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(body))
    return path


def test_a_fusion_file_scores_a_claim_from_named_signals_and_products(tmp_path):
    fusion = LearnedFusion.load(_file(tmp_path))
    x = dict.fromkeys(SIGNALS, 0.0) | {"best_entail": 2.0, "offline_logit": 1.0, "question_given": 1.0}
    assert math.isclose(fusion.probability(x), 1 / (1 + math.exp(-(-2.0 + 1.0 + 1.0))))
    assert fusion.raw_score(fusion.threshold) == pytest.approx(0.5)  # the verdicts' boundary stays 0.5
    assert fusion.raw_score(0.9) > 0.5 > fusion.raw_score(0.1)


@pytest.mark.parametrize("changes, says", [
    ({"coef": [1.0]}, "differ in length"),
    ({"features": ["best_entail", "offline_logit", "P(sunshine)"]}, "does not measure: P(sunshine)"),
    ({"scale": [1, 0, 1]}, "scale is not positive"),
    ({"coef": [1.0, float("nan"), 1.0]}, "not finite"),
    ({"threshold": 1.5}, "not in (0, 1)"),
    ({"intercept": "high"}, "is not a fusion file"),
])
def test_a_wrong_fusion_file_is_refused_in_one_line(tmp_path, changes, says):
    with pytest.raises(JudgeConfigError) as caught:
        LearnedFusion.load(_file(tmp_path, **changes))
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_fusion_file_that_is_not_json_or_missing_is_refused(tmp_path):
    bad = tmp_path / "fusion.json"
    bad.write_bytes(b"\x00\x01 not json")
    with pytest.raises(JudgeConfigError, match="is not a fusion file"):
        LearnedFusion.load(bad)
    with pytest.raises(JudgeConfigError, match="no fusion file"):
        LearnedFusion.load(tmp_path / "absent.json")


def _lines(folder: Path, name: str, answers: int, seed: int) -> None:
    """Fusion lines as benchmarks/fusion_signals.py writes them: hallucinated claims lack support."""
    import random

    rnd = random.Random(seed)
    rows = []
    for i in range(answers):
        claims = []
        for _ in range(rnd.randint(1, 4)):
            bad = rnd.random() < 0.3
            x = dict.fromkeys(SIGNALS, 0.0)
            x.update(best_entail=rnd.gauss(-2 if bad else 2, 1.5), offline_logit=rnd.gauss(1 if bad else -1, 1.5),
                     context_sentences=rnd.uniform(1, 4), question_given=float(name != "ragtruth"))
            claims.append({"x": x, "fixed": None, "label": bad, "spans": [[0, 5]]})
        rows.append({"id": f"{name}-{i}", "file": name, "group": f"{name}:{i // 3}", "gold": any(c["label"] for c in claims),
                     "claims": claims})
    (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def fitted(tmp_path_factory) -> Path:
    """A fusion file written by benchmarks/fit_fusion.py from its own kind of lines."""
    import subprocess
    import sys

    folder = tmp_path_factory.mktemp("lines")
    _lines(folder, "ragtruth", 120, 1)
    _lines(folder, "halueval_qa_train", 60, 2)
    out = folder / "fusion.json"
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "fit_fusion.py"), str(folder), "--write", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def test_the_fit_script_writes_a_file_the_judge_loads_with_its_threshold_and_cross_validated_figures(fitted):
    fusion = LearnedFusion.load(fitted)
    body = json.loads(fitted.read_text())
    assert 0 < fusion.threshold < 1 and len(fusion.digest) == 16
    assert body["figures"]["ragtruth (out-of-fold, 5 folds by source)"]["auroc"] > 0.8  # the signal is learnable
    x = dict.fromkeys(SIGNALS, 0.0) | {"best_entail": -3.0, "offline_logit": 2.0, "context_sentences": 2.0}
    assert fusion.probability(x) > fusion.threshold > fusion.probability(x | {"best_entail": 3.0, "offline_logit": -2.0})


def test_the_word_check_names_the_rule_that_decided_each_claim():
    from rt4chart.auditing.pipeline import prepare
    from rt4chart.core.cost import Cost

    judge = make_judge("offline")
    data = prepare(CONTEXT, ANSWER, None)
    claims = judge.decompose(data, Cost())
    verdicts = judge.verify_global(claims, {}, data, Cost())
    assert {j.rule for j in verdicts.values()} >= {"found", "unknown_name_or_number"}
    for j in verdicts.values():
        assert j.rule in RULES + ("found", "about_context")
        assert j.verdict.is_hallucination == (j.rule not in ("found", "restates_question", "no_content")) or \
            j.rule == "about_context"
        assert "margin" in j.signals


@pytest.fixture(scope="module")
def learned_report(fitted):
    return audit(CONTEXT, ANSWER, judge=make_judge("hybrid", fusion=str(fitted), threads=1))


def test_a_learned_verdict_agrees_with_its_threshold_and_its_rationale(learned_report, fitted):
    threshold = LearnedFusion.load(fitted).threshold
    for result in learned_report.claims:
        p = float(result.rationale.split("P(hallucinated) ")[1].split(",")[0])
        if result.verdict is Verdict.ENTAILED:
            assert "below the flag" in result.rationale and p <= threshold + 0.005
            assert all(e.relation == "supports" for e in result.evidence)
        else:
            assert "flagged from" in result.rationale and p >= threshold - 0.005
            assert result.hallucinated_spans


def test_the_learned_hybrid_records_every_signal_of_every_claim(fitted):
    from rt4chart.auditing.pipeline import prepare
    from rt4chart.judges.model.judge import HybridJudge, ModelSettings

    judge = HybridJudge(ModelSettings(fusion=str(fitted), threads=1))
    data = prepare(CONTEXT, ANSWER, "Who designed it?")
    claims = judge.decompose(data, None)
    from rt4chart.core.cost import Cost

    finals = judge.verify_global(claims, {}, data, Cost())
    for claim in claims:
        assert set(finals[claim.id].signals) == set(SIGNALS)
        assert all(math.isfinite(v) for v in finals[claim.id].signals.values())
        assert finals[claim.id].signals["question_given"] == 1.0


def test_a_fusion_file_is_refused_where_the_judge_is_built(tmp_path):
    with pytest.raises(JudgeConfigError, match="no fusion file"):
        make_judge("hybrid", fusion=str(tmp_path / "absent.json"))
