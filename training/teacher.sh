#!/usr/bin/env bash
# The 110 M teacher (all-mpnet-base-v2 fine-tuned as a 3-way verifier), trained in the background on CPU.
# Running it again resumes from the last checkpoint (written every 15 minutes with the optimiser, the schedule,
# the step and the data order). Progress and each checkpoint's check: training/work/teacher/train.log.
# Choices (docs/benchmarks.md, "The teacher"): embeddings + lower 8 of 12 layers frozen, 256 tokens, batch 16,
# one epoch over 55% of v1's pairs + the distractor pairs (~12.6 k pairs, ~0.28 s a pair on 2 threads).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv-train/bin/python}
WORK=training/work
[ -f $WORK/mpnet/rt4chart-fetch.json ] || $PY training/fetch_mpnet.py --out $WORK/mpnet
[ -f $WORK/teacher_pairs.jsonl ] || $PY training/teacher_pairs.py --v1-share 0.55 --out $WORK/teacher_pairs.jsonl
[ -f $WORK/probe_items.jsonl ] || $PY benchmarks/distractor_probe.py --write-items $WORK/probe_items.jsonl
mkdir -p $WORK/teacher
nohup nice -n 10 $PY training/train.py --encoder $WORK/mpnet --freeze-layers 8 --pairs $WORK/teacher_pairs.jsonl \
  --out $WORK/teacher --threads "${THREADS:-2}" --epochs 1 --batch-size 16 --max-len 256 --lr 4e-5 \
  --save-every 1000000 --save-minutes 15 --probe $WORK/probe_items.jsonl --probe-items 32 --check-pairs 160 \
  >> $WORK/teacher/stderr.log 2>&1 &
echo "teacher training in the background (pid $!); progress: tail -f $WORK/teacher/train.log"
