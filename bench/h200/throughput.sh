#!/usr/bin/env bash
# throughput.sh - harness throughput on a GPU host: where a submission's
# wall time goes, and what the cache and the shared references save.
#
# 1. Experts: each expert of EXPERTS (TASK:FILE, default the five below) on
#    its development workloads with the library, three ways: "cold" (an
#    empty harness cache), "fill" (the first run with --seed 7
#    --cache-references, which keeps its references) and "warm" (the same
#    again, reading them): wall ms and the run's summed phases_ms per phase,
#    one row each, in $OUT/experts.tsv.
# 2. A sweep: the honest solutions of SWEEP_CORPORA (CORPUS:TASK pairs: the
#    sm_90a entries of tasks/CORPUS/solutions/manifest.json expected to
#    PASS and not skipped, as samples of TASK) through `ptxbench eval
#    --shapes dev`, once with one run per
#    GPU and a fresh seed per run ("noreuse": --runs-per-gpu 1 --seed 0),
#    once as eval runs by default (two runs per GPU, one seed per sweep):
#    wall seconds and samples per GPU-hour, in $OUT/sweep.tsv.
# Everything is packed into $OUT/throughput.tar.gz as it goes; the script
# stops starting new steps after DEADLINE_S seconds (default 540).
#
#   OUT=... bench/h200/throughput.sh PTXBENCH
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "$1")
OUT=${OUT:-/tmp/ptxbench-throughput}
DEADLINE_S=${DEADLINE_S:-540}
EXPERTS=${EXPERTS:-gemm_bf16_n4096_k4096:tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu \
gemm_fp8_e4m3:tasks/gemm_fp8_e4m3/solutions/wgmma_tma_fast.cu \
rmsnorm_h4096:tasks/rmsnorm_h4096/solutions/bulk_mbarrier.cu \
mha_fwd_lse_h48_d128:tasks/mha_fwd/solutions/wgmma_tma_fast.cu \
mha_bwd_h48_d128:tasks/mha_bwd/solutions/wgmma_tma.cu}
SWEEP_CORPORA=${SWEEP_CORPORA:-gemm_bf16_nt:gemm_bf16_n4096_k4096,gemm_fp8_e4m3:gemm_fp8_e4m3,rmsnorm_h4096:rmsnorm_h4096}
START=$(date +%s)
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/runs"
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
# The harness caches (references of every input set) stay behind.
pack() { tar -czf "$OUT/throughput.tar.gz" -C "$WORK" --exclude='./cache-*' . 2>/dev/null; }
in_time() { [ $(( $(date +%s) - START )) -lt "$DEADLINE_S" ]; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$WORK/gpu.txt" 2>&1
"$PTXBENCH" --version > "$WORK/version.txt" 2>&1

# 1. Experts, three ways each.
printf 'task\tway\twall_ms\tstatus\tphases\n' > "$WORK/experts.tsv"
for spec in $EXPERTS; do
  task=${spec%%:*}; file=${spec#*:}
  export PTXBENCH_CACHE="$WORK/cache-$task"
  rm -rf "$PTXBENCH_CACHE"
  for way in cold fill warm; do
    in_time || break 2
    flags=()
    [ "$way" != cold ] && flags=(--seed 7 --cache-references)
    # "cold" must not leave references behind for "fill".
    [ "$way" = fill ] && rm -rf "$PTXBENCH_CACHE"
    label="$task--$way"
    t0=$(now_ms)
    "$PTXBENCH" run --task "tasks/$task" --solution "$file" --shapes dev --verbose \
      "${flags[@]}" --timeout 120 --json "$WORK/runs/$label.json" \
      > "$WORK/runs/$label.txt" 2>&1
    wall=$(( $(now_ms) - t0 ))
    python3 - "$WORK/runs/$label.json" "$task" "$way" "$wall" >> "$WORK/experts.tsv" <<'PY'
import json, sys
path, task, way, wall = sys.argv[1:5]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{task}\t{way}\t{wall}\tNO_RESULT\t{e}")
    sys.exit()
phases = {}
for p in r.get("phases_ms", []):
    phases[p["phase"]] = phases.get(p["phase"], 0) + p["ms"]
for w in r.get("workloads", []):
    for p in w.get("phases_ms", []):
        phases[p["phase"]] = phases.get(p["phase"], 0) + p["ms"]
text = "; ".join(f"{k} {v:.0f}" for k, v in phases.items())
print(f"{task}\t{way}\t{wall}\t{r.get('status', '?')}\t{text}")
PY
    tail -1 "$WORK/experts.tsv"
    pack
  done
done
unset PTXBENCH_CACHE

# 2. A sweep of the honest corpus solutions.
python3 - "$WORK/samples" "$SWEEP_CORPORA" <<'PY'
import json, os, shutil, sys
root, pairs = sys.argv[1], sys.argv[2].split(",")
n = 0
for pair in pairs:
    corpus, task = pair.split(":")
    manifest = json.load(open(f"tasks/{corpus}/solutions/manifest.json"))
    for s in manifest["solutions"]:
        if s.get("arch") != "sm_90a" or s.get("status") != "PASSED" or s.get("run") == "skip":
            continue
        d = os.path.join(root, "corpus", "none", task, f"{n:03d}")
        os.makedirs(d)
        shutil.copy(f"tasks/{corpus}/solutions/{s['file']}", os.path.join(d, "solution.cu"))
        n += 1
print(f"{n} samples", file=sys.stderr)
PY
printf 'config\tsamples\twall_s\tsamples_per_gpu_hour\ttail\n' > "$WORK/sweep.tsv"
n=$(find "$WORK/samples" -name solution.cu | wc -l)
for config in noreuse default; do
  in_time || break
  flags=()
  [ "$config" = noreuse ] && flags=(--runs-per-gpu 1 --seed 0)
  export PTXBENCH_CACHE="$WORK/cache-sweep-$config"
  t0=$(now_ms)
  "$PTXBENCH" eval --tasks tasks --samples "$WORK/samples" --db "$WORK/sweep-$config.sqlite" \
    --shapes dev --gpus all --jobs 4 "${flags[@]}" > "$WORK/sweep-$config.txt" 2>&1
  wall=$(( $(now_ms) - t0 ))
  python3 -c "import sys; n, ms = $n, $wall; print(f'$config\t{n}\t{ms/1000:.1f}\t{3600*n/(ms/1000):.0f}\t' + ' | '.join(open('$WORK/sweep-$config.txt').read().split(chr(10))[-4:]))" >> "$WORK/sweep.tsv"
  tail -1 "$WORK/sweep.tsv"
  pack
done
cat "$WORK/gpu.txt" "$WORK/experts.tsv" "$WORK/sweep.tsv"
pack
