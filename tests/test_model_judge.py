"""Model judges: every checkpoint kind loads offline, its labels mean what the checkpoint says, long windows
are split (never cut), and the verdicts, spans and evidence follow the model's probabilities. The tiny
models have random weights and a biased classifier: these tests check plumbing, never quality."""
from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from rt4chart import audit  # noqa: E402
from rt4chart.auditing.pipeline import prepare  # noqa: E402
from rt4chart.core.cost import Cost  # noqa: E402
from rt4chart.core.errors import JudgeConfigError  # noqa: E402
from rt4chart.core.types import Verdict  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402
from rt4chart.judges.model.checkpoint import Checkpoint, label_map  # noqa: E402
from rt4chart.judges.model.judge import ModelJudgement  # noqa: E402

from .tiny_models import build, export_onnx  # noqa: E402

CONTEXT = ("Paris is the capital of France. The old bridge was built in 1850. "
           "London is a large city in England. Rome is the capital of Italy.")
ANSWER = "Paris is the capital of France. The bridge was built in 1850."
NLI = ["entailment", "neutral", "contradiction"]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {
        "entailing": build(root / "nli-entail", "nli", NLI, favour=0),
        "contradicting": build(root / "nli-contra", "nli", NLI, favour=2),
        "neutral": build(root / "nli-neutral", "nli", NLI, favour=1),
        "supporting": build(root / "checker", "support", ["not supported", "supported"], favour=1),
        "tokens": build(root / "tokens", "tokens", ["supported", "hallucinated"], favour=1),
        "short": build(root / "short", "nli", NLI, favour=0, max_positions=40),
    }


