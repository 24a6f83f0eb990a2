"""A checkpoint folder checked before anything in it is loaded: which files it holds, each a regular file of a
bounded size (a FIFO, a device or a link to one is never opened), its config.json read as JSON, and its parts
consistent (an ONNX graph needs its tokenizer.json). Every fault is a `JudgeConfigError` naming the file and
what is wrong with it, so `--model` and the app's Checkpoint field fail in one line, never a traceback.
"""
from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from rt4chart.core.errors import JudgeConfigError

ONNX_NAMES = ("model_int8.onnx", "model.onnx", "onnx/model_int8.onnx", "onnx/model_quantized.onnx",
              "onnx/model.onnx")
WEIGHT_NAMES = ("model.safetensors", "pytorch_model.bin")
MIB = 1 << 20
LIMITS = {"config.json": 4 * MIB, "tokenizer.json": 64 * MIB, "graph": 8192 * MIB, "weights": 8192 * MIB}
SMALLEST_GRAPH = 1024  # bytes: an ONNX graph of any real model is far larger; a zero-byte or stub file is not one


@dataclass(frozen=True)
class CheckpointFiles:
    """What a checked checkpoint folder holds."""

    folder: Path
    config: dict
    graph: Optional[Path]       # the ONNX graph, when there is one
    tokenizer: Optional[Path]   # tokenizer.json, when there is one
    weights: Optional[Path]     # model.safetensors or pytorch_model.bin, when there is one


def regular_file(path: Path, limit: int, what: str) -> Path:
    """`path` when it is a regular file (links followed) of at most `limit` bytes; else a one-line error."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise JudgeConfigError(f"{path}: cannot read the checkpoint's {what} ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise JudgeConfigError(f"{path}: the checkpoint's {what} is not a regular file (a device, pipe or folder); "
                               "give a folder of plain files")
    if info.st_size > limit:
        raise JudgeConfigError(f"{path}: the checkpoint's {what} is {info.st_size / MIB:.0f} MiB, more than the "
                               f"{limit / MIB:.0f} MiB a checkpoint file may have")
    return path


def _present(folder: Path, name: str) -> Optional[Path]:
    path = folder / name
    return path if os.path.lexists(path) else None


def _config(folder: Path) -> dict:
    path = _present(folder, "config.json")
    if path is None:
        raise JudgeConfigError(f"{folder}: no config.json; a checkpoint folder has one (its labels)")
    regular_file(path, LIMITS["config.json"], "config.json")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise JudgeConfigError(f"{path}: config.json is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise JudgeConfigError(f"{path}: config.json is not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(config, dict):
        raise JudgeConfigError(f"{path}: config.json must hold a JSON object, not {type(config).__name__}")
    return config


def checked_files(folder: Path) -> CheckpointFiles:
    """The folder's files, each checked (see the module's docstring); nothing is loaded yet but config.json."""
    config = _config(folder)
    graph = next((p for p in (_present(folder, n) for n in ONNX_NAMES) if p is not None), None)
    tokenizer = _present(folder, "tokenizer.json")
    weights = next((p for p in (_present(folder, n) for n in WEIGHT_NAMES) if p is not None), None)
    if graph is not None:
        regular_file(graph, LIMITS["graph"], f"ONNX graph ({graph.name})")
        if os.path.getsize(graph) < SMALLEST_GRAPH:
            raise JudgeConfigError(f"{graph}: the ONNX graph is {os.path.getsize(graph)} bytes, too small to be one "
                                   "(truncated or a placeholder); export it again")
        if tokenizer is None:
            raise JudgeConfigError(f"{folder}: the ONNX graph {graph.name} has no tokenizer.json beside it; copy the "
                                   "checkpoint's tokenizer.json into the folder")
    if tokenizer is not None:
        regular_file(tokenizer, LIMITS["tokenizer.json"], "tokenizer.json")
    if weights is not None:
        regular_file(weights, LIMITS["weights"], f"weights ({weights.name})")
    if graph is None and weights is None:
        raise JudgeConfigError(f"{folder}: no model in the folder (looked for {', '.join(ONNX_NAMES + WEIGHT_NAMES)})")
    return CheckpointFiles(folder, config, graph, tokenizer, weights)
