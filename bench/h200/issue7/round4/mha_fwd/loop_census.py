#!/usr/bin/env python3
"""Instruction census of the attention-forward consumer's steady-state loop, from SASS.

Round 4 of issue 7 cuts instructions per K/V tile; this script gives the evidence. It reads the
output of `nvdisasm -c` for a cubin of one of the mha_fwd solutions (all three head dimensions are
instantiated in one kernel) and finds the steady-state loop of consume_item<D> by its body: a
backward conditional branch whose range holds exactly the Q K^T wgmmas of one K/V tile (shared-
memory A and B, HGMMA.64xNx16 with gdesc A) and the P V wgmmas of one tile (register A, .tnspB).
That pattern is unique per D: D = 64 is QK m64n128 x4 + PV m64n64 x8, D = 128 QK m64n128 x8 +
PV m64n128 x8, D = 256 QK m64n64 x16 + PV m64n256 x4.

It then walks one iteration the way a tile without masking runs: from the loop label, conditional
forward branches are not taken (mbarrier try-wait retries and the masked-tile path are branched to,
the fast unmasked path falls through), unconditional branches are followed, and the walk stops at
the back edge. --take LABEL (repeatable) takes a conditional branch to LABEL instead, e.g. the
masked path, or v9's O-rescale block. Prints the per-opcode counts (one warp's instructions per tile)
and the total, for every such loop (v9 has two per D: its fast path, then its slow path).

  nvcc -arch=sm_90a -cubin -O3 FILE.cu -o x.cubin && nvdisasm -c x.cubin > x.sass
  python3 loop_census.py x.sass [--d 128] [--take .L_x_23] [--list]

round5/mha_fwd/census_v12.py and round5/mha_bwd/loop_census.py import this file as their SASS
parser and walker (parse with a kernel name, find_loops with unconditional back edges, walk with
their own branch decoder and extra taken branches, print_counts).
"""
import argparse
import collections
import re
import signal
import sys

INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_x_\d+):")
KERNEL = re.compile(r"^\.text\.(\w+):")
SHAPES = {64: ("64x128x16", 4, "64x64x16", 8), 128: ("64x128x16", 8, "64x128x16", 8),
          256: ("64x64x16", 16, "64x256x16", 4)}


def parse(path, kernel=None):
    """Instruction texts in address order, and label -> index; with kernel, only that kernel's
    section (.text.KERNEL) of the file."""
    insns, labels, pending, inside = [], {}, [], kernel is None
    for line in open(path):
        m = KERNEL.match(line)
        if m:
            inside = kernel is None or m.group(1) == kernel
            continue
        if not inside:
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSN.match(line)
        if m:
            for lab in pending:
                labels[lab] = len(insns)
            pending = []
            insns.append(m.group(2))
    return insns, labels


def opcode(text):
    t = re.sub(r"^@!?U?P\w+\s+", "", text)
    return t.split()[0]


def branch_target(text):
    # "BRA `(.L_x_1)", and the two-predicate form "@!P3 BRA P0, `(.L_x_1)".
    m = re.search(r"BRA\s+(?:!?U?P\w+,\s*)?`?\(?(\.L_x_\d+)", text)
    return m.group(1) if m else None


def is_qk(text, shape):
    return text.startswith("HGMMA." + shape) and "gdesc" in text.split(",")[1] and "tnspB" not in text


def is_pv(text, shape):
    return text.startswith("HGMMA." + shape) and ".tnspB" in text


def find_loops(insns, labels, d, unconditional=False):
    """Every loop (start, back edge, label) whose range holds one tile's QK and PV wgmmas, in code
    order. The back edge is a conditional branch; unconditional=True also accepts a plain BRA
    (v12's `for (;;)` loop, census_v12.py)."""
    qk_shape, n_qk, pv_shape, n_pv = SHAPES[d]
    loops = []
    for i, text in enumerate(insns):
        tgt = branch_target(text)
        if not tgt or not (unconditional or text.startswith("@")) or labels.get(tgt, i + 1) > i:
            continue
        body = insns[labels[tgt]:i + 1]
        qk = sum(is_qk(t, qk_shape) for t in body)
        pv = sum(is_pv(t, pv_shape) for t in body)
        if qk == n_qk and pv == n_pv:
            loops.append((labels[tgt], i, tgt))
    return loops


def walk(insns, labels, start, end, take, target=branch_target, also_taken=None):
    """One iteration's instructions, from start to the back edge at end. Unconditional branches
    are followed; a conditional one is taken if its label is in take or also_taken(i, label)
    says so, else it falls through. target(text) decodes a branch's label."""
    path, i, seen = [], start, 0
    while True:
        seen += 1
        if seen > 20000:
            sys.exit("walk did not reach the back edge")
        text = insns[i]
        path.append(text)
        if i == end:
            return path
        tgt = target(text)
        if tgt and (not text.startswith("@") or tgt in take
                    or (also_taken is not None and also_taken(i, tgt))):
            i = labels[tgt]
        else:
            i += 1


def print_counts(path):
    """Per-opcode counts of a walked path, most frequent first."""
    counts = collections.Counter(opcode(t) for t in path)
    for op, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:5d} {op}")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    ap = argparse.ArgumentParser()
    ap.add_argument("sass")
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--take", action="append", default=[])
    ap.add_argument("--list", action="store_true", help="print the walked instructions")
    a = ap.parse_args()
    insns, labels = parse(a.sass)
    loops = find_loops(insns, labels, a.d)
    if not loops:
        _, n_qk, _, n_pv = SHAPES[a.d]
        sys.exit(f"no steady-state loop with {n_qk} QK and {n_pv} PV wgmmas for D = {a.d}")
    # v9 has two such loops per D (its fast path first, then the slow path); the others one.
    for start, end, lab in loops:
        path = walk(insns, labels, start, end, set(a.take))
        if a.list:
            print("\n".join(path))
        print(f"D = {a.d}: loop {lab}, {end - start + 1} instructions in its range, "
              f"{len(path)} on the walked path (take: {a.take or 'none'})")
        print_counts(path)
        branches = [t for t in insns[start:end + 1] if branch_target(t) and t.startswith("@")]
        print("conditional branches in range: " + "; ".join(branches))

if __name__ == "__main__":
    main()
