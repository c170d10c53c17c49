#!/usr/bin/env bash
# sandbox.sh - the sandboxed NVRTC compile child and GPU worker on a GPU
# host: what the kernel offers (Landlock's ABI), one expert per baseline
# library (none, cuBLASLt, cuDNN) with the sandbox as it comes
# (PTXBENCH_SANDBOX=auto), required, and with the worker's turned off
# (PTXBENCH_WORKER_SANDBOX=off), each with its wall time, then --sanitize
# under the sandbox. With STRACE=path-to-strace, the sandboxed worker of
# the first run once more under strace, and every call it was refused
# (EACCES, EPERM) in $OUT/refused.txt.
#
#   OUT=... [STRACE=...] bench/h200/sandbox.sh PTXBENCH
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "$1")
OUT=${OUT:-/tmp/ptxbench-sandbox}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
echo "kernel $(uname -r)"
python3 -c 'import ctypes; libc = ctypes.CDLL(None, use_errno=True); abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint(1)); print("landlock ABI", abi, "errno", ctypes.get_errno())'

# run NAME [VAR=VALUE...] -- ARGS...: one `ptxbench run`, its summary lines
# and its wall time.
run() {
  local name=$1
  shift
  local vars=()
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  local start=$(date +%s%N)
  env "${vars[@]}" "$PTXBENCH" run "$@" --verbose > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "== $name: exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms"
  grep -E "^ *(dev|held)[^ ]* +[A-Z_]+|status:|sandbox of|sandbox:" "$OUT/$name.txt" | head -12
  [ $rc -ne 0 ] && tail -6 "$OUT/$name.txt" | cut -c1-400
  return 0
}

rms=(--task tasks/rmsnorm_h4096 --solution tasks/rmsnorm_h4096/solutions/bulk_mbarrier.cu)
gemm=(--task tasks/gemm_bf16 --solution tasks/gemm_bf16/solutions/tiled_smem.cu)
mha=(--task tasks/mha_fwd_lse_h48_d128 --solution tasks/mha_fwd/solutions/wgmma_tma.cu)
run rms-auto -- "${rms[@]}" --json "$OUT/rms-auto.json"
if [ -n "${STRACE:-}" ]; then
  "$STRACE" -f -qq -e trace=%file,%network,%process,ioctl,ptrace -o "$OUT/strace.txt" \
    "$PTXBENCH" run "${rms[@]}" --no-baseline > "$OUT/strace-run.txt" 2>&1
  echo "== strace run: exit $?"
  grep -E "= -1 (EACCES|EPERM)" "$OUT/strace.txt" | sed -E 's/^[0-9]+ +//' |
    sort | uniq -c | sort -rn > "$OUT/refused.txt"
  echo "refused calls (distinct): $(wc -l < "$OUT/refused.txt")"
  head -40 "$OUT/refused.txt"
fi
run gemm-auto -- "${gemm[@]}"
run mha-auto -- "${mha[@]}"
run rms-sanitize -- --task tasks/rmsnorm_h4096 --solution tasks/rmsnorm_h4096/solutions/plain.cu --sanitize --no-baseline
grep -E "memcheck|racecheck|synccheck|sanitizer" "$OUT/rms-sanitize.txt" | head -8
run rms-worker-off PTXBENCH_WORKER_SANDBOX=off -- "${rms[@]}"
run rms-require PTXBENCH_SANDBOX=require -- "${rms[@]}"
run gemm-worker-off PTXBENCH_WORKER_SANDBOX=off -- "${gemm[@]}"
run mha-worker-off PTXBENCH_WORKER_SANDBOX=off -- "${mha[@]}"
