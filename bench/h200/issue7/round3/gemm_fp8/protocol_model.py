#!/usr/bin/env python3
"""CPU model of the 2-CTA multicast ring of v6/v7 (issue 7, round 3, gemm_fp8): random interleavings
of both CTAs' producers, consumer warps and in-flight TMA copies, with mbarrier semantics as in the
PTX ISA (pending arrival count, signed tx-count, phase completes when both reach 0; try_wait.parity P
succeeds once the phase of parity P has completed). Checks, on every interleaving:
  - no deadlock (every agent finishes),
  - a consumer warp starts reading stage s for use u only when all three parts of that stage in its
    CTA (own A, B half 0, B half 1) hold use u's data,
  - no TMA write lands in a stage of a CTA while any consumer warp of that CTA has yet to finish
    reading the previous use of that stage (no overwrite-before-read, across the cluster).
Model v6: consumers take one stage per group. Model v7: consumers take stages in pairs (it even),
releasing both after the pair. The mbarrier and scheduler machinery is ../../mbarrier_model.py
(shared with the mha_fwd models). Usage: python3 protocol_model.py [SEEDS] (default 3000, ~20 s)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from mbarrier_model import MBarrier, run_interleaved  # noqa: E402

STAGES = 4
FULL_BYTES = 3  # one unit per part: A, B half 0, B half 1


def run(seed, pairs, warps, uses):
    rng = random.Random(seed)
    full = [[MBarrier(1) for _ in range(STAGES)] for _ in range(2)]
    empty = [[MBarrier(2 * warps) for _ in range(STAGES)] for _ in range(2)]
    smem = [[[None] * 3 for _ in range(STAGES)] for _ in range(2)]  # use tag per part
    done_reads = [[[-1] * STAGES for _ in range(warps)] for _ in range(2)]  # last use finished
    inflight = []  # (dst cta, stage, part, use)

    def producer(c):
        for it in range(uses):
            s, ph = it % STAGES, (it // STAGES) & 1
            yield from empty[c][s].wait(ph ^ 1)
            full[c][s].arrive(tx=FULL_BYTES)
            inflight.append((c, s, 0, it))  # own A
            inflight.append((c, s, 1 + c, it))  # own B half into both CTAs (multicast)
            inflight.append((1 - c, s, 1 + c, it))
            yield

    def consumer(c, w):
        step = 2 if pairs else 1
        for it in range(0, uses, step):
            group = [it + i for i in range(step)]
            for u in group:
                s, ph = u % STAGES, (u // STAGES) & 1
                yield from full[c][s].wait(ph)
                assert smem[c][s] == [u] * 3, f"seed {seed}: CTA {c} warp {w} reads stale stage {s} use {u}: {smem[c][s]}"
            for _ in range(rng.randint(1, 4)):  # the wgmmas read for a while
                for u in group:
                    assert smem[c][u % STAGES] == [u] * 3, f"seed {seed}: stage overwritten during read"
                yield
            for u in group:
                s = u % STAGES
                done_reads[c][w][s] = u
                for r in (0, 1):  # lane r arrives on CTA r's empty barrier
                    empty[r][s].arrive()
            yield

    def land(copy):  # a TMA write of one part of stage s into CTA c, with the overwrite check
        c, s, part, u = copy
        for w in range(warps):
            assert done_reads[c][w][s] >= u - STAGES, (
                f"seed {seed}: write of use {u} into CTA {c} stage {s} before warp {w} read use {u - STAGES}")
        smem[c][s][part] = u
        full[c][s].complete_tx(1)

    agents = [producer(0), producer(1)] + [consumer(c, w) for c in (0, 1) for w in range(warps)]
    try:
        run_interleaved(agents, inflight, rng, land=land)
    except RuntimeError:
        raise AssertionError(f"seed {seed}: deadlock") from None
    return True


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    for pairs in (False, True):
        for seed in range(seeds):
            uses = 2 * random.Random(seed).randint(1, 12)  # tiles * K stages (even for v7)
            run(seed, pairs, warps=2 + seed % 3, uses=uses)
        print(f"{'v7 (pairs)' if pairs else 'v6 (stages)'}: {seeds} interleavings, no deadlock, "
              "no stale read, no overwrite before read")


if __name__ == "__main__":
    main()
