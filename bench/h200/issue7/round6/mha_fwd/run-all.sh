#!/usr/bin/env bash
# run-all.sh - round 6's last call: attention forward v14 beside the expert on
# all 20 forward workloads (four tasks x five), one call.
#   OUT=... bench/h200/issue7/round6/mha_fwd/run-all.sh PTXBENCH
# Round 6 is closed: v14 and the expert it ran against are in git history (restore them as
# bench/h200/README.md says: v14 at its path, the expert of ff78be0 with git show).
set -u
cd "$(dirname "$0")/../../../../.."
P=$1
E=tasks/mha_fwd/solutions/wgmma_tma_fast.cu
V=bench/h200/issue7/round6/mha_fwd/v14_short_chains.cu
pairs=()
for t in d128 d128_causal d64 d256; do
  pairs+=("mha_fwd_lse_h48_$t:$E" "mha_fwd_lse_h48_$t:$V")
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv
OUT=$OUT/all bench/h200/issue7/run-variants.sh "$P" "${pairs[@]}"
