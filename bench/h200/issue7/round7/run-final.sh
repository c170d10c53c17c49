#!/usr/bin/env bash
# run-final.sh - round 7's closing calls on the H200 (docs/perf.md, "round 7"):
#   OUT=... bench/h200/issue7/round7/run-final.sh PTXBENCH gemm   the bf16 expert (v16, 32-bit
#       selection) beside the previous expert on all 15 workloads, then both at M = 1024
#       interleaved three times;
#   OUT=... bench/h200/issue7/round7/run-final.sh PTXBENCH mha    the attention expert (v14 at
#       D = 128) on all 20 forward workloads, and the two GPU lit tests' run lines.
# The previous bf16 expert is put at bench/h200/issue7/round7/gemm_bf16/previous_expert_v14.cu
# before the call (git show <rev>:tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu).
set -u
cd "$(dirname "$0")/../../../.."
P=$1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv
case "$2" in
gemm)
  E=tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu
  O=bench/h200/issue7/round7/gemm_bf16/previous_expert_v14.cu
  pairs=()
  for t in gemm_bf16_n7168_k5120 gemm_bf16_n14336_k4096 gemm_bf16_n4096_k4096; do
    pairs+=("$t:$E" "$t:$O")
  done
  OUT=$OUT/all bench/h200/issue7/run-variants.sh "$P" "${pairs[@]}"
  for rep in 1 2 3; do
    SHAPES=heldout-m1024 OUT=$OUT/m1024-$rep bench/h200/issue7/run-variants.sh "$P" "${pairs[@]}"
  done
  ;;
mha)
  E=tasks/mha_fwd/solutions/wgmma_tma_fast.cu
  specs=()
  for t in d128 d128_causal d64 d256; do specs+=("mha_fwd_lse_h48_$t:$E"); done
  OUT=$OUT/all bench/h200/issue7/run-variants.sh "$P" "${specs[@]}"
  OUT=$OUT bench/h200/gpu-lit-runs.sh "$P" test/Runtime/new-tasks-gpu.test test/Runtime/gemm-gpu.test
  ;;
esac
