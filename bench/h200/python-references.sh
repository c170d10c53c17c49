#!/bin/bash
# python-references.sh - the task suite's PyTorch references on the GPU.
#
# Usage: bench/h200/python-references.sh [PTXBENCH]
#
# 1. Every `ptxbench tasks reference` line of test/tasks/python-reference.test
#    (small shapes, each family's tasks) again with --device cuda, checked
#    by the same independent float64 NumPy computation
#    (test/tasks/Inputs/check-python-reference.py) the CPU test uses.
# 2. One development workload of each family's tasks on cuda at its real
#    shape, timed (the reference runs once per input set, untimed by the
#    harness: this is what it costs a run).
# Needs torch with CUDA and NumPy for python3 (DEVICE=cpu: part 1 on the
# CPU, as the lit test does, to try the script without a GPU). Results under $OUT (default
# /tmp/ptxbench-python-references); the check lines and times on stdout.
set -u
PTXBENCH=${1:-build/bin/ptxbench}
OUT=${OUT:-/tmp/ptxbench-python-references}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$OUT" && mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

bad=0
DEVICE=${DEVICE:-cuda}
grep -o 'ptxbench tasks reference .*' "$SRC/test/tasks/python-reference.test" |
  sed "s|%ptxbench_src|$SRC|g; s|%t|$OUT/small|g; s|^ptxbench tasks reference ||; s/|.*//" \
  > "$OUT/lines.txt"
while IFS= read -r args; do
  # shellcheck disable=SC2086
  "$PTXBENCH" tasks reference $args --device "$DEVICE" > "$OUT/last.log" 2>&1 ||
    { echo "FAILED: tasks reference $args"; cat "$OUT/last.log"; bad=1; }
  grep -h "computed on" "$OUT/last.log"
done < "$OUT/lines.txt"
for family in "$OUT"/small/*; do
  python3 "$SRC/test/tasks/Inputs/check-python-reference.py" "$family" || bad=1
done

[ "$DEVICE" = cuda ] || exit $bad
for spec in gqa_paged_decode_h32_kv8_d128_ps1:dev-b16-l4096 \
            gqa_paged_decode_h32_kv4_d128_ps64 \
            gdn_decode_qk4_v8_d128 gdn_mtp_qk4_v8_d128 \
            gemm_fp8_blockscale_n7168_k2048 \
            mla_paged_decode_h16_ckv512_kpe64_ps1 \
            gqa_paged_prefill_causal_h32_kv8_d128_ps1 \
            gqa_ragged_prefill_causal_h32_kv4_d128; do
  task=${spec%%:*}
  shapes=dev
  [ "$spec" != "$task" ] && shapes=${spec#*:}
  start=$(date +%s%N)
  "$PTXBENCH" tasks reference "$SRC/tasks/$task" --shapes "$shapes" --device cuda \
    -o "$OUT/dev/$task" 2>&1 | grep -E "computed on|error" || bad=1
  echo "$task ($shapes): $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
done
exit $bad
