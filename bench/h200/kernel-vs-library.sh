#!/usr/bin/env bash
# kernel-vs-library.sh - a kernel against the task's library on a GPU host:
# every FILE on every workload of TASK (SHAPES: all by default, or dev,
# heldout, or one workload's name), through `ptxbench run` with the library
# baseline on the same timing path, and one line per workload: status, ms,
# TFLOP/s, library ms, ratio (library time / ours; >= 1: as fast as the
# library). The expert tables of docs/performance.md come from it.
#
#   OUT=... bench/h200/kernel-vs-library.sh PTXBENCH TASK:FILE [TASK:FILE...]
# The JSON of every run is packed into $OUT/runs.tgz, after every TASK:FILE,
# so a run cut short by a timeout still brings back what it finished.
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "$1"); shift
OUT=${OUT:-/tmp/ptxbench-kernel-vs-library}
# Results gather outside $OUT and are packed into one file after each run.
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/runs"
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
for spec in "$@"; do
  task=${spec%%:*}; file=${spec#*:}
  label="$task--$(basename "$file" .cu)"
  "$PTXBENCH" run --task "tasks/$task" --solution "$file" --shapes "${SHAPES:-all}" --timeout 60 \
    --json "$WORK/runs/$label.json" > "$WORK/runs/$label.txt" 2>&1
  python3 - "$WORK/runs/$label.json" "$label" <<'PY'
import json, os, sys
path, label = sys.argv[1], sys.argv[2]
if not os.path.exists(path):
    print(f"{label}: no result"); sys.exit()
r = json.load(open(path))
for w in r["workloads"]:
    s = f"{label:52} {w['workload']:26} {w['status']:10}"
    if "time" in w:
        s += f" {w['time']['median_ms']:8.3f} ms {w.get('tflops', 0):6.0f} TF"
    if "baseline_time" in w and "time" in w:
        b = w["baseline_time"]["median_ms"]
        s += f"  lib {b:8.3f} ms  ratio {b / w['time']['median_ms']:.3f}"
    if w["status"] != "PASSED":
        s += "  " + w.get("message", "")[:140]
    print(s, flush=True)
PY
  tar czf "$OUT/runs.tgz" -C "$WORK" runs
done
rm -rf "$WORK"
