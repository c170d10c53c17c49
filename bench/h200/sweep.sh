#!/usr/bin/env bash
# sweep.sh - sweep throughput on a GPU host: every solution of the corpus as
# a sample of one model, evaluated with `ptxbench eval` on the GPU
# (development shapes, 8 jobs), then the report; prints samples per GPU-hour.
# Logs and the store go to $OUT.
#
#   OUT=... DIR/sweep.sh   with DIR holding this script, a `ptxbench` binary,
#   `tasks/` and a sample tree `samples/` (docs/eval.md, "The sample tree":
#   samples/<model>/<context>/<task>/<sample_id>/solution.cu per solution)
set -uo pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
start=$(date +%s.%N)
./ptxbench eval --tasks tasks --samples samples --db "$OUT/sweep.sqlite" \
  --shapes dev --gpus all --jobs 8 2>&1 | tail -15
end=$(date +%s.%N)
n=$(find samples -name solution.cu | wc -l)
python3 -c "import sys; t=$end-$start; n=$n; print(f'{n} samples in {t:.1f} s: {t/n:.2f} s per sample, {3600*n/t:.0f} samples per GPU-hour')"
./ptxbench report --db "$OUT/sweep.sqlite" --format markdown > "$OUT/report.md"
head -60 "$OUT/report.md"
