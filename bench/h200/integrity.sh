#!/usr/bin/env bash
# integrity.sh - the harness's integrity and containment on a GPU host,
# before and after: the hostile corpus (tasks/hostile) with the new binary
# and, for the classes the old harness let through, with the old one; the
# experts of every task (development shapes) with both, for their timings
# and the harness's wall time per submission; every honest and broken
# solution of the first task of each corpus with the new binary.
#
#   OUT=... [STAGES="..."] bench/h200/integrity.sh BEFORE_PTXBENCH AFTER_PTXBENCH
#
# STAGES picks stages by name (default: bomb hostile-after experts-after
# experts-before corpus-after hostile-before sanitize; also spin,
# corpus-quick, rmsnorm-before).
#
# Stages run in order of importance and each only while time is left
# (DEADLINE_S, default 540 s from the start); the compile bomb runs in the
# background from the start (it only needs a CPU). Everything goes to
# $OUT/integrity.tar.gz.
set -u
cd "$(dirname "$0")/../.."
BEFORE=$1 AFTER=$2
OUT=${OUT:-/tmp/ptxbench-integrity}
R=$OUT/integrity
mkdir -p "$R"
START=$(date +%s)
DEADLINE=$((START + ${DEADLINE_S:-540}))
left() { echo $((DEADLINE - $(date +%s))); }
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  "$AFTER" --version | head -3
  nproc
} > "$R/env.txt" 2>&1
cat "$R/env.txt"
pack() { tar -C "$OUT" -czf "$OUT/integrity.tar.gz" integrity; }
trap pack EXIT

# The compile bomb against the default 60 s limit, on the CPU, meanwhile.
STAGES=${STAGES:-bomb hostile-after experts-after experts-before corpus-after hostile-before sanitize}
BOMB=
case " $STAGES " in *" bomb "*)
  ( ONLY=compile_bomb.cu bench/h200/hostile.sh "$AFTER" "$R/bomb" > "$R/bomb.log" 2>&1 ) &
  BOMB=$! ;;
esac

stage() { # name minimum-seconds command...
  local name=$1 need=$2; shift 2
  case " $STAGES " in *" $name "*) ;; *) return ;; esac
  if [ "$(left)" -lt "$need" ]; then
    echo "skipped $name: $(left) s left" | tee -a "$R/stages.txt"; return
  fi
  local t0=$(date +%s)
  timeout "$(left)" "$@" > "$R/$name.log" 2>&1
  echo "$name: exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$R/stages.txt"
}
HOSTILE_STATE=hidden_globals_state.cu,const_state.cu,smem_state.cu,slack_state.cu,heap_state.cu,counted_decoy.cu,huge_workspace.cu
HOSTILE_GPU=memo_fingerprint.cu,memo_pointer.cu,counter_partial.cu,fingerprint_partial.cu,partial_tiles.cu,scratch_cache.cu,zero_once_dirty.cu,write_input.cu,oob_write.cu,oob_read.cu,spin_timed.cu,printf_bomb.cu,memo_rmsnorm.cu,$HOSTILE_STATE
stage hostile-after 60 env ONLY=$HOSTILE_GPU bench/h200/hostile.sh "$AFTER" "$R/hostile-after"
stage experts-after 60 env OUT="$R/experts-after" EXPERT_ONLY=1 SHAPES=dev bench/h200/run-solutions.sh "$AFTER"
stage experts-before 60 env OUT="$R/experts-before" EXPERT_ONLY=1 SHAPES=dev bench/h200/run-solutions.sh "$BEFORE"
stage corpus-after 60 env OUT="$R/corpus-after" SHAPES=dev ONLY=gemm_bf16_n4096_k4096,gemm_fp8_e4m3,mha_bwd_h48_d128,mha_fwd_lse_h48_d128,rmsnorm_h4096 bench/h200/run-solutions.sh "$AFTER"
stage spin 15 env ONLY=spin_timed.cu bench/h200/hostile.sh "$AFTER" "$R/spin"
stage corpus-quick 60 env OUT="$R/corpus-quick" bench/h200/quick-corpus.sh "$AFTER"
stage rmsnorm-before 10 env OUT="$R/rmsnorm-before" EXPERT_ONLY=1 SHAPES=dev ONLY=rmsnorm_h4096 bench/h200/run-solutions.sh "$BEFORE"
stage hostile-before 40 env ONLY=memo_fingerprint.cu,memo_pointer.cu,counter_partial.cu,fingerprint_partial.cu,partial_tiles.cu,scratch_cache.cu,zero_once_dirty.cu,write_input.cu,oob_write.cu,oob_read.cu,memo_rmsnorm.cu,$HOSTILE_STATE bench/h200/hostile.sh "$BEFORE" "$R/hostile-before"
# compute-sanitizer on a file that reads out of bounds (smallest workload).
stage sanitize 60 timeout 150 "$AFTER" run --task tasks/gemm_bf16_n4096_k4096 \
  --solution tasks/hostile/oob_read.cu --shapes heldout-m1024 --no-baseline \
  --no-feature-counts --sanitize --json "$R/sanitize.json"
if [ -n "$BOMB" ]; then
  wait $BOMB
  echo "bomb: $(tail -2 "$R/bomb.log" | head -1)" | tee -a "$R/stages.txt"
fi
for f in "$R"/*/table.txt; do echo "== $f"; cat "$f"; done
