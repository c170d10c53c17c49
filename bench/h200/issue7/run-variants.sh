#!/usr/bin/env bash
# run-variants.sh - times expert-kernel variants against their library on
# the H200 (issue 7): every FILE on every workload of TASK, through
# `ptxbench run --shapes all` (the library baseline on the same path), and
# prints one line per workload: status, ms, library ms, ratio.
#
#   OUT=... bench/h200/issue7/run-variants.sh PTXBENCH TASK:FILE [TASK:FILE...]
# The JSON of every run is packed into $OUT/variants.tgz, after every TASK:FILE,
# so a run cut short by a timeout still brings back what it finished.
set -u
cd "$(dirname "$0")/../../.."
PTXBENCH=$(realpath "$1"); shift
OUT=${OUT:-/tmp/ptxbench-variants}
# Results gather outside $OUT (only 8 files come back from it) and are packed after each run.
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/variants"
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
for spec in "$@"; do
  task=${spec%%:*}; file=${spec#*:}
  label="$task--$(basename "$file" .cu)"
  "$PTXBENCH" run --task "tasks/$task" --solution "$file" --shapes "${SHAPES:-all}" --timeout 60 \
    --json "$WORK/variants/$label.json" > "$WORK/variants/$label.txt" 2>&1
  python3 - "$WORK/variants/$label.json" "$label" <<'PY'
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
  tar czf "$OUT/variants.tgz" -C "$WORK" variants
done
rm -rf "$WORK"
