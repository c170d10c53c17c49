#!/bin/bash
# usage: bash tune/run.sh VARIANT.cu ...   (run from build-final; writes $OUT/<variant>__<task>.json)
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for f in "$@"; do
  for t in ${TASKS:-gemm_bf16_n7168_k5120 gemm_bf16_n4096_k4096 gemm_bf16_n14336_k4096}; do
    v=$(basename $f .cu)
    s=$(date +%s)
    ./ptxbench run --task tasks/$t --solution tune/$f --shapes ${SHAPES:-all} --timeout ${TMO:-60} --no-feature-counts \
      --json $OUT/${v}__$t.json > $OUT/${v}__$t.out 2>&1
    echo "$v $t rc=$? $(( $(date +%s) - s ))s" >&2
  done
done
python3 - $OUT <<'PY'
import json, glob, os, sys
rows = []
for p in sorted(glob.glob(sys.argv[1] + "/*.json")):
    v, t = os.path.basename(p)[:-5].split("__")
    r = json.load(open(p))
    cells = []
    for w in r.get("workloads", []):
        st = w["status"]
        if "time" in w and "baseline_time" in w:
            bms = w["baseline_time"]["median_ms"]; ms = w["time"]["median_ms"]
            cells.append(f"{w['workload'].split('-')[-1] if 'ragged' not in w['workload'] else 'm3000'}:{w.get('tflops',0):.0f}/{w['flops']/(bms*1e-3)*1e-12:.0f}={bms/ms:.2f}")
        else:
            cells.append(f"{w['workload']}:{st}")
    print(f"{v:18} {t[10:]:12} {r.get('status')}: " + " ".join(cells))
PY
