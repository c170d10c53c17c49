#!/bin/bash
# gqa-prefill-check.sh - the gqa_paged_prefill and gqa_ragged_prefill corpora
# on a GPU without ptxbench: each kernel compiled with nvcc to an sm_90a
# cubin and run by gqa-prefill-check.cpp against fp64 on the CPU at small
# shapes (page sizes 1 and 3, groups of 4 and 8, P = 0 and P > 0, partial
# tiles), the manifests' verdicts expected (ffma.cu PASSED, the broken
# kernels INCORRECT where their bug shows: top_left_mask.cu only with P > 0),
# then timed at the development and held-out shapes. Needs nvcc and a GPU.
#
# Usage: bench/h200/gqa-prefill-check.sh   (work files under $OUT, default /tmp/gqa-prefill-check)
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/gqa-prefill-check}
NVCC=${NVCC:-nvcc}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$NVCC" -O2 -o "$OUT/check" "$SRC/bench/h200/gqa-prefill-check.cpp" -lcuda
for f in gqa_paged_prefill/solutions/ffma gqa_paged_prefill/solutions/top_left_mask \
         gqa_ragged_prefill/solutions/ffma gqa_ragged_prefill/solutions/wrong_kv_head; do
  "$NVCC" -cubin -arch=sm_90a -O3 -o "$OUT/$(echo "$f" | tr / _).cubin" "$SRC/tasks/$f.cu"
done
P=$OUT/gqa_paged_prefill_solutions
R=$OUT/gqa_ragged_prefill_solutions
bad=0
expect() { # expected-verdict cubin args...
  local want=$1; shift
  local line; line=$("$OUT/check" "$@" | tee /dev/stderr | tail -1)
  case "$line" in *"$want"*) ;; *) echo "expected $want"; bad=1 ;; esac
}
expect PASSED ${P}_ffma.cubin 1 2 200 77 32 8 1 1
expect PASSED ${P}_ffma.cubin 1 3 45 0 32 4 1 1
expect PASSED ${P}_ffma.cubin 1 2 70 33 32 4 3 1
expect INCORRECT ${P}_top_left_mask.cubin 1 2 200 77 32 8 1 1
expect PASSED ${P}_top_left_mask.cubin 1 3 45 0 32 4 1 1
expect PASSED ${R}_ffma.cubin 0 2 200 77 32 4 1 1
expect PASSED ${R}_ffma.cubin 0 3 45 0 32 8 1 1
expect INCORRECT ${R}_wrong_kv_head.cubin 0 2 200 77 32 4 1 1
for shape in "4 2048 0" "8 512 1536" "1 4096 0" "2 1000 3000" "16 513 100"; do
  "$OUT/check" ${P}_ffma.cubin 1 $shape 32 8 1 0
  "$OUT/check" ${R}_ffma.cubin 0 $shape 32 4 1 0
done
exit $bad
