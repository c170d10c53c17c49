#!/usr/bin/env python3
"""check_layouts.py - CPU checks of round 5's address arithmetic (v4_lean_loop.cu, v5_dv_early.cu).

Replays each kernel formula for every thread and compares it with the expert
(tasks/mha_bwd/solutions/wgmma_tma.cu) or with an independent model:
  1. descriptors: for every wgmma operand of a tile (S^T, dP^T, dV, dK, dQ; both warpgroups, both
     stages, any 1024-aligned base below 228 KiB), DESC_HI << 32 | (lo + off >> 4) equals the
     expert's make_desc(addr + off, lbo, 1024);
  2. dS (v4, v5): 4 stmatrix.x4.trans per thread at the kernel's per-lane address put every dS^T
     element where the expert's 32 scalar bf16 stores put it; each 8-lane phase hits 8 distinct
     16-byte bank groups (no conflicts);
  3. dK/dV staging (v5): 8 stmatrix.x4 per tensor per thread put accumulator element (key, col) of
     each warpgroup where a 128B-swizzled 64x64 TMA box keeps it (the swizzle modelled as byte
     address bits [4:6] XOR bits [7:9] of the row-major offset); every byte written once; no bank
     conflicts.
  4. the LSE/Delta float2 index and the dq_acc row pointer reproduce the expert's scalar indices.
stmatrix model (PTX ISA): register k of lane l holds row l/4, columns 2(l%4), +1 of matrix k; the
address of row r of matrix k comes from lane 8k + r; with .trans, element (row, col) of matrix k
is stored at memory row col, position row.
The expert's dS layout (2.) is round 1's model, imported from ../../mha_bwd/check_ds_stmatrix.py.
Run: python3 bench/h200/issue7/round5/mha_bwd/check_layouts.py   (prints OK lines or fails)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'mha_bwd'))
from check_ds_stmatrix import expert as expert_ds_tile  # noqa: E402

BOX = 64 * 64 * 2
OFF_K, OFF_V, OFF_STAGE = 0, 4 * BOX, 8 * BOX
STAGE_TILE = 4 * BOX
OFF_DS = OFF_STAGE + 2 * STAGE_TILE
DESC_HI = 0x40000040


def make_desc(addr, lbo, sbo):  # the expert's
    return ((addr & 0x3FFFF) >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 62


def lo_k(addr):
    return ((addr & 0x3FFFF) >> 4) | 1 << 16


def lo_n(addr):
    return ((addr & 0x3FFFF) >> 4) | (BOX >> 4) << 16


def at(lo, off):
    return DESC_HI << 32 | (lo + (off >> 4))


def check_descriptors():
    n = 0
    # the dynamic window starts at a small static offset; base is 1024-aligned, all tiles fit 228K
    for base in range(0, 228 * 1024 - (OFF_DS + 2 * BOX + 512), 1024):
        for wg in range(2):
            myK, myV = base + OFF_K + wg * 2 * BOX, base + OFF_V + wg * 2 * BOX
            sDS = base + OFF_DS
            kcol = base + OFF_K + wg * BOX
            for s in range(2):
                sQ = base + OFF_STAGE + s * STAGE_TILE
                sdO = sQ + 2 * BOX
                for kk in range(8):
                    off = (kk // 4) * BOX + 32 * (kk % 4)
                    assert at(lo_k(myK), off) == make_desc(myK + off, 16, 1024)
                    assert at(lo_k(sQ), off) == make_desc(sQ + off, 16, 1024)
                    assert at(lo_k(myV), off) == make_desc(myV + off, 16, 1024)
                    assert at(lo_k(sdO), off) == make_desc(sdO + off, 16, 1024)
                    a = (kk // 4) * BOX + 32 * (kk % 4)
                    bk = (kk // 4) * 2 * BOX + 2048 * (kk % 4)
                    assert at(lo_k(sDS), a) == make_desc(sDS + a, 16, 1024)
                    assert at(lo_n(kcol), bk) == make_desc(kcol + bk, BOX, 1024)
                    n += 6
                for t in range(4):
                    assert at(lo_n(sdO), 2048 * t) == make_desc(sdO + 2048 * t, BOX, 1024)
                    assert at(lo_n(sQ), 2048 * t) == make_desc(sQ + 2048 * t, BOX, 1024)
                    n += 2
    print(f"OK descriptors: {n} operand descriptors equal the expert's")


def stmatrix(addr_of_lane, regs_of_lane, trans):
    """{byte address: value} written by one warp's stmatrix.x4; regs_of_lane(l)[k] = (lo, hi)."""
    mem = {}
    for k in range(4):
        for l in range(32):
            for e in range(2):
                row, col = l // 4, 2 * (l % 4) + e
                val = regs_of_lane(l)[k][e]
                if trans:  # element (row, col) -> memory row col, position row
                    a = addr_of_lane(8 * k + col) + 2 * row
                else:
                    a = addr_of_lane(8 * k + row) + 2 * col
                assert a not in mem, "byte written twice"
                mem[a] = val
    return mem


