#!/bin/bash
# run-solutions.sh - every runnable solution of every tasks/**/solutions/manifest.json
# through `ptxbench run --json` on a GPU host and compares each run's status
# with the manifest's, printing a table (and the cuBLASLt baseline per
# workload). Exit status 1 when a status differs from the manifest.
#
# Usage: bench/h200/run-solutions.sh [PTXBENCH] [TASKS_DIR]
#   RUN_ALL_TASKS=1  also run the broken solutions on every listed task
#                    (default: only on the first, to save GPU time)
#   ONLY=a,b         only these corpora or tasks (folder names under TASKS_DIR,
#                    e.g. ONLY=mha_fwd,gemm_fp8_e4m3)
#   SHAPES=dev       cap every run at the development workloads
#   EXPERT_ONLY=1    only the solutions marked "expert" (timing runs)
#   SUFFIX=.py       only the solutions whose file ends so (the Triton ones)
#   SAVE_COMPILED=D  run nothing: compile each Triton solution (no GPU needed)
#                    and keep D/<task>__<file>.ptx and .triton.json
#                    (`run --save-compiled`), for a GPU host without Triton
#   COMPILED=D       run the Triton solutions from those files
#                    (`run --compiled-ptx --triton-build`), not compiling
# cuDNN (the attention baselines) is found in the PyPI wheel python3 sees
# (nvidia-cudnn-cu13) and put on LD_LIBRARY_PATH with the CUDA runtime.
# Results (JSON, logs, the table) go to $OUT (default /tmp/ptxbench-solutions).
# The manifest's "run" field per solution: "all" = every workload (the first
# such solution of a task also times the cuBLASLt baseline), "dev" = the
# development workloads only, "skip" = not run.
set -u
PTXBENCH=${1:-build/bin/ptxbench}
TASKS=${2:-$(dirname "$0")/../../tasks}
OUT=${OUT:-/tmp/ptxbench-solutions}
mkdir -p "$OUT/runs"
export LD_LIBRARY_PATH="$(python3 "$(dirname "$0")/../../utils/cuda-lib-path.py" 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu --format=csv,noheader 2>&1
  "$PTXBENCH" --version 2>&1 | head -3
} > "$OUT/env.txt"
cat "$OUT/env.txt"

# Plan: one line per run, "task manifest_dir file expected shapes baseline timeout".
python3 - "$TASKS" "${RUN_ALL_TASKS:-0}" "${ONLY:-}" "${SHAPES:-}" "${EXPERT_ONLY:-0}" > "$OUT/plan.txt" <<'PY'
import glob, json, os, sys
tasks_dir, all_tasks = sys.argv[1], sys.argv[2] == "1"
only = set(filter(None, sys.argv[3].split(",")))
cap, expert_only = sys.argv[4], sys.argv[5] == "1"
for m in sorted(glob.glob(os.path.join(tasks_dir, "**", "solutions", "manifest.json"), recursive=True)):
    man = json.load(open(m))
    sdir = os.path.dirname(m)
    corpus = os.path.basename(os.path.dirname(sdir))
    for ti, task in enumerate(man["tasks"]):
        if only and corpus not in only and task not in only:
            continue
        baseline_done = False
        for s in man["solutions"]:
            if s.get("run", "all") == "skip" or (expert_only and not s.get("expert")):
                continue
            if not s["file"].endswith(os.environ.get("SUFFIX", "")):
                continue
            broken = s["status"] != "PASSED" or s.get("run") == "dev"
            if broken and ti > 0 and not all_tasks and s["status"] != "PASSED":
                continue
            shapes = "all" if s.get("run", "all") == "all" and cap != "dev" else "dev"
            baseline = s.get("run", "all") == "all" and not baseline_done
            baseline_done |= baseline
            timeout = 4 if s["status"] == "TIMEOUT" else 60
            status = s.get("status_by_task", {}).get(task, s["status"])
            print(os.path.join(tasks_dir, task), sdir, s["file"], status, shapes,
                  int(baseline), timeout)
