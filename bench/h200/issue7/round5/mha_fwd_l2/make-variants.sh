#!/usr/bin/env bash
# make-variants.sh - writes round 5b's two variants next to this script: v12_item_overlap.cu with
# the causal L2 section size (L2_SECTION_BYTES, 32 MiB in v12) set to 16 and to 8 MiB. They are
# generated rather than kept, since each differs from v12 in that one line (and a first-line
# comment); the 16 MiB one is, in code, the attention-forward expert since round 5.
set -eu
here=$(dirname "$0")
for mib in 16 8; do
  out="$here/v13_l2_${mib}mib.cu"
  { echo "// v13_l2_${mib}mib.cu: v12_item_overlap.cu with causal sections of ${mib} MiB of K/V instead of 32 (see README.md)."
    sed "s/#define L2_SECTION_BYTES (32u << 20)/#define L2_SECTION_BYTES (${mib}u << 20)/" \
      "$here/../mha_fwd/v12_item_overlap.cu"; } > "$out"
  grep -q "L2_SECTION_BYTES (${mib}u << 20)" "$out" || { echo "make-variants.sh: the define was not replaced" >&2; exit 1; }
done
