#!/bin/bash
# work-credit.sh - the speed of light and the run-time work credit on a GPU
# host (docs/performance.md, "Speed of light and work credit"):
#  1. the bf16 expert against cuBLASLt on gemm_bf16_n4096_k4096 (dev and
#     held-out shapes): hardware speed of light, best-library fraction, status;
#  2. the hostile corpus (tasks/hostile): statuses and run-time verdicts
#     against its manifest (utils/check-hostile.py --run);
#  3. every solution of tasks/**/solutions whose manifest says a requested
#     family is `used` and whose status is PASSED, on its first task's
#     development shapes without the baseline: each such family's run-time
#     verdict must be `used`.
# Usage: bench/h200/work-credit.sh [PTXBENCH]; results under $OUT (default
# /tmp/ptxbench-credit).
set -u
PTXBENCH=${1:-build/bin/ptxbench}
OUT=${OUT:-/tmp/ptxbench-credit}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$(python3 "$(dirname "$0")/../../utils/cuda-lib-path.py" 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv,noheader
  "$PTXBENCH" --version 2>&1 | head -3
} | tee "$OUT/env.txt"

echo "== 1. bf16 expert"
"$PTXBENCH" run --task tasks/gemm_bf16_n4096_k4096 \
  --solution tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu --shapes all \
  --json "$OUT/expert.json" 2>/dev/null | tee "$OUT/expert.txt"

echo "== 2. hostile corpus"
python3 utils/check-hostile.py --bin "$PTXBENCH" --run --out "$OUT/hostile" | tee "$OUT/hostile.txt"

echo "== 3. honest solutions keep used"
python3 - "$PTXBENCH" "$OUT" <<'PY' | tee "$OUT/honest.txt"
import glob, json, os, subprocess, sys
bin_, out = sys.argv[1], sys.argv[2]
bad = 0
for m in sorted(glob.glob("tasks/**/solutions/manifest.json", recursive=True)):
    man = json.load(open(m))
    sdir = os.path.dirname(m)
    task = man.get("tasks", [os.path.basename(os.path.dirname(sdir))])[0]
    for s in man["solutions"]:
        used = [f for f, v in s.get("features", {}).items() if v == "used"]
        if s.get("status") != "PASSED" or s.get("arch") != "sm_90a" or not used:
            continue
        label = os.path.basename(os.path.dirname(sdir)) + "__" + s["file"][:-3]
        js = os.path.join(out, label + ".json")
        subprocess.run([bin_, "run", "--task", os.path.join("tasks", task),
                        "--solution", os.path.join(sdir, s["file"]), "--shapes", "dev",
                        "--no-baseline", "--json", js], capture_output=True, text=True)
        if not os.path.exists(js):
            print("NO RESULT", label); bad += 1; continue
        r = json.load(open(js))
        cells = []
        for w in r["workloads"]:
            for f in w.get("features", []):
                req = next((u for u in used if f["family"] in u.split("|")), None)
                share = f" {100*f['share']:.1f}%" if "share" in f else ""
                cells.append(f"{w['workload']}:{f['family']}={f['verdict']}{share}")
                if req and "|" not in req and f["verdict"] not in ("used", "executed"):
                    bad += 1; cells[-1] += " <-- NOT USED"
            sol = w.get("sol_fraction")
            cells.append(f"{w['workload']}:{w['status']}" + (f" SOL {100*sol:.0f}%" if sol else ""))
        print(label, task, r.get("status"), "; ".join(cells))
print(bad, "problem(s)")
PY
