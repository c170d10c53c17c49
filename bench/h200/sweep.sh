#!/usr/bin/env bash
# sweep.sh - the H200 sweep over the solution corpus (issue 8): every
# solution as a sample of one fake model, evaluated with ptxbench eval on
# the GPU (development shapes), then the report. Logs and the store in $OUT.
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