def no_conflicts(addr_of_lane):
    for k in range(4):  # each 8-lane phase writes 8 rows of 16 bytes
        groups = {(addr_of_lane(8 * k + r) // 16) % 8 for r in range(8)}
        assert len(groups) == 8, "bank conflict"


def check_ds():
    # The expert's tile, each element tagged with the (wg, warp, lane, register) that holds it.
    expert = expert_ds_tile({(wg, w, l, i): (wg, w, l, i) for wg in range(2) for w in range(4)
                             for l in range(32) for i in range(32)})
    v4 = {}
    for wg in range(2):
        for w in range(4):
            # v4: dsStore + n * 16 * 128, dsf[4n + k] = pack(pacc[8n + 2k], pacc[8n + 2k + 1])
            def addr0(lane, wg=wg, w=w):
                return (wg * BOX + (8 * ((lane // 8) >> 1) + lane % 8) * 128 +
                        (((2 * w + ((lane // 8) & 1)) ^ (lane % 8)) << 4))
            for n in range(4):
                addr = lambda lane, n=n: addr0(lane) + n * 16 * 128
                regs = lambda l, n=n, wg=wg, w=w: [((wg, w, l, 2 * (4 * n + k)),
                                                    (wg, w, l, 2 * (4 * n + k) + 1)) for k in range(4)]
                part = stmatrix(addr, regs, trans=True)
                assert not (part.keys() & v4.keys())
                v4.update(part)
                no_conflicts(addr)
    assert expert == v4 and len(v4) == 2 * BOX // 2
    print("OK dS: stmatrix.x4.trans layout == expert's scalar stores, conflict-free")


def tma_box_addr(row, col):
    box, c = col // 64, col % 64
    lin = row * 128 + 2 * c
    return box * BOX + (lin ^ (((lin >> 7) & 7) << 4))


def check_dkdv():
    for tensor in ("dV", "dK"):
        for wg in range(2):
            mem, want = {}, {}
            for w in range(4):
                for l in range(32):
                    for i in range(64):  # accumulator register i: its (key row, column)
                        row, col = 16 * w + l // 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (l % 4) + (i & 1)
                        want[tma_box_addr(row, col)] = (row, col)
                region = (0 if tensor == "dV" else 4 * BOX) + wg * 2 * BOX
                for m in range(8):
                    def addr(lane, m=m, w=w):
                        k, r = lane // 8, lane % 8
                        j = 2 * m + (k >> 1)
                        return (j // 8) * BOX + (16 * w + 8 * (k & 1) + r) * 128 + (((j % 8) ^ r) << 4)
                    def frag(l, i, w=w):
                        return (16 * w + l // 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (l % 4) + (i & 1))
                    regs = lambda l, m=m: [(frag(l, 8 * m + 2 * k), frag(l, 8 * m + 2 * k + 1))
                                           for k in range(4)]
                    part = stmatrix(addr, regs, trans=False)
                    assert not (part.keys() & mem.keys())
                    mem.update(part)
                    no_conflicts(addr)
            assert mem == want and len(mem) == 64 * 128, tensor
            assert region + 2 * BOX <= 2 * STAGE_TILE  # inside the freed stage buffers
    print("OK dK/dV: stmatrix.x4 staging == 128B-swizzled TMA boxes, every element once, conflict-free")


def check_rows():
    S, firstTile, bh = 3000, 3, 7
    for it in range(4):
        q0 = (firstTile + it) * 64
        for wg in range(2):
            for w in range(4):
                for l in range(32):
                    for i in range(32):
                        col = 8 * (i >> 2) + 2 * (l % 4) + (i & 1)
                        j, e = i // 4, i % 4
                        assert 2 * (l % 4 + 4 * j) + (e & 1) == col  # rowLse2[4j] (+ l%4), .x/.y
                    for hr in range(2):
                        expert = ((bh * S + q0 + 16 * w + l // 4 + 8 * hr) * 128 + 64 * wg + 2 * (l % 4))
                        v4 = ((bh * S + firstTile * 64 + 16 * w + l // 4) * 128 + 64 * wg + 2 * (l % 4)
                              + it * 64 * 128 + 8 * hr * 128)
                        assert expert == v4
    print("OK LSE/Delta float2 indices and dq_acc row pointer == expert's")


check_descriptors()
check_ds()
check_dkdv()
check_rows()
