"""The GPU route of training (training/gpu_teacher.sh): a model folder cut into capped parts comes back whole or
not at all, a student takes a teacher's probabilities only for the pairs file they were made for, and a checkpoint
without an ONNX graph runs where RT4CHART_TORCH_DEVICE says, or is refused in one line."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.tiny_models import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _module(name: str):
    sys.path.insert(0, str(ROOT / "training"))
    spec = importlib.util.spec_from_file_location(f"rt4chart_training_{name}", ROOT / "training" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_model_folder_cut_into_parts_joins_back_to_the_same_model_in_bfloat16(tmp_path):
    from safetensors.torch import load_file

    stage = _module("device_stage")
    folder = build(tmp_path / "model", "nli", ["entailment", "neutral", "contradiction"], favour=0)
    stage.split(folder, tmp_path / "parts", part_mb=0.006)
    parts = sorted((tmp_path / "parts").iterdir())
    assert len(parts) > 1 and all(p.name.startswith("part") for p in parts)
    gathered = tmp_path / "gathered"
    gathered.mkdir()
    for part in parts:
        for f in part.iterdir():
            (gathered / f.name).write_bytes(f.read_bytes())
    stage.join(gathered, tmp_path / "joined")
    original, joined = load_file(folder / "model.safetensors"), load_file(tmp_path / "joined" / "model.safetensors")
    assert original.keys() == joined.keys()
    for key, value in original.items():
        assert joined[key].dtype == (torch.bfloat16 if value.is_floating_point() else value.dtype)
        assert torch.allclose(joined[key].float(), value.float(), rtol=1e-2, atol=1e-2)
    assert (tmp_path / "joined" / "config.json").read_bytes() == (folder / "config.json").read_bytes()


def test_a_part_cut_short_is_refused_rather_than_joined(tmp_path):
    stage = _module("device_stage")
    folder = build(tmp_path / "model", "nli", ["entailment", "neutral", "contradiction"], favour=0)
    stage.split(folder, tmp_path / "parts", part_mb=0.006)
    gathered = tmp_path / "gathered"
    gathered.mkdir()
    for part in sorted((tmp_path / "parts").iterdir()):
        for f in part.iterdir():
            (gathered / f.name).write_bytes(f.read_bytes())
    last = sorted(gathered.glob("model.safetensors.*"))[-1]
    last.write_bytes(last.read_bytes()[:-10])
    with pytest.raises(SystemExit, match="cut short"):
        stage.join(gathered, tmp_path / "joined")
    assert not (tmp_path / "joined" / "model.safetensors").exists()


def test_a_cast_folder_goes_to_bfloat16_and_back_to_float32(tmp_path):
    from safetensors.torch import load_file

    stage = _module("device_stage")
    folder = build(tmp_path / "model", "nli", ["entailment", "neutral", "contradiction"], favour=0)
    stage.cast(folder, tmp_path / "half", "bf16")
    stage.cast(tmp_path / "half", tmp_path / "full", "fp32")
    half, full = load_file(tmp_path / "half" / "model.safetensors"), load_file(tmp_path / "full" / "model.safetensors")
    floats = [k for k, v in full.items() if v.is_floating_point()]
    assert floats and all(half[k].dtype == torch.bfloat16 and full[k].dtype == torch.float32 for k in floats)


def _pairs_file(path: Path, n: int) -> list[dict]:
    pairs = [{"group": f"g{i}", "premise": f"premise {i}", "hypothesis": f"claim {i}", "label": "unlabelled"}
             for i in range(n)]
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs))
    return pairs


def test_a_student_takes_the_teachers_probabilities_of_its_own_pairs_in_their_order(tmp_path):
    train = _module("train")
    pairs_path = tmp_path / "pairs.jsonl"
    _pairs_file(pairs_path, 6)
    probs = [[i / 10, 0.0, 1 - i / 10] for i in range(6)]
    labels = tmp_path / "teacher.json"
    labels.write_text(json.dumps({"pairs_sha256": hashlib.sha256(pairs_path.read_bytes()).hexdigest(),
                                  "probs": probs}))
    everything = train.read_pairs(pairs_path)
    chosen = [everything[4], everything[1]]
    got = train.given_probs(labels, pairs_path, chosen, everything)
    assert torch.allclose(got, torch.tensor([probs[4], probs[1]]))

    _pairs_file(pairs_path, 7)  # the pairs file changed since the teacher read it
    with pytest.raises(SystemExit, match="another pairs file"):
        train.given_probs(labels, pairs_path, chosen, train.read_pairs(pairs_path))


def test_a_torch_checkpoint_runs_on_the_device_asked_for_or_is_refused(tmp_path, monkeypatch):
    from rt4chart.core.errors import JudgeConfigError
    from rt4chart.judges.model.checkpoint import Checkpoint, torch_device

    folder = build(tmp_path / "model", "nli", ["entailment", "neutral", "contradiction"], favour=0)
    monkeypatch.delenv("RT4CHART_TORCH_DEVICE", raising=False)
    assert torch_device() == "cpu"
    on_cpu = Checkpoint(str(folder)).pair_probs(["the bridge opened in 1998"], ["the bridge opened"])
    monkeypatch.setenv("RT4CHART_TORCH_DEVICE", "cpu")
    assert Checkpoint(str(folder)).pair_probs(["the bridge opened in 1998"], ["the bridge opened"]) == on_cpu
    monkeypatch.setenv("RT4CHART_TORCH_DEVICE", "toaster")
    with pytest.raises(JudgeConfigError, match="not a torch device"):
        torch_device()
    if not torch.cuda.is_available():
        monkeypatch.setenv("RT4CHART_TORCH_DEVICE", "cuda")
        with pytest.raises(JudgeConfigError, match="no CUDA device"):
            Checkpoint(str(folder))


def test_judge_shaped_pairs_carry_a_qa_records_question_before_each_claim():
    """The unlabelled pairs are read as the judge reads them: `meta.question` before the claim, as bench reads it."""
    judge_pairs = _module("judge_pairs")
    judge, reader = judge_pairs.recording_judge(256)
    record = {"id": "qa-1", "dataset": "halueval_qa", "context": "The bridge opened in 1998. It is 1,240 metres long.",
              "answer": "The bridge opened in 1998.", "meta": {"question": "When did the bridge open?"}}
    asked = judge_pairs.judge_read(record, judge, reader)
    assert asked and all(p["hypothesis"] == "When did the bridge open? The bridge opened in 1998." for p in asked)
    plain = judge_pairs.judge_read({**record, "meta": {}}, judge, reader)
    assert plain and all(p["hypothesis"] == "The bridge opened in 1998." for p in plain)
