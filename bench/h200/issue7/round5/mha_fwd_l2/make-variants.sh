#!/usr/bin/env bash
# make-variants.sh - writes round 5b's variants next to this script from the attention-forward
# expert (tasks/mha_fwd/solutions/wgmma_tma_fast.cu, which is v12 with 16 MiB sections): the
# causal L2 section size (L2_SECTION_BYTES) set to 32 MiB (v12 as measured), 16 MiB (the expert's
# code) and 8 MiB. Each differs from the others in that one define only, so none is kept.
set -eu
here=$(dirname "$0")
expert="$here/../../../../../tasks/mha_fwd/solutions/wgmma_tma_fast.cu"
for name in v12_l2_32mib:32 v13_l2_16mib:16 v13_l2_8mib:8; do
  out="$here/${name%%:*}.cu"; mib=${name##*:}
  { echo "// ${name%%:*}.cu: the attention-forward expert with causal sections of ${mib} MiB of K/V (see README.md)."
    sed "s/#define L2_SECTION_BYTES (16u << 20)/#define L2_SECTION_BYTES (${mib}u << 20)/" "$expert"; } > "$out"
  grep -q "L2_SECTION_BYTES (${mib}u << 20)" "$out" || { echo "make-variants.sh: the define was not replaced" >&2; exit 1; }
done