PY

while read -r task sdir file expected shapes baseline timeout; do
  label=$(basename "$task")__${file%.cu}
  extra=()
  [ "$baseline" = 1 ] || extra+=(--no-baseline)
  if [ "${file##*.}" = py ] && [ -n "${SAVE_COMPILED:-}" ]; then
    mkdir -p "$SAVE_COMPILED"
    CUDA_VISIBLE_DEVICES= "$PTXBENCH" run --task "$task" --solution "$sdir/$file" \
      --arch sm_90a --save-compiled "$SAVE_COMPILED/$label" > /dev/null 2>&1
    echo "saved $label: $(ls "$SAVE_COMPILED/$label".* 2>/dev/null | wc -l) files" >&2
    continue
  fi
  [ -n "${SAVE_COMPILED:-}" ] && continue
  if [ "${file##*.}" = py ] && [ -n "${COMPILED:-}" ] && [ -e "$COMPILED/$label.ptx" ]; then
    extra+=(--compiled-ptx "$COMPILED/$label.ptx" --triton-build "$COMPILED/$label.triton.json")
  fi
  start=$(date +%s%N)
  "$PTXBENCH" run --task "$task" --solution "$sdir/$file" --shapes "$shapes" \
    --timeout "$timeout" --json "$OUT/runs/$label.json" "${extra[@]}" \
    > "$OUT/runs/$label.out" 2> "$OUT/runs/$label.err"
  rc=$?
  echo "$label $expected $rc $(( ($(date +%s%N) - start) / 1000000 ))" >> "$OUT/runs.txt"
  echo "ran $label: exit $rc" >&2
done < "$OUT/plan.txt"

[ -n "${SAVE_COMPILED:-}" ] && exit 0
python3 - "$OUT" <<'PY' | tee "$OUT/table.txt"
import json, os, sys
out = sys.argv[1]
bad = 0
print(f"{'task':28} {'solution':20} {'expected':14} {'got':14} {'ok':3} {'wall_s':>6}  per workload: status median_ms TFLOP/s GB/s SOL [cuBLASLt ms TFLOP/s]")
for line in open(os.path.join(out, "runs.txt")):
    label, expected, rc, wall = line.split()
    task, sol = label.split("__", 1)
    path = os.path.join(out, "runs", label + ".json")
    got, parts = "NO_RESULT", []
    if os.path.exists(path):
        r = json.load(open(path))
        got = r.get("status", "NO_RESULT")
        for w in r.get("workloads", []):
            s = f"{w['workload']}={w['status']}"
            if "time" in w:
                s += f" {w['time']['median_ms']:.3f}ms {w.get('tflops', 0):.0f}TF {w.get('gbps', 0):.0f}GB/s"
                if "sol_fraction" in w:
                    s += f" SOL {100 * w['sol_fraction']:.0f}%"
            if "baseline_time" in w:
                bms = w["baseline_time"]["median_ms"]
                s += f" [lib {bms:.3f}ms {w['flops'] / (bms * 1e-3) * 1e-12:.0f}TF"
                bc = w.get("baseline_checks", [])
                if bc:
                    s += " check " + ("ok" if all(c["passed"] for c in bc) else "FAILED")
                s += "]"
            elif "baseline" in w.get("message", ""):
                s += " [" + w["message"][:160] + "]"
            parts.append(s)
    if got != "PASSED" and os.path.exists(path):
        msgs = {w.get("message", "")[:200] for w in r.get("workloads", []) if w.get("message")}
        parts += sorted(msgs)
    ok = got == expected
    bad += not ok
    print(f"{task:28} {sol:20} {expected:14} {got:14} {'yes' if ok else 'NO':3} {int(wall)/1000:6.1f}  " + "; ".join(parts))
print(f"{bad} run(s) differ from the manifests")
sys.exit(1 if bad else 0)
PY
