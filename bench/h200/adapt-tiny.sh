#!/usr/bin/env bash
# adapt-tiny.sh - the adaptation loop of test/Adapt/loop.test on a GPU, with
# the wall time of every step: corpus answers -> fixit with a held-out task
# -> a tiny random Qwen2 model -> training/sft.py in bf16 (the test's 6 steps,
# then STEPS more for a steady rate) -> training/serve.py on cuda:0 ->
# ptxbench generate -> ptxbench eval (GPU runs) -> report base against tuned.
# Prints the step table and writes it, the logs and the run config to $OUT.
#
#   OUT=... [STEPS=300] [DEVICE=cuda] bench/h200/adapt-tiny.sh PTXBENCH [PYTHON]
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "$1")
PY=${2:-python3}
OUT=${OUT:-/tmp/ptxbench-adapt}
STEPS=${STEPS:-300}
DEVICE=${DEVICE:-cuda}
W=$(mktemp -d)
INPUTS=test/Adapt/Inputs
mkdir -p "$OUT" "$W/tasks"
cp -r tasks/rmsnorm_h4096 "$W/tasks/rmsnorm_h4096"
cp -r tasks/rmsnorm_h4096 "$W/tasks/rmsnorm_h4096_v2"
: > "$OUT/steps.txt"
failed=0

# step NAME COMMAND...: runs COMMAND with its output in $W/NAME.log and
# appends "NAME exit-status seconds" to the table.
step() {
  local name=$1; shift
  local start end rc
  start=$(date +%s%N)
  "$@" > "$W/$name.log" 2>&1
  rc=$?
  end=$(date +%s%N)
  printf '%-14s %3d %8d ms\n' "$name" "$rc" $(( (end - start) / 1000000 )) | tee -a "$OUT/steps.txt"
  [ "$rc" -eq 0 ] || failed=1
  return "$rc"
}

step generate-base "$PTXBENCH" generate --model corpus --tasks "$W/tasks" --arch sm_90a \
  --context none,brief --samples 6 --static-only --out "$W/base" --db "$W/all.sqlite"
step fixit "$PTXBENCH" fixit --db "$W/all.sqlite" --tasks "$W/tasks" -o "$W/fixit.jsonl" \
  --split heldout-tasks=rmsnorm_h4096_v2
step tiny-model "$PY" $INPUTS/make_tiny_model.py "$W/fixit.jsonl" "$W/tiny"
step sft "$PY" training/sft.py --config $INPUTS/tiny-run.json --device "$DEVICE" \
  --base-model "$W/tiny" --data "$W/fixit.jsonl" --eval-data "$W/fixit.heldout.jsonl" \
  --output-dir "$W/run"
step check-sft "$PY" $INPUTS/check_run.py "$W/run" "$W/fixit.jsonl"
step sft-steady "$PY" training/sft.py --config $INPUTS/tiny-run.json --device "$DEVICE" \
  --max-steps "$STEPS" --eval-steps "$STEPS" --base-model "$W/tiny" --data "$W/fixit.jsonl" \
  --output-dir "$W/steady"
"$PY" $INPUTS/make_models.py tuned "$W/run/model" 32 > "$W/template.json"
step serve+generate "$PY" test/Generate/Inputs/with_server.py --timeout 300 --ready-timeout 240 \
  --server "$PY training/serve.py --model $W/run/model --device ${DEVICE/cuda/cuda:0} --deadline 200" \
  --dir "$W/server" --template "$W/template.json" --models "$W/models.json" -- \
  "$PTXBENCH" generate --models "$W/models.json" --model tuned --tasks "$W/tasks" \
  --task rmsnorm_h4096,rmsnorm_h4096_v2 --arch sm_90a --context none --samples 1 --turns 1 \
  --out "$W/tuned"
step eval "$PTXBENCH" eval --tasks "$W/tasks" --samples "$W/tuned" --db "$W/all.sqlite"
step check-tuned "$PY" $INPUTS/check_tuned.py "$W/tuned" tuned "$W/all.sqlite"
step report "$PTXBENCH" report --db "$W/all.sqlite" --compare corpus,tuned \
  --heldout-tasks rmsnorm_h4096_v2

cp "$W/run/run_config.json" "$OUT/run_config.json" 2>/dev/null
cp "$W/steady/run_config.json" "$OUT/steady_config.json" 2>/dev/null
cp "$W/steady/loss.csv" "$OUT/steady_loss.csv" 2>/dev/null
(cd "$W" && tar czf "$OUT/logs.tgz" ./*.log server/server.log tuned 2>/dev/null)
cat "$W/check-sft.log" "$W/check-tuned.log" "$W/report.log" 2>/dev/null | head -60
exit "$failed"
