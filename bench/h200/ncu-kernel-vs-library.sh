#!/usr/bin/env bash
# ncu-kernel-vs-library.sh - Nsight Compute counters for a kernel and for the
# task's library on a GPU host, through `ptxbench run` (one profiled launch of
# the named kernel after two skipped ones; `--clock-control none`, so the
# card runs at its own clocks as in the harness's timings).
#
#   OUT=... bench/h200/ncu-kernel-vs-library.sh PTXBENCH TASK:FILE:KERNEL_REGEX ...
# KERNEL_REGEX "lib" profiles the task's library baseline instead: every
# kernel whose name is not ours or the harness's built-ins. The reports and
# their text are packed into $OUT/profiles.tgz. SOURCE=1 adds PC sampling
# (the SourceCounters section) and writes the per-SASS-instruction stall
# samples of each kernel to LABEL.sass.csv; every report's raw warp-stall
# metrics go to LABEL.stalls.txt. SHAPES (default dev) picks the workloads, as
# `ptxbench run --shapes` does: dev, heldout, all or one workload's name.
set -u
cd "$(dirname "$0")/../.."
PTXBENCH=$(realpath "$1"); shift
OUT=${OUT:-/tmp/ptxbench-profiles}; mkdir -p "$OUT/profiles"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
METRICS=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
METRICS+=,sm__inst_executed_pipe_tensor_op_gmma.sum,lts__t_sectors_srcunit_tex_op_read.sum
METRICS+=,lts__t_bytes.sum.per_second,dram__bytes_read.sum,dram__bytes_write.sum
METRICS+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max
METRICS+=,launch__cluster_dim_x,launch__grid_size,launch__registers_per_thread
# The warp-state breakdown (cycles per issued instruction spent in each stall reason).
stalls() {
  "$NCU" -i "$1" --page raw --csv 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
names, units, values = rows[0], rows[1], rows[2]
for n, v in zip(names, values):
    if ("issue_stalled" in n and ("per_issue_active" in n or "pcsamp" in n)) or n.endswith("inst_executed.sum"):
        print(f"{n:80} {v}")' > "${1%.ncu-rep}.stalls.txt"
}
# Reports given as files (REPORTS="a.ncu-rep b.ncu-rep") only get their stalls dumped.
for rep in ${REPORTS:-}; do
  cp "$rep" "$OUT/profiles/" && stalls "$OUT/profiles/$(basename "$rep")"
done
for spec in "$@"; do
  IFS=: read -r task file regex <<< "$spec"
  label="$task--$(basename "$file" .cu)--${regex//[^A-Za-z0-9_]/}"
  extra=()
  if [ "$regex" = lib ]; then
    regex='regex:^(?!ptxbench|gemm_|mha_)' # ours are gemm_* and mha_*
  else
    regex="regex:$regex"; extra=(--no-baseline)
  fi
  ncu_extra=()
  [ "${SOURCE:-0}" = 1 ] && ncu_extra=(--section SourceCounters --import-source no)
  timeout 200 "$NCU" --target-processes all --clock-control none -k "$regex" --launch-skip 2 \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --metrics "$METRICS" \
    "${ncu_extra[@]}" \
    -f -o "$OUT/profiles/$label" \
    "$PTXBENCH" run --task "tasks/$task" --solution "$file" --shapes "${SHAPES:-dev}" --timeout 300 \
      --no-feature-counts "${extra[@]}" > "$OUT/profiles/$label.log" 2>&1
  echo "$label: exit $?"
  [ -f "$OUT/profiles/$label.ncu-rep" ] &&
    "$NCU" -i "$OUT/profiles/$label.ncu-rep" --page details > "$OUT/profiles/$label.txt" 2>&1 &&
    grep -E "^  [A-Za-z_0-9]+.*\(|gmma|Duration|Throughput|Stall|Issued Warp|Registers|Cluster" \
      "$OUT/profiles/$label.txt" | head -40
  [ -f "$OUT/profiles/$label.ncu-rep" ] && stalls "$OUT/profiles/$label.ncu-rep"
  [ "${SOURCE:-0}" = 1 ] && [ -f "$OUT/profiles/$label.ncu-rep" ] &&
    "$NCU" -i "$OUT/profiles/$label.ncu-rep" --page source --csv --print-source sass \
      > "$OUT/profiles/$label.sass.csv" 2>&1
done
tar czf "$OUT/profiles.tgz" -C "$OUT" profiles && rm -rf "$OUT/profiles"
