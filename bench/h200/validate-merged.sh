#!/usr/bin/env bash
# validate-merged.sh - one H200 call that checks the merged tree end to end:
# the straightforward bf16 GEMM and the wgmma+TMA solution through
# `ptxbench run` with run-time feature counts, then ncu's per-opcode SASS
# counts for the wgmma+TMA kernel to calibrate the wgmma/TMA/mbarrier
# counts. Run from a folder holding a static `ptxbench` and a copy of
# tasks/: `bash validate-merged.sh ./ptxbench tasks`. Logs under $OUT.
set -uo pipefail
BIN=${1:-./ptxbench}
TASKS=${2:-tasks}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"

echo "== tiled_smem on gemm_bf16 (dev)"
/usr/bin/time -f "wall %e s" "$BIN" run --task "$TASKS/gemm_bf16" \
  --solution "$TASKS/gemm_bf16/solutions/tiled_smem.cu" --shapes dev \
  --json "$OUT/tiled.json" 2>&1 | tee "$OUT/tiled.txt"

echo "== wgmma_tma on gemm_bf16_n7168_k5120 (dev)"
/usr/bin/time -f "wall %e s" "$BIN" run --task "$TASKS/gemm_bf16_n7168_k5120" \
  --solution "$TASKS/gemm_bf16_nt/solutions/wgmma_tma.cu" --shapes dev \
  --json "$OUT/wgmma.json" 2>&1 | tee "$OUT/wgmma.txt"

echo "== ncu per-opcode SASS counts for the wgmma_tma kernel (first workload)"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 300 "$NCU" --clock-control none --target-processes all \
  --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum \
  --print-metric-instances values -c 3 \
  "$BIN" run --task "$TASKS/gemm_bf16_n7168_k5120" \
  --solution "$TASKS/gemm_bf16_nt/solutions/wgmma_tma.cu" --shapes dev \
  --no-baseline > "$OUT/ncu.txt" 2>&1
echo "ncu rc=$?"
grep -iE "sass__inst_executed_per_opcode|HGMMA|UTMALDG|SYNCS|==PROF==|error" "$OUT/ncu.txt" | head -40
