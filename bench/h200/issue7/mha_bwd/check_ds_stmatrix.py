#!/usr/bin/env python3
"""CPU model for v3: the dS shared-memory tile written by 4 stmatrix.x4.trans
per thread must equal the expert's 32 scalar bf16 stores, byte for byte.

Model of stmatrix.m8n8.x4.trans (PTX ISA): register k of lane l holds the
elements (row l/4, cols 2(l%4), 2(l%4)+1) of matrix k (low half = lower
column); with .trans, element (r, c) of matrix k lands in memory row c at
position r; memory row c of matrix k starts at the address lane 8k + c gives.
expert() is also round 5's reference (round5/mha_bwd/check_layouts.py imports it).
"""
BOX = 64 * 64 * 2

def expert(ws):
    """The expert's dS tile: {byte offset: ws[wg, warp, lane, i]}, from its 32 scalar bf16 stores
    per thread (dS^T accumulator element i at [query][key], rows 128B-swizzled), both warpgroups."""
    mem = {}
    for wg in range(2):
        for warp in range(4):
            for lane in range(32):
                for i in range(32):
                    q = 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)
                    key = 16 * warp + lane // 4 + 8 * ((i >> 1) & 1)
                    off = q * 128 + key * 2
                    mem[wg * BOX + (off ^ ((q & 7) << 4))] = ws[wg, warp, lane, i]
    return mem

def v3(ws):
    mem = {}
    for wg in range(2):
        for warp in range(4):
            # addresses per lane and instruction n, as in the kernel
            addr = {}
            for lane in range(32):
                j, r = lane // 8, lane % 8
                chunk = ((2 * warp + (j & 1)) ^ r) << 4
                for n in range(4):
                    q = 8 * (2 * n + (j >> 1)) + r
                    addr[lane, n] = wg * BOX + q * 128 + chunk
            for n in range(4):
                for k in range(4):  # matrix k of instruction n holds dsf[4n+k]
                    for lane in range(32):
                        reg = 4 * n + k  # dsf index; = pack(pacc[2reg], pacc[2reg+1])
                        for e in range(2):
                            val = ws[wg, warp, lane, 2 * reg + e]
                            row_r, col_c = lane // 4, 2 * (lane % 4) + e
                            # transposed: memory row col_c (address from lane 8k+col_c), element row_r
                            mem[addr[8 * k + col_c, n] + 2 * row_r] = val
    return mem

def main():
    ws = {(wg, w, l, i): (wg, w, l, i) for wg in range(2) for w in range(4)
          for l in range(32) for i in range(32)}
    a, b = expert(ws), v3(ws)
    assert len(a) == 2 * BOX // 2 and a == b, "mismatch"
    # bank conflicts: per instruction, the 32 row addresses (16 B each) of a warp
    for warp in range(4):
        for n in range(4):
            banks = set()
            for lane in range(32):
                j, r = lane // 8, lane % 8
                q = 8 * (2 * n + (j >> 1)) + r
                a0 = q * 128 + (((2 * warp + (j & 1)) ^ r) << 4)
                banks.add((lane // 8, (a0 // 4) % 32))  # per 8-row phase
            # each 8-lane phase (one matrix) covers 8 distinct 16-byte bank groups
            for ph in range(4):
                assert len({bk // 4 for p, bk in banks if p == ph}) == 8
    print("v3 dS stmatrix layout == expert scalar stores; conflict-free per matrix")

if __name__ == "__main__":
    main()
