#!/usr/bin/env python3
"""Instruction census of v12's merged consumer loop (v12_item_overlap.cu), from SASS.

round 4's loop_census.py finds a loop by a *conditional* back edge whose range holds one tile's
Q K^T and P V wgmmas. v12's D <= 128 loop is `for (;;)` with the exit (no more work) in the
middle, so its back edge is an unconditional BRA; this script reuses loop_census.py's parser,
loop finder (asked to accept such back edges) and walker. A loop iteration is either a steady
tile (the item goes on) or the turn that ends an item (finish_rows, the next item's Q-half wait
and slot read, the O store); which path a walk takes is chosen with --take LABEL, as in
loop_census.py. --paths walks every combination of the range's forward conditional branches
that are not mbarrier retry loops and prints each path's total, so the steady and the
item-ending paths both show.

  nvcc -arch=sm_90a -cubin -O3 v12_item_overlap.cu -o x.cubin && nvdisasm -c x.cubin > x.sass
  python3 census_v12.py x.sass --d 128 --paths

Known problem (found in the 2026-11-30 review, left as it is): on v12 and the experts after it a
second loop also matches the D = 128 wgmma pattern, so `--d 128` ends with "walk did not reach the
back edge" after printing the real loop, and `--d 128 --paths` tries 2^75 branch combinations and
runs out of memory. Do not run `--paths` at D = 128; D = 64 and 256 are fine.
"""
import argparse
import collections
import itertools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'round4', 'mha_fwd'))
import loop_census as lc  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('sass')
    ap.add_argument('--d', type=int, default=128)
    ap.add_argument('--take', action='append', default=[])
    ap.add_argument('--paths', action='store_true')
    ap.add_argument('--list', action='store_true')
    a = ap.parse_args()
    insns, labels = lc.parse(a.sass)
    loops = lc.find_loops(insns, labels, a.d, unconditional=True)
    if not loops:
        sys.exit(f'no loop with one tile of wgmmas for D = {a.d}')
    for start, end, lab in loops:
        fwd = []
        for t in insns[start:end + 1]:
            tgt = lc.branch_target(t)
            # Forward conditional branches that are not try-wait retries (those jump backwards
            # to their own SYNCS/try-wait, or to a retry block placed after the loop).
            if tgt and t.startswith('@') and start < labels[tgt] <= end:
                fwd.append(tgt)
        combos = [a.take] if not a.paths else [list(c) for n in range(len(fwd) + 1)
                                                for c in itertools.combinations(fwd, n)]
        seen = set()
        for take in combos:
            path = lc.walk(insns, labels, start, end, set(take))
            key = tuple(path)
            if key in seen:
                continue
            seen.add(key)
            counts = collections.Counter(lc.opcode(t) for t in path)
            top = ', '.join(f'{op} {n}' for op, n in counts.most_common(12))
            print(f'D = {a.d}: loop {lab}, range {end - start + 1}, path {len(path)} '
                  f'(take {take or "none"}): {top}')
            if a.list:
                print('\n'.join(path))
        print('forward conditional branches in range: ' + ', '.join(fwd))


if __name__ == '__main__':
    main()
