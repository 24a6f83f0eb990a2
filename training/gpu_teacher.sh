#!/usr/bin/env bash
# The teacher and its student on one GPU, in minutes (training/teacher.sh and student.sh are the CPU route, hours).
#   training/gpu_teacher.sh STAGE DATA OUT
# STAGE: mpnet/ and minilm/ as `device_stage.py split` cut them (joined here); DATA: student_pairs.jsonl.gz and
# judge_pairs.jsonl.gz (teacher_pairs.py --v1-share 1.0, judge_pairs.py), probe_items.jsonl, and the dev files
# (ragtruth_dev, faithbench_dev, halueval_qa_dev .jsonl) for the teacher's bench; OUT: what comes back (the
# student's bf16 weights as a tar cut in parts of 15 MB, results.tar.gz with every log, probe and bench figure).
# Each stage has its own time limit and a failed stage does not stop the next ones, so a partial run still
# returns what it measured. TINY=1 runs every stage on a few pairs on the CPU (a rehearsal before the GPU).
# TEACHER_BENCH=0 leaves out the teacher's six dev-file benches (its CPUs go to the student); S_LIMIT is the
# student's time limit in seconds (240).
set -uo pipefail
cd "$(dirname "$0")/.."
STAGE=$1 DATA=$2 OUT=$3
PY=${PY:-python3}
W=${WORK:-/root/gpuwork}
mkdir -p "$W" "$OUT/results"
export PYTHONUNBUFFERED=1 PYTHONPATH="${PYTHONPATH:-}:$PWD"
if [ "${TINY:-0}" = 1 ]; then
  DEV=cpu; BF16=; T_EPOCHS=1; S_EPOCHS=1; LIMIT="--limit 2"; HEAD=100; PROBE="--first 4"
else
  DEV=cuda; BF16=--bf16; T_EPOCHS=${T_EPOCHS:-3}; S_EPOCHS=${S_EPOCHS:-2}; LIMIT=; HEAD=100000000; PROBE=
fi
say() { echo "[$(date +%T)] $*" >&2; }
stage() { local limit=$1; shift; say "start: $*"; timeout "$limit" "$@"; say "end ($?): $1 $2"; }

say "joining the encoders"
stage 120 $PY training/device_stage.py join "$STAGE/mpnet" "$W/mpnet"
stage 60 $PY training/device_stage.py join "$STAGE/minilm" "$W/minilm"
zcat "$DATA/student_pairs.jsonl.gz" | head -n $HEAD > "$W/student_pairs.jsonl"
zcat "$DATA/judge_pairs.jsonl.gz" | head -n $HEAD > "$W/judge_pairs.jsonl"
cat "$W/student_pairs.jsonl" "$W/judge_pairs.jsonl" > "$W/distill_pairs.jsonl"
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv 2>/dev/null | tee "$OUT/results/gpu.txt"

pack() { tar -C "$OUT" -czf "$OUT/results.tar.gz.tmp" results && mv "$OUT/results.tar.gz.tmp" "$OUT/results.tar.gz"; }

# 1. the teacher: all-mpnet-base-v2, every layer trained, on v1's pairs and the distractor pairs
stage 300 $PY training/train.py --encoder "$W/mpnet" --pairs "$W/student_pairs.jsonl" --out "$W/teacher" \
  --device $DEV $BF16 --epochs $T_EPOCHS --batch-size 32 --lr 3e-5 --threads 8 --save-minutes 1000 --log-every 50 \
  --probe "$DATA/probe_items.jsonl" --probe-items 64 --check-pairs 0
cp "$W/teacher/train.log" "$OUT/results/teacher_train.log"
cp "$W/teacher/final/training.json" "$OUT/results/teacher_training.json"
pack

# 2. beside the student's training: the probe, and the dev files through rt4chart's own judges (model alone and
# hybrid) with the teacher as their reader, on the GPU
export RT4CHART_TORCH_DEVICE=$DEV
stage 240 $PY benchmarks/distractor_probe.py --model "$W/teacher/final" --threads 4 --items "$DATA/probe_items.jsonl" $PROBE \
  --out "$OUT/results/distractor_probe_teacher.json" > /dev/null &
for judge in $([ "${TEACHER_BENCH:-1}" = 1 ] && echo model hybrid); do
  for file in ragtruth_dev faithbench_dev halueval_qa_dev; do
    stage 280 $PY -m rt4chart bench "$DATA/$file.jsonl" --judge $judge --model "$W/teacher/final" --workers 4 --threads 2 \
      --no-cache --json $LIMIT -o "$W/pred_${judge}_${file}.jsonl" \
      > "$OUT/results/bench_${judge}_${file}.json" 2> "$OUT/results/bench_${judge}_${file}.err" &
  done
done

# 3. the teacher's reading of every distillation pair, and the student (all-MiniLM-L6-v2, the shipped architecture)
stage 150 $PY training/label_pairs.py --model "$W/teacher/final" --pairs "$W/distill_pairs.jsonl" \
  --out "$W/distill.teacher.json" --device $DEV $BF16 --batch-size 256
stage ${S_LIMIT:-240} $PY training/train.py --encoder "$W/minilm" --pairs "$W/distill_pairs.jsonl" --teacher-probs "$W/distill.teacher.json" \
  --out "$W/student" --device $DEV $BF16 --epochs $S_EPOCHS --batch-size 32 --lr 5e-5 --threads 4 --save-minutes 1000 \
  --log-every 100 --distill-weight 0.5 --probe "$DATA/probe_items.jsonl" --probe-items 64 --check-pairs 0
cp "$W/student/train.log" "$OUT/results/student_train.log"
gzip -c "$W/distill.teacher.json" > "$OUT/results/distill.teacher.json.gz"

# 4. the student back in bfloat16 (fp32 and ONNX are made on the CPU machine)
stage 60 $PY training/device_stage.py bf16 "$W/student/final" "$W/student_bf16"
tar -C "$W" -cf "$W/student_bf16.tar" student_bf16 && split -b 15000000 -d "$W/student_bf16.tar" "$OUT/student_bf16.tar."
pack
wait
for f in "$W"/pred_*.jsonl; do gzip -c "$f" > "$OUT/results/$(basename "$f").gz"; done
pack && rm -rf "$OUT/results"
say "done"
