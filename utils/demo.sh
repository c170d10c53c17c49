#!/usr/bin/env bash
# demo.sh - the main job on the built-in example, after utils/setup.sh:
# import a shipped Hopper kernel, summarize it, export it back to PTX, and
# analyze whether it really uses the architecture-specific instructions a
# GEMM task requests on sm_90a (wgmma, TMA, transaction-count mbarriers).
set -euo pipefail
cd "$(dirname "$0")/.."
example=examples/gemm_wgmma.sm_90a.ptx
build/bin/ptxbench summary "$example" --export build/gemm_wgmma.roundtrip.ptx
echo
build/bin/ptxbench analyze "$example" --arch sm_90a \
  --require wgmma,tma,mbarrier_tx --sass
