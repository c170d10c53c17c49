#!/usr/bin/env bash
# quick-corpus.sh - every honest (PASSED) solution of every
# tasks/**/solutions/manifest.json that is not an expert, on the first task
# of its manifest and that task's smallest development workload, without the
# baseline: a quick check that the harness still passes them. Prints a
# table; exit status 1 when one does not pass.
#
#   OUT=... bench/h200/quick-corpus.sh PTXBENCH
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$1
OUT=${OUT:-/tmp/ptxbench-quick}
mkdir -p "$OUT"
: > "$OUT/runs.txt"
python3 - tasks > "$OUT/plan.txt" <<'PY'
import glob, json, os, sys
for m in sorted(glob.glob(os.path.join(sys.argv[1], "*", "solutions", "manifest.json"))):
    man = json.load(open(m))
    task = man["tasks"][0]
    t = json.load(open(os.path.join(sys.argv[1], task, "task.json")))
    def size(w):  # the task's FLOP count (+ - * and names only)
        return eval(t["flops"], {"__builtins__": {}}, {k: v for k, v in w.items() if k != "name"})
    small = min(t["workloads"]["dev"], key=size)["name"]
    for s in man["solutions"]:
        status = s.get("status_by_task", {}).get(task, s["status"])
        if status == "PASSED" and not s.get("expert") and s.get("run", "all") != "skip":
            print(os.path.join(sys.argv[1], task), os.path.join(os.path.dirname(m), s["file"]), small)
PY
while read -r task file workload; do
  label=$(basename "$task")__$(basename "${file%.cu}")
  start=$(date +%s%N)
  "$PTXBENCH" run --task "$task" --solution "$file" --shapes "$workload" \
    --no-baseline --json "$OUT/$label.json" > "$OUT/$label.out" 2>&1
  echo "$label $? $(( ($(date +%s%N) - start) / 1000000 ))" >> "$OUT/runs.txt"
done < "$OUT/plan.txt"
python3 - "$OUT" <<'PY' | tee "$OUT/table.txt"
import json, os, sys
out, bad = sys.argv[1], 0
for line in open(os.path.join(out, "runs.txt")):
    label, rc, wall = line.split()
    path = os.path.join(out, label + ".json")
    r = json.load(open(path)) if os.path.exists(path) else {}
    ws = r.get("workloads", [{}])
    w = ws[0]
    got = r.get("status", "NO_RESULT")
    bad += got != "PASSED"
    t = w.get("time", {})
    print(f"{label:48} {got:14} {int(wall)/1000:6.1f}s {w.get('workload', '')} "
          f"{t.get('median_ms', 0):.4f} ms sets {w.get('input_sets', 0)} checked "
          f"{w.get('timed_launches_checked', 0)} {w.get('message', '')[:160]}")
print(f"{bad} not PASSED")
sys.exit(1 if bad else 0)
PY
