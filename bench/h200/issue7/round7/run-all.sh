#!/usr/bin/env bash
# run-all.sh - the H200 run of bf16 v16 beside the expert, first on the
# M3000 workloads of the three bf16 tasks, then on all their workloads.
#   OUT=... bench/h200/issue7/round7/run-all.sh PTXBENCH
# Round 7 is closed: v16 and the expert it ran against are in git history (restore them as
# bench/h200/README.md says: v16 at its path, the expert of ff78be0 with git show).
set -u
cd "$(dirname "$0")/../../../.."
P=$1
E=tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu
V=bench/h200/issue7/round7/gemm_bf16/v16_transposed_216.cu
pairs=()
for t in gemm_bf16_n7168_k5120 gemm_bf16_n14336_k4096 gemm_bf16_n4096_k4096; do
  pairs+=("$t:$E" "$t:$V")
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv
SHAPES=heldout-m3000-ragged OUT=$OUT/m3000 bench/h200/issue7/run-variants.sh "$P" "${pairs[@]}"
OUT=$OUT/all bench/h200/issue7/run-variants.sh "$P" "${pairs[@]}"
