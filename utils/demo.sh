#!/usr/bin/env bash
# demo.sh - the whole benchmark on the built-in corpus model, after
# utils/setup.sh: generate two turns of answers for two tasks at two context
# levels (each answer evaluated and its feedback sent back), evaluate what is
# left (static analysis without a GPU, GPU runs when one is present), print
# the report and write fine-tuning records; then look closely at one shipped
# Hopper kernel: import it, summarize it, export it back to PTX, and analyze
# whether it really uses wgmma, TMA and transaction-count mbarriers.
set -euo pipefail
cd "$(dirname "$0")/.."
ptxbench=build/bin/ptxbench
out=build/demo
rm -rf "$out"
mkdir -p "$out"

mode=(--static-only)
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  mode=()
fi

echo "== generate (corpus model; 2 tasks x 2 contexts x 2 samples, 2 turns)"
$ptxbench generate --model corpus --tasks tasks --task rmsnorm_h4096,gemm_bf16_n4096_k4096 \
  --arch sm_90a --context none,brief --samples 2 --turns 2 ${mode[@]+"${mode[@]}"} \
  --out "$out/samples" --db "$out/results.sqlite"
echo
echo "== eval"
$ptxbench eval --tasks tasks --samples "$out/samples" --db "$out/results.sqlite" \
  ${mode[@]+"${mode[@]}"}
echo
echo "== report"
$ptxbench report --db "$out/results.sqlite"
echo
echo "== fixit"
$ptxbench fixit --db "$out/results.sqlite" -o "$out/fixit.jsonl"
echo
echo "== one kernel, closely"
example=examples/gemm_wgmma.sm_90a.ptx
$ptxbench summary "$example" --export build/gemm_wgmma.roundtrip.ptx
echo
$ptxbench analyze "$example" --arch sm_90a \
  --require wgmma,tma,mbarrier_tx --sass
