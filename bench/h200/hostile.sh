#!/bin/bash
# hostile.sh - runs every entry of tasks/hostile/manifest.json that has a status (and no
# "run": "skip") through `ptxbench run` on a GPU host (the task's first
# development workload, no baseline, no feature counts) and compares the
# status with the manifest's, printing a table: file, expected, got, wall
# seconds, captured output bytes and the message. Exit status 1 when a
# status differs, or when an entry's `never_prints` marker (what it prints
# on finding state from an earlier launch) is in a workload's captured
# output (the JSON's output head and tail) or in what ptxbench printed.
# (utils/check-hostile.py --run also checks run-time feature verdicts and
# work findings, on all development workloads.)
#
# Usage: bench/h200/hostile.sh [PTXBENCH] [OUT]
#   ONLY=a.cu,b.cu   only these files
# An entry expecting TIMEOUT runs with a 10 s watchdog (--timeout 10).
set -u -o pipefail # the table goes through tee: its status is the table's
PTXBENCH=${1:-build/bin/ptxbench}
OUT=${2:-${OUT:-/tmp/ptxbench-hostile}}
TASKS=$(cd "$(dirname "$0")/../../tasks" && pwd)
HERE=$TASKS/hostile
mkdir -p "$OUT"
: > "$OUT/runs.txt"
python3 - "$HERE/manifest.json" "$TASKS" "${ONLY:-}" > "$OUT/plan.txt" <<'PY'
import json, os, sys
manifest, tasks, only = sys.argv[1], sys.argv[2], set(filter(None, sys.argv[3].split(",")))
for e in json.load(open(manifest))["entries"]:
    if (only and e["file"] not in only) or not e.get("status") or e.get("run") == "skip":
        continue
    task = json.load(open(os.path.join(tasks, e["task"], "task.json")))
    first = task["workloads"]["dev"][0]["name"]
    print(e["file"], e["task"], e["status"], first, e.get("never_prints", "-"))
PY
while read -r file task expected workload marker; do
  timeout=60
  [ "$expected" = TIMEOUT ] && timeout=10
  start=$(date +%s%N)
  "$PTXBENCH" run --task "$TASKS/$task" --solution "$HERE/$file" \
    --shapes "$workload" --no-baseline --no-feature-counts \
    --timeout "$timeout" --json "$OUT/${file%.cu}.json" \
    > "$OUT/${file%.cu}.out" 2> "$OUT/${file%.cu}.err"
  echo "$file $expected $(( ($(date +%s%N) - start) / 1000000 )) $marker" >> "$OUT/runs.txt"
done < "$OUT/plan.txt"
python3 - "$OUT" <<'PY' | tee "$OUT/table.txt"
import json, os, sys
out = sys.argv[1]
bad = 0
print(f"{'file':24} {'expected':16} {'got':16} {'ok':3} {'wall_s':>6} {'printed':>9}  message")
for line in open(os.path.join(out, "runs.txt")):
    file, expected, wall, marker = line.split()
    path = os.path.join(out, file[:-3] + ".json")
    got, printed, message, marked = "NO_RESULT", 0, "", False
    if os.path.exists(path):
        r = json.load(open(path))
        got = r.get("status", "NO_RESULT")
        for w in r.get("workloads", []):
            o = w.get("output", {})
            printed += o.get("bytes", 0)
            marked |= marker != "-" and marker in o.get("head", "") + o.get("tail", "")
            if w.get("message") and not message:
                message = " ".join(w["message"].split())[:300]
    if marker != "-":
        for ext in (".out", ".err"):
            marked |= marker in open(os.path.join(out, file[:-3] + ext), errors="replace").read()
    if marked:
        message = f"printed {marker}: state survived a launch; " + message
    ok = got == expected and not marked
    bad += not ok
    print(f"{file:24} {expected:16} {got:16} {'yes' if ok else 'NO':3} {int(wall)/1000:6.1f} {printed:9}  {message}")
print(f"{bad} run(s) differ from the manifest")
sys.exit(1 if bad else 0)
PY
