"""training/train.py's distillation: a student keeps the teacher's chosen layers and nothing else, saves and
loads as a smaller model of the same kind, and learns from the gold labels and the teacher's probabilities
in the share asked for."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.tiny_models import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _train_module():
    spec = importlib.util.spec_from_file_location("rt4chart_training_train", ROOT / "training" / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _logits(model, tok):
    enc = tok(["the bridge was built in paris", "the river"], ["the bridge is old", "the city"],
              return_tensors="pt", padding=True)
    with torch.no_grad():
        return model(**enc).logits


def test_a_student_keeps_only_the_chosen_layers_and_loads_back_as_the_same_smaller_model(tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    train = _train_module()
    folder = build(tmp_path / "teacher", "nli", ["entailment", "neutral", "contradiction"], favour=0)
    tok = AutoTokenizer.from_pretrained(str(folder))
    teacher = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    whole = train.keep_layers(AutoModelForSequenceClassification.from_pretrained(str(folder)).eval(), [0, 1])
    assert torch.allclose(_logits(whole, tok), _logits(teacher, tok))  # keeping every layer changes nothing

    student = train.keep_layers(AutoModelForSequenceClassification.from_pretrained(str(folder)).eval(), [1])
    assert student.config.num_hidden_layers == 1 and len(student.base_model.encoder.layer) == 1
    assert torch.equal(student.base_model.encoder.layer[0].output.dense.weight,
                       teacher.base_model.encoder.layer[1].output.dense.weight)
    student.save_pretrained(str(tmp_path / "student"))
    loaded, info = AutoModelForSequenceClassification.from_pretrained(str(tmp_path / "student"),
                                                                     output_loading_info=True)
    assert not (info["missing_keys"] or info["unexpected_keys"] or info["mismatched_keys"])
    assert torch.allclose(_logits(loaded.eval(), tok), _logits(student, tok))
    assert not torch.allclose(_logits(student, tok), _logits(teacher, tok))


def test_the_distillation_loss_weighs_gold_and_teacher_as_asked():
    train = _train_module()
    logits = torch.tensor([[2.0, 0.1, -1.0], [0.3, 0.2, 1.5]])
    gold = torch.tensor([0, 3])  # entailed; hallucinated (contradicted or baseless)
    itself = torch.softmax(logits, dim=-1)
    assert torch.isclose(train.distill_loss(logits, gold, itself, 0.0), train.loss_of(logits, gold))
    assert torch.isclose(train.distill_loss(logits, gold, itself, 1.0), torch.tensor(0.0), atol=1e-6)
    other = torch.tensor([[0.1, 0.8, 0.1], [0.9, 0.05, 0.05]])
    half = train.distill_loss(logits, gold, other, 0.5)
    assert torch.isclose(half, 0.5 * train.loss_of(logits, gold) + 0.5 * train.distill_loss(logits, gold, other, 1.0))
    assert train.distill_loss(logits, gold, other, 1.0) > 0.1


def test_an_unlabelled_pair_learns_from_the_teacher_alone():
    train = _train_module()
    logits = torch.tensor([[2.0, 0.1, -1.0], [0.3, 0.2, 1.5]])
    teacher = torch.tensor([[0.1, 0.8, 0.1], [0.9, 0.05, 0.05]])
    unlabelled = torch.tensor([train.TARGET["unlabelled"]] * 2)
    assert torch.isclose(train.distill_loss(logits, unlabelled, teacher, 0.3),
                         train.distill_loss(logits, torch.tensor([0, 3]), teacher, 1.0))
    assert torch.isclose(train.distill_loss(logits, unlabelled, torch.softmax(logits, -1), 0.3), torch.tensor(0.0),
                         atol=1e-6)
    mixed = train.distill_loss(logits, torch.tensor([0, train.TARGET["unlabelled"]]), teacher, 0.5)
    first = 0.5 * train.loss_of(logits[:1], torch.tensor([0])) + 0.5 * train.distill_loss(logits[:1], torch.tensor([0]), teacher[:1], 1.0)
    second = train.distill_loss(logits[1:], torch.tensor([0]), teacher[1:], 1.0)
    assert torch.isclose(mixed, (first + second) / 2)


def test_the_teachers_probabilities_are_each_pairs_own_and_are_kept_for_a_resumed_run(tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    train = _train_module()
    folder = build(tmp_path / "teacher", "nli", ["entailed", "contradicted", "baseless"], favour=1)
    tok = AutoTokenizer.from_pretrained(str(folder))
    sharp = AutoModelForSequenceClassification.from_pretrained(str(folder))
    with torch.no_grad():  # probabilities that differ from pair to pair, so a pair given another's shows
        sharp.classifier.weight.mul_(1e6)
        sharp.classifier.bias.zero_()
    sharp.save_pretrained(str(folder))
    pairs = [{"premise": p, "hypothesis": h, "label": "entailed"} for p, h in [
        ("the bridge was built in paris in the old city of france", "the bridge is old"),
        ("the river", "the city"), ("rome is the capital of italy", "rome is in italy")]]
    cache = tmp_path / "run" / "teacher.pt"
    cache.parent.mkdir()
    probs = train.teacher_probs(folder, pairs, 64, cache)
    teacher = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    assert not torch.allclose(probs[0], probs[1], atol=1e-3)
    for row, pair in zip(probs, pairs):  # in the pairs' order, as if each were read alone
        enc = tok([pair["premise"]], [pair["hypothesis"]], return_tensors="pt")
        with torch.no_grad():
            assert torch.allclose(row, torch.softmax(teacher(**enc).logits, dim=-1)[0], atol=1e-5)
    stamp = cache.stat().st_mtime_ns
    assert torch.equal(train.teacher_probs(folder, pairs, 64, cache), probs) and cache.stat().st_mtime_ns == stamp
    fewer = train.teacher_probs(folder, pairs[:2], 64, cache)  # other pairs: computed again, not reused
    assert fewer.shape == (2, 3) and cache.stat().st_mtime_ns != stamp


def test_freezing_lower_layers_leaves_only_the_upper_layers_and_head_to_train(tmp_path):
    from transformers import AutoModelForSequenceClassification

    train = _train_module()
    folder = build(tmp_path / "encoder", "nli", ["entailed", "contradicted", "baseless"], favour=0)
    model = AutoModelForSequenceClassification.from_pretrained(str(folder))
    every = sum(p.numel() for p in model.parameters())
    assert train.freeze_lower(model, 0) == every and all(p.requires_grad for p in model.parameters())
    left = train.freeze_lower(model, 1)
    base = model.base_model
    assert not any(p.requires_grad for p in base.embeddings.parameters())
    assert not any(p.requires_grad for p in base.encoder.layer[0].parameters())
    assert all(p.requires_grad for p in base.encoder.layer[1].parameters())
    assert all(p.requires_grad for p in model.classifier.parameters())
    assert left == sum(p.numel() for p in model.parameters() if p.requires_grad) < every