def test_the_label_map_is_read_from_the_checkpoint_in_any_order():
    lm = label_map({"id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}})
    assert (lm.kind, lm.entail, lm.neutral, lm.contra) == ("nli", 2, 1, 0)
    assert label_map({"id2label": {"0": "LABEL_0", "1": "LABEL_1"}}).kind == "support"
    assert label_map({"architectures": ["BertForTokenClassification"],
                      "id2label": {"0": "supported", "1": "hallucinated"}}).unsupported == 1
    with pytest.raises(JudgeConfigError, match="do not name"):
        label_map({"id2label": {"0": "a", "1": "b", "2": "c"}})


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_an_nli_checkpoint_that_reads_entailment_entails_with_an_evidence_sentence(models):
    report = audit(CONTEXT, ANSWER, judge=make_judge("model", model=str(models["entailing"])))
    assert report.status == "faithful"
    assert [c.verdict.value for c in report.claims] == ["entailed", "entailed"]
    for claim in report.claims:
        assert [e.relation for e in claim.evidence] == ["supports"]
    assert report.coverage.cost.model_pairs > 0 and report.coverage.cost.model_tokens > report.coverage.cost.model_pairs


def test_the_evidence_of_a_whole_answer_is_read_in_one_call_and_each_claim_gets_the_sentence_it_gets_alone(models):
    judge = make_judge("model", model=str(models["entailing"]))
    data = prepare(CONTEXT, ANSWER, None)
    claims = judge.decompose(data, Cost())
    every = list(range(len(data.context_sentences)))

    def judged(verdict):
        return [(ModelJudgement(verdict, piece=every), c) for c in claims]

    alone = [judged(Verdict.ENTAILED)[i] for i in range(len(claims))]
    for one in alone:
        judge._evidence([one], data, Cost())
    together, calls = judged(Verdict.ENTAILED), []
    read = judge._probs
    judge._probs = lambda pairs, usage, audit: calls.append(len(pairs)) or read(pairs, usage, audit)
    judge._evidence(together + judged(Verdict.BASELESS), data, Cost())
    assert calls == [len(claims) * 3]  # three candidates a claim, one call; a baseless claim reads nothing
    assert [j.supporting for j, _ in together] == [j.supporting for j, _ in alone]
    assert all(len(j.supporting) == 1 for j, _ in together)


def test_contradiction_comes_first_and_neutral_is_baseless(models):
    contra = audit(CONTEXT, ANSWER, judge=make_judge("model", model=str(models["contradicting"])))
    assert {c.verdict.value for c in contra.claims} == {"contradicted"}
    assert contra.hallucinated and all(c.evidence[0].relation == "contradicts" for c in contra.claims)
    neutral = audit(CONTEXT, ANSWER, judge=make_judge("model", model=str(models["neutral"])))
    assert {c.verdict.value for c in neutral.claims} == {"baseless"} and neutral.hallucinated


def test_a_support_checker_never_contradicts(models):
    report = audit(CONTEXT, ANSWER, judge=make_judge("model", model=str(models["supporting"])))
    assert {c.verdict.value for c in report.claims} == {"entailed"}
    ck = Checkpoint(str(models["supporting"]))
    assert ck.kind == "support" and all(p[1] == 0.0 for p in ck.pair_probs(["the river"], ["the city"]))


def test_a_token_classifier_marks_spans_inside_the_claim(models):
    ck = Checkpoint(str(models["tokens"]))
    claim = "the bridge was built in 1850"
    spans, worst = ck.token_spans("the old bridge was built in 1850", claim)
    assert worst > 0.9 and spans == [(0, len(claim))]


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_the_onnx_graph_gives_the_probabilities_of_the_torch_checkpoint(models, tmp_path):
    torch_probs = Checkpoint(str(models["contradicting"])).pair_probs(["paris is the capital"], ["rome is old"])
    export_onnx(models["contradicting"])
    onnx = Checkpoint(str(models["contradicting"]))
    assert onnx.runtime == "onnxruntime"
    assert onnx.pair_probs(["paris is the capital"], ["rome is old"])[0] == pytest.approx(torch_probs[0], abs=1e-4)
    (models["contradicting"] / "model.onnx").unlink()


def test_a_window_longer_than_the_model_is_split_into_pieces_that_fit_never_cut(models, monkeypatch):
    judge = make_judge("model", model=str(models["short"]))
    seen: list[tuple[str, str]] = []
    real = judge.checkpoint.logits

    def spy(premises, hypotheses):
        seen.extend(zip(premises, hypotheses))
        return real(premises, hypotheses)

    monkeypatch.setattr(judge.checkpoint, "logits", spy)
    long_context = " ".join(f"The old bridge {n} in the city was built in 1850 and it is large." for n in range(6))
    report = audit(long_context, "The bridge was built in 1850.", judge=judge)
    assert report.claims[0].verdict.value == "entailed"
    ck = judge.checkpoint
    for premise, hypothesis in seen:
        assert ck.count_tokens(premise) + ck.count_tokens(hypothesis) + 4 <= ck.max_length
    read = " ".join(p for p, _ in seen)
    assert all(word in read for word in long_context.split())  # every word of the window was read
    assert report.coverage.cost.model_pairs >= 3  # more pieces than windows


def test_a_checkpoint_is_found_in_the_local_hugging_face_cache_and_a_missing_one_says_what_to_do(
        models, tmp_path, monkeypatch):
    snapshot = tmp_path / "hub" / "models--acme--tiny-nli" / "snapshots" / "abc123"
    snapshot.parent.mkdir(parents=True)
    snapshot.symlink_to(models["entailing"], target_is_directory=True)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert Checkpoint("acme/tiny-nli").kind == "nli"
    with pytest.raises(JudgeConfigError, match="never downloads"):
        Checkpoint("acme/not-here")


def test_the_hybrid_judge_keeps_a_proved_figure_and_lets_the_model_read_the_rest(models, monkeypatch):
    judge = make_judge("hybrid", model=str(models["entailing"]))
    asked: list[str] = []
    real = judge.checkpoint.logits
    monkeypatch.setattr(judge.checkpoint, "logits", lambda p, h: asked.extend(h) or real(p, h))
    report = audit(CONTEXT, "Paris is the capital of France. The bridge was built in 1870.", judge=judge)
    figure = report.claims[1]
    assert figure.verdict.value == "contradicted" and figure.rationale.startswith("proof:")
    assert report.claims[0].verdict.value == "entailed"
    assert not any("1870" in h for h in asked)  # the model never read the proved claim


def test_the_hybrid_sets_the_models_contradiction_reading_aside(models):
    """The model judge contradicts from its P(contradicted); inside the hybrid that reading no longer scores a claim
    (it was right for 2 of 31 flagged claims on the dev files): the claim is scored by P(entailed) alone, so a
    checkpoint that reads only contradictions makes it baseless, not contradicted."""
    answer = "Paris is the capital of France."
    alone = audit(CONTEXT, answer, judge=make_judge("model", model=str(models["contradicting"])))
    assert [c.verdict.value for c in alone.claims] == ["contradicted"]
    hybrid = make_judge("hybrid", model=str(models["contradicting"]))
    read = hybrid.verify_global(*_one_claim(hybrid, answer))  # the fused verdict, with the model reading inside
    assert "reads a contradiction" not in read[0].rationale and read[0].verdict.value != "contradicted"


def _one_claim(judge, answer):
    from rt4chart.auditing.pipeline import prepare
    from rt4chart.core.cost import Cost

    data = prepare(CONTEXT, answer, None)
    claims = judge.decompose(data, Cost())
    return claims, {}, data, Cost()


LONG_CONTEXT = " ".join([
    "The Millau viaduct crosses the valley of the Tarn in southern France.",
    "It was designed by the engineer Michel Virlogeux and the architect Norman Foster.",
    "Construction began on 14 December 2001.", "The viaduct opened to traffic on 16 December 2004.",
    "Its highest pier is 245 metres tall.", "The deck is 2,460 metres long.", "A toll is charged to cross it.",
    "The toll plaza lies north of the bridge.", "Fog often fills the valley below the deck.",
    "The viaduct was built by the Eiffage group.", "It cost about 400 million euros.",
    "Eiffage holds the concession until 2079.",
    "The viaduct opened to traffic in December 2004, three years after work began.",
    "Visitors can learn about the viaduct at a centre near the toll plaza.",
])


def test_the_hybrid_reads_no_claim_again_once_a_window_entailed_it_and_decides_the_same(models, monkeypatch):
    """OR-join, contradiction first: with the model's contradiction reading set aside, a claim the model entailed
    in one window can only be outranked by a proof, and proofs are checked in every window. So the model
    skips the claim's later windows, and every verdict, score, span and evidence sentence stays the same."""
    judge = make_judge("hybrid", model=str(models["entailing"]))
    answer = ("The viaduct opened to traffic in December 2004. The viaduct was built by Eiffage for 300 million "
              "euros. Visitors can learn about the viaduct near the toll plaza.")
    asked: list[str] = []
    real = judge.checkpoint.logits
    monkeypatch.setattr(judge.checkpoint, "logits", lambda p, h: asked.extend(h) or real(p, h))

    def run():
        judge._pairs.clear()  # the pairs cache would hide what each audit reads
        asked.clear()
        return audit(LONG_CONTEXT, answer, judge=judge), len(asked)

    skipping, read_skipping = run()
    monkeypatch.setattr(type(judge), "_entailed", lambda self, data: set())  # no memory: every window is read
    reading_all, read_all = run()

    assert skipping.coverage.windows == 3 and read_skipping < read_all
    assert [len(c.local) for c in skipping.claims] == [1, 3, 1]  # entailed in its first window: read there only
    assert [len(c.local) for c in reading_all.claims] == [3, 3, 3]

    def decided(report):
        return [(c.verdict, c.score, c.hallucinated_spans, c.evidence, c.rationale, c.local_verdict)
                for c in report.claims]

    assert decided(skipping) == decided(reading_all)
    assert (skipping.score, skipping.spans) == (reading_all.score, reading_all.spans)
    figure = skipping.claims[1]  # '300 million' is never stated: proved in every window, never read
    assert figure.verdict.is_hallucination and figure.rationale.startswith("proof:")
    assert not any("300 million" in h for h in asked)


def test_the_hybrid_picks_evidence_only_where_the_pick_can_reach_the_report(models, monkeypatch):
    """The evidence pick reads each candidate sentence beside the claim. Where the fused verdict cannot show the
    sentence it picks (the model entails a claim whose words the context lacks, and the word check's flag stands),
    nothing is read, and the report is the one of a hybrid that picks for every claim, but for the pairs counted."""
    from rt4chart.data.predictions import prediction
    from rt4chart.judges.model.judge import HybridJudge

    judge = make_judge("hybrid", model=str(models["entailing"]))
    answer = ("The viaduct opened to traffic in December 2004. The viaduct was painted bright green by a Danish crew. "
              "Visitors can learn about the viaduct near the toll plaza.")

    def line(report) -> dict:
        out = prediction("row", report)
        out["coverage"] = {k: v for k, v in out["coverage"].items() if k not in ("model_pairs", "model_tokens")}
        return out

    picking = audit(LONG_CONTEXT, answer, judge=judge)
    monkeypatch.setattr(HybridJudge, "_pick_shown", lambda self, claim, lexical, read, data: True)
    picking_all = audit(LONG_CONTEXT, answer, judge=judge)

    painted = picking.claims[1]  # read as entailed by the model; 'Danish' is nowhere in the context
    assert painted.verdict.is_hallucination and "does not mention" in painted.rationale
    assert line(picking) == line(picking_all)
    assert picking.coverage.cost.model_pairs < picking_all.coverage.cost.model_pairs
