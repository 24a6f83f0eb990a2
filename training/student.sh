#!/usr/bin/env bash
# The student: all-MiniLM-L6-v2 (the shipped architecture, 22 M) distilled from the 110 M teacher
# (training/teacher.sh) on all of v1's pairs and the distractor pairs, learning from the teacher's
# probabilities (half the loss) and the gold labels. Runs in the background; running it again resumes (the
# teacher's probabilities are kept in teacher.pt, the checkpoint every 15 minutes). Progress:
# training/work/student/train.log.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv-train/bin/python}
WORK=training/work
[ -d $WORK/teacher/final ] || { echo "student.sh: no teacher yet (run training/teacher.sh to its end)" >&2; exit 2; }
[ -f $WORK/student_pairs.jsonl ] || $PY training/teacher_pairs.py --v1-share 1.0 --out $WORK/student_pairs.jsonl
[ -f $WORK/probe_items.jsonl ] || $PY benchmarks/distractor_probe.py --write-items $WORK/probe_items.jsonl
mkdir -p $WORK/student
nohup nice -n 10 $PY training/train.py --teacher $WORK/teacher/final --pairs $WORK/student_pairs.jsonl \
  --out $WORK/student --threads "${THREADS:-2}" --epochs "${EPOCHS:-0.75}" --batch-size 16 --max-len 256 --lr 4e-5 \
  --distill-weight 0.5 --save-every 1000000 --save-minutes 15 --probe $WORK/probe_items.jsonl --probe-items 32 \
  --check-pairs 160 >> $WORK/student/stderr.log 2>&1 &
echo "student training in the background (pid $!); progress: tail -f $WORK/student/train.log"
