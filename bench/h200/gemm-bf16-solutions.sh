#!/bin/bash
# gemm-bf16-solutions.sh - every solution of tasks/gemm_bf16 (the tiled
# kernel and the hostile ones) through `ptxbench run` on a GPU host, with
# wall time per submission; full logs and JSON results go to $OUT as one
# tarball. Also times torch.matmul with triton.testing.do_bench on the same
# shapes, to compare with the harness's cuBLASLt figures.
# Usage: bench/h200/gemm-bf16-solutions.sh [PTXBENCH]
set -u
PTXBENCH=${1:-build/bin/ptxbench}
OUT=${OUT:-/tmp/ptxbench-out}
LOG=$OUT/logs
mkdir -p "$LOG"
T=tasks/gemm_bf16
S=$T/solutions
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  /usr/local/cuda/bin/nvcc --version | tail -2; uname -r
} > "$LOG/env.txt" 2>&1
cat "$LOG/env.txt"

run() { # name timeout extra-args...
  local name=$1 timeout=$2; shift 2
  local label=${LABEL:-$name}
  local start=$(date +%s%N)
  "$PTXBENCH" run --task $T --solution $S/$name.cu --timeout "$timeout" \
    --json "$LOG/$label.json" "$@" > "$LOG/$label.out" 2> "$LOG/$label.err"
  local rc=$?
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '%-28s exit %d  wall %d ms\n' "$label" "$rc" "$ms" | tee -a "$LOG/walls.txt"
}

run tiled_smem 60 --shapes all
for h in hostile_trap hostile_oob_write hostile_writes_nothing hostile_writes_half \
         hostile_modifies_input hostile_caches_result; do
  run $h 20 --no-baseline
done
run hostile_hang_mbarrier 8 --no-baseline
# Harness overhead: a second run of the good solution on the small shape.
LABEL=tiled_smem_again run tiled_smem 60 --shapes dev --no-baseline

# torch.matmul through do_bench (cuBLAS) on the same shapes.
PYTHONUNBUFFERED=1 python3 - > "$LOG/do_bench.txt" 2>&1 <<'PY'
import torch, triton
from triton.testing import do_bench
print("torch", torch.__version__, "triton", triton.__version__)
for (m, n, k) in [(1024,1024,1024),(4096,4096,4096),(1000,1512,520),(8192,8192,8192),(2048,6144,3000)]:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    runs = [do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500, return_mode="median") for _ in range(3)]
    print(f"do_bench torch.matmul M={m} N={n} K={k}: median_ms " + " ".join(f"{r:.4f}" for r in runs)
          + f"  TFLOP/s {2*m*n*k/min(runs)/1e9:.1f}")
PY

echo "=== summaries ==="
for f in "$LOG"/*.out; do echo "--- $(basename $f .out)"; cat "$f"; done
echo "=== stderr tails ==="
for f in "$LOG"/*.err; do echo "--- $(basename $f .err)"; tail -5 "$f"; done
echo "=== do_bench ==="
cat "$LOG/do_bench.txt"
cat "$LOG/walls.txt"
tar -C "$OUT" -czf "$OUT/results.tar.gz" logs && rm -rf "$LOG"
