#!/usr/bin/env bash
# run-round3.sh - issue 7, round 3 on the H200 in one call: the prepared
# fp8 and attention-forward variants against their libraries (through
# run-variants.sh), then the commands of test/Runtime/new-tasks-gpu.test,
# whose outputs come back for FileCheck on the development machine
# (bench/h200/gpu-lit-runs.sh --check DIR test/Runtime/new-tasks-gpu.test).
#
#   OUT=... bench/h200/issue7/round3/run-round3.sh PTXBENCH [BUDGET_S]
# The variant runs stop after BUDGET_S seconds (default 420) so that the
# lit commands and the tarballs still fit in one device call.
set -u
cd "$(dirname "$0")/../../../.."
PTXBENCH=$(realpath "$1"); BUDGET=${2:-420}
OUT=${OUT:-/tmp/ptxbench-round3}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
R=bench/h200/issue7/round3
start=$(date +%s)
timeout "$BUDGET" env OUT="$OUT" bench/h200/issue7/run-variants.sh "$PTXBENCH" \
  gemm_fp8_e4m3:$R/gemm_fp8/v6_cluster2_multicast_b.cu \
  gemm_fp8_e4m3:$R/gemm_fp8/v7_cluster2_promote256.cu \
  mha_fwd_lse_h48_d256:$R/mha_fwd/v6_pingpong_d256.cu \
  mha_fwd_lse_h48_d64:$R/mha_fwd/v7_double_q.cu \
  mha_fwd_lse_h48_d128:$R/mha_fwd/v7_double_q.cu \
  mha_fwd_lse_h48_d128_causal:$R/mha_fwd/v7_double_q.cu
echo "variants: exit $? after $(( $(date +%s) - start )) s"
# A timeout leaves the JSON unpacked: pack whatever is there.
[ -d "$OUT/variants" ] && tar czf "$OUT/variants.tgz" -C "$OUT" variants && rm -rf "$OUT/variants"
OUT="$OUT" bench/h200/gpu-lit-runs.sh "$PTXBENCH" test/Runtime/new-tasks-gpu.test
tar czf "$OUT/lit.tgz" -C "$OUT" lit && rm -rf "$OUT/lit"
echo "total $(( $(date +%s) - start )) s"
