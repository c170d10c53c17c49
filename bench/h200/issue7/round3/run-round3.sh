#!/usr/bin/env bash
# run-round3.sh - issue 7, round 3 on the H200 in one call: the prepared
# fp8 and attention-forward variants against their libraries (through
# run-variants.sh), then the commands of test/Runtime/new-tasks-gpu.test,
# whose outputs come back for FileCheck on the development machine.
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
mkdir -p "$OUT/lit"
libs=$(python3 utils/cuda-lib-path.py 2>/dev/null)
[ -n "$libs" ] && export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
grep '^# RUN:' test/Runtime/new-tasks-gpu.test | sed 's/^# RUN: //; s/ | FileCheck.*//' | {
  n=0
  while read -r cmd; do
    n=$((n + 1))
    cmd=${cmd//%ptxbench_src/.}; cmd=${cmd/#not /}; cmd=${cmd/ptxbench/$PTXBENCH}
    timeout 150 bash -c "$cmd" > "$OUT/lit/run$n.txt" 2>&1
    echo "lit run $n: exit $?"
  done
}
tar czf "$OUT/lit.tgz" -C "$OUT" lit && rm -rf "$OUT/lit"
echo "total $(( $(date +%s) - start )) s"
