#!/usr/bin/env bash
# new-tasks.sh - the H200 check of the attention and fp8 tasks (issue 5):
# the fp32 attention references against torch in float64, then the solution
# corpora of the chosen tasks through tasks/run-solutions-h200.sh (each
# expert with its library baseline, checked against the same reference),
# then PyTorch on the same shapes as a sanity check of the baselines.
#
#   OUT=... bench/h200/new-tasks.sh PTXBENCH [ONLY] [SHAPES] [STEPS]
#     ONLY    corpora/tasks for run-solutions (default: the d128 attention
#             tasks and gemm_fp8_e4m3)
#     SHAPES  dev or all (default dev)
#     STEPS   any of ref,run,fp8,torch (default all four; fp8 runs
#             gemm_fp8_e4m3's expert, and its 128x256 solution with and
#             without the fp32 promotion)
#   EXPERT_ONLY=1 in the environment runs only the experts (timing runs).
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "${1:-build/bin/ptxbench}")
ONLY=${2:-mha_fwd_lse_h48_d128,mha_bwd_h48_d128,gemm_fp8_e4m3}
SHAPES=${3:-dev}
STEPS=${4:-ref,run,fp8,torch}
OUT=${OUT:-/tmp/ptxbench-new-tasks}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
case ",$STEPS," in *,ref,*)
  timeout 150 python3 bench/h200/attention-ref-check.py --header lib/Runtime/AttentionKernels.h \
    --builtins lib/Runtime/BuiltinKernels.h --bench > "$OUT/refcheck.txt" 2>&1
  echo "reference check: exit $?"; tail -25 "$OUT/refcheck.txt";;
esac
case ",$STEPS," in *,run,*)
  OUT="$OUT/solutions" ONLY="$ONLY" SHAPES="$SHAPES" tasks/run-solutions-h200.sh "$PTXBENCH" tasks \
    > "$OUT/solutions.txt" 2>&1
  echo "solutions: exit $?"; grep -v "^ran " "$OUT/solutions.txt" | tail -40
  tar czf "$OUT/runs.tgz" -C "$OUT/solutions" runs && rm -rf "$OUT/solutions/runs";;
esac
case ",$STEPS," in *,fp8,*)
  # The expert, and the 128x256 solution with (as shipped: every K=128) and without fp32 promotion.
  F=tasks/gemm_fp8_e4m3/solutions
  sed 's/^#define PROMOTE 1/#define PROMOTE 0/' $F/wgmma_tma_128x256.cu > /tmp/wgmma_tma_128x256_nopromote.cu
  for sol in $F/wgmma_tma_fast.cu $F/wgmma_tma_128x256.cu /tmp/wgmma_tma_128x256_nopromote.cu; do
    [ -f "$sol" ] || continue
    "$PTXBENCH" run --task tasks/gemm_fp8_e4m3 --solution "$sol" --shapes "$SHAPES" \
      --json "$OUT/fp8-$(basename "$sol" .cu).json" > "$OUT/fp8-$(basename "$sol" .cu).txt" 2>&1
    echo "fp8 $(basename "$sol"): exit $?"; cat "$OUT/fp8-$(basename "$sol" .cu).txt" | head -40
  done;;
esac
case ",$STEPS," in *,torch,*)
  timeout 200 python3 bench/h200/torch_sanity.py tasks > "$OUT/torch.txt" 2>&1
  echo "torch: exit $?"; cat "$OUT/torch.txt";;
esac
