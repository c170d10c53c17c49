#!/usr/bin/env python3
"""Instruction census of the attention-backward main loop (one 64-query tile), from SASS.

Round 5 of issue 7 cuts instructions per query tile in tasks/mha_bwd/solutions/wgmma_tma.cu; this
gives the evidence. Input: `nvdisasm -c` output of a cubin of one of the mha_bwd solutions. The loop
of mha_bwd_wgmma is found by its body: a backward conditional branch whose range holds one tile's
32 wgmmas: S^T and dP^T (16 x HGMMA.64x64x16 with shared-memory A, no .tnspB), dV and dK
(8 x HGMMA.64x128x16 with register A and .tnspB) and dQ (8 x HGMMA.64x64x16 .tnspB).

One iteration is walked the way an unmasked tile runs on a warp other than the producer's:
conditional forward branches are not taken (mbarrier try-wait retries and the masked-tile path are
branched to), except those that skip a block issuing TMA or bulk copies (UTMALDG / UBLKCP: only
thread 0 refills the stage) -- those are taken. Unconditional branches are followed; the walk ends
at the back edge. --take LABEL takes a conditional branch to LABEL (e.g. the masked path), --list
prints the walked instructions. Prints per-opcode counts (one warp's instructions per tile).

  nvcc -arch=sm_90a -cubin -O3 FILE.cu -o x.cubin && nvdisasm -c x.cubin > x.sass
  python3 loop_census.py x.sass [--take .L_x_32] [--list]

The SASS parser, walker and opcode counts are round 4's forward census
(round4/mha_fwd/loop_census.py), imported; the loop finder and the branch decoder are this
kernel's own.
"""
import argparse
import collections
import os
import re
import signal
import sys

# Both censuses are named loop_census.py: round 4's folder goes first on the path, so the import
# below is round 4's file, not this one.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'round4', 'mha_fwd'))
import loop_census as fwd_census  # noqa: E402


def branch_target(text):
    # Also the uniform forms BRA.U and BRA.U.ANY, which this kernel has and the forward kernels
    # do not. Round 4's decoder does not read them and is left so (its counts stay as published).
    m = re.search(r"BRA(?:\.U\.ANY|\.U)?\s+(?:!?U?P\w+,\s*)?`?\(?(\.L_x_\d+)", text)
    return m.group(1) if m else None


def classify(text):
    if not text.startswith("HGMMA."):
        return None
    shape = text.split()[0].split(".")[1]
    tnsp = ".tnspB" in text
    reg_a = re.search(r"HGMMA\.\S+\s+R\d+,\s+R\d+,", text) is not None
    if shape == "64x64x16" and not tnsp:
        return "sdp"
    if shape == "64x128x16" and tnsp and reg_a:
        return "dvdk"
    if shape == "64x64x16" and tnsp:
        return "dq"
    return "other"


def find_loop(insns, labels):
    for i, text in enumerate(insns):
        tgt = branch_target(text)
        if not tgt or not text.startswith("@") or labels.get(tgt, i + 1) > i:
            continue
        kinds = collections.Counter(classify(t) for t in insns[labels[tgt]:i + 1])
        if kinds["sdp"] == 16 and kinds["dvdk"] == 8 and kinds["dq"] == 8:
            return labels[tgt], i, tgt
    sys.exit("no loop with 16 S/dP, 8 dV/dK and 8 dQ wgmmas")


def producer_only(insns, labels, i, tgt):
    """A forward branch over a block that issues TMA / bulk copies (thread 0's refill)."""
    j = labels[tgt]
    block = [fwd_census.opcode(t) for t in insns[i + 1:j]] if j > i else []
    return (any(op.startswith(("UTMALDG", "UBLKCP")) for op in block)
            and not any(op.startswith("HGMMA") for op in block))


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser()
    ap.add_argument("sass")
    ap.add_argument("--kernel", default="mha_bwd_wgmma")
    ap.add_argument("--take", action="append", default=[])
    ap.add_argument("--list", action="store_true", help="print the walked instructions")
    a = ap.parse_args()
    insns, labels = fwd_census.parse(a.sass, a.kernel)
    start, end, lab = find_loop(insns, labels)
    # Thread 0's refill blocks are skipped, as the other 255 threads do.
    path = fwd_census.walk(insns, labels, start, end, set(a.take), target=branch_target,
                           also_taken=lambda i, tgt: producer_only(insns, labels, i, tgt))
    if a.list:
        print("\n".join(path))
    print(f"{a.kernel}: loop {lab}, {end - start + 1} instructions in its range, "
          f"{len(path)} on the walked path (take: {a.take or 'none'})")
    fwd_census.print_counts(path)
    print("R2UR in the whole kernel: %d" % sum(fwd_census.opcode(t) == "R2UR" for t in insns))
    branches = [t for t in insns[start:end + 1] if branch_target(t) and t.startswith("@")]
    print("conditional branches in range: " + "; ".join(branches))


if __name__ == "__main__":
    main()
