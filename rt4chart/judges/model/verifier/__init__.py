"""rt4chart's own verifier, shipped as package data: an int8 ONNX cross-encoder (all-MiniLM-L6-v2 fine-tuned on
(context window, claim) -> entailed / contradicted / baseless), its tokenizer, label map and model card
(MODEL_CARD.md: data, licences, figures, limits). Made by `training/` (see its README)."""
from __future__ import annotations

from importlib import resources

from rt4chart.core.errors import JudgeConfigError


def path() -> str:
    folder = resources.files(__package__)
    if not folder.joinpath("model_int8.onnx").is_file():
        raise JudgeConfigError("the shipped verifier is missing from this installation (model_int8.onnx); "
                               "reinstall rt4chart, or pass --model PATH to a checkpoint folder")
    return str(folder)
