"""A checkpoint folder is checked before it is loaded: a broken, foreign or inconsistent folder is refused in one
line naming the file (exit 2 from the CLI), never a traceback, never a hang, never verdicts read from the wrong
outputs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from rt4chart.core.errors import JudgeConfigError  # noqa: E402
from rt4chart.judges.model.checkpoint import Checkpoint  # noqa: E402

from .tiny_models import SHIPPED_VERIFIER as SHIPPED  # noqa: E402
from .tiny_models import shipped_copy


@pytest.fixture
def folder(tmp_path) -> Path:
    """A working copy of the shipped verifier (the graph linked, the small files copied)."""
    return shipped_copy(tmp_path / "ckpt")


def refused(folder: Path) -> str:
    with pytest.raises(JudgeConfigError) as caught:
        Checkpoint(str(folder), threads=1)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_the_working_copy_loads(folder):
    assert Checkpoint(str(folder), threads=1).runtime == "onnxruntime"


@pytest.mark.parametrize("content, said", [(b"", "too small"), (b"not a graph\n" * 200, "not a readable ONNX graph")])
def test_an_empty_or_foreign_graph_is_refused(folder, content, said):
    (folder / "model_int8.onnx").unlink()
    (folder / "model_int8.onnx").write_bytes(content)
    assert said in refused(folder)


def test_a_truncated_graph_is_refused(folder):
    head = (SHIPPED / "model_int8.onnx").read_bytes()[:200_000]
    (folder / "model_int8.onnx").unlink()
    (folder / "model_int8.onnx").write_bytes(head)
    assert "not a readable ONNX graph" in refused(folder)


def test_a_graph_that_is_a_device_or_a_pipe_is_never_opened(folder):
    (folder / "model_int8.onnx").unlink()
    (folder / "model_int8.onnx").symlink_to("/dev/zero")
    assert "not a regular file" in refused(folder)
    (folder / "model_int8.onnx").unlink()
    os.mkfifo(folder / "model_int8.onnx")  # opening a FIFO would block forever
    assert "not a regular file" in refused(folder)


def test_a_config_or_tokenizer_that_is_not_json_is_named(folder):
    (folder / "tokenizer.json").write_text("{ not json")
    assert "tokenizer.json: not a tokenizer file" in refused(folder)
    (folder / "config.json").write_text("{ not json")
    assert "config.json is not JSON" in refused(folder)
    (folder / "config.json").write_text("[1, 2]")
    assert "must hold a JSON object" in refused(folder)


def test_labels_that_do_not_name_every_output_are_refused_not_misread(folder):
    config = json.loads((folder / "config.json").read_text())
    for key in ("id2label", "label2id"):
        config.pop(key, None)
    (folder / "config.json").write_text(json.dumps(config))
    assert "the graph gives 3 outputs but config.json names 2 labels" in refused(folder)


def test_a_graph_without_its_tokenizer_says_the_tokenizer_is_missing(folder):
    (folder / "tokenizer.json").unlink()
    assert "no tokenizer.json beside it" in refused(folder)


def test_a_folder_without_a_model_or_an_empty_name_is_refused(folder, tmp_path):
    (folder / "model_int8.onnx").unlink()
    assert "no model in the folder" in refused(folder)
    with pytest.raises(JudgeConfigError, match="--model is empty"):
        Checkpoint("", threads=1)


def test_the_cli_says_one_line_and_exits_2(folder, tmp_path):
    (folder / "config.json").write_text("{ not json")
    (tmp_path / "c.txt").write_text("The bridge opened in 1998.")
    done = subprocess.run([sys.executable, "-m", "rt4chart", "audit", "--context", str(tmp_path / "c.txt"), "--answer",
                           str(tmp_path / "c.txt"), "--judge", "model", "--model", str(folder), "--no-cache"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "RT4CHART_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "config.json is not JSON" in done.stderr


def test_an_old_torch_is_never_asked_to_unpickle_a_pytorch_model_bin(tmp_path, monkeypatch):
    import torch

    from rt4chart.judges.model import checkpoint

    (tmp_path / "config.json").write_text('{"model_type": "bert", "id2label": {"0": "entailment"}}')
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04not really a pickle")
    monkeypatch.setattr(torch, "__version__", "2.5.1+cpu")
    with pytest.raises(JudgeConfigError, match="install torch>=2.6"):
        checkpoint._TorchBackend(tmp_path, "nli", 1)
    assert checkpoint._version("2.13.0+cpu") == (2, 13) and checkpoint._pickled_only(tmp_path)


@pytest.mark.slow  # a few rt4chart processes
def test_the_untrusted_cases_script_runs_its_cases_as_a_user_does():
    """benchmarks/untrusted_cases.py (docs/reliability.md's table) stays runnable: two of its cases, each ok."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "untrusted_cases.py"), "--only", "model: graph"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 ok, 0 not" in done.stdout
