#!/usr/bin/env python3
"""check_t216.py - CPU replay of the bf16 expert's T216 configuration (issue 7, round 7: v16).

The kernel: tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu (v16 with its selection in 32-bit
integers; v16_transposed_216.cu itself is retired to git history, bench/h200/README.md).

Mirrors the kernel's arithmetic (same names) and checks it against independent models of the
hardware, for what cannot be run here:

  epilogue    per thread and register: m64n216 fragment -> bf16x2 pack -> stmatrix.x4.trans at the
              kernel's lane addresses -> 128B-swizzled staging rows -> the 112x64 TMA store box of
              each of the two passes -> C[m][n]. Every C element of a warpgroup's 216x64 block is
              written, each write carries the accumulator of exactly that (m, n), only rows
              [104, 112) are written twice (same register), every staging byte of a pass is written
              once (the TMA store reads no stale bytes), and each 8x8 matrix store is bank-conflict
              free. Planted errors (swizzle XOR dropped, stmatrix without .trans, second pass at row
              112, two registers swapped) must each be caught.
  descriptors the 216-row operand's (and the 64-row operand's) wgmma descriptor words, decoded
              against docs/arch/sm_90a.md (LBO 1, SBO 1024 B = 64, 128B swizzle, base offset 0,
              +2 per k16 step), and the address the hardware reads for operand element (row, k)
              equal to where the TMA box put it, in every stage; the shared-memory footprint.
  schedule    every T216 tile dealt exactly once, loads within one tile, and every in-bounds C
              element inside a stored box, on the 15 workloads and a few hundred random shapes.
  rule        t216_selected (the same integer arithmetic; the expert's stream-K cost model is
              ../../gemm_model.py's) picks T216 on exactly n7168 M3000 and n14336 M3000 among the
              15 workloads; prints the model's table.
  constants   the #defines this model copies are read back from the kernel and must match.

Run: python3 bench/h200/issue7/round7/gemm_bf16/check_t216.py  (about a second); exit 1 on failure.
"""
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from gemm_model import (BF16_TASKS, ROOT, SMS, cdiv, expert_makespan20,  # noqa: E402
                        stream_k_tiles, task_workloads, tile_coords)

KERNEL = os.path.join(ROOT, "tasks/gemm_bf16_nt/solutions/wgmma_tma_fast.cu")

# The kernel's constants (check_constants() holds them against KERNEL's #defines).
BM, BN, BK, STAGES, GROUP_M = 128, 256, 64, 4, 16
STAGE_BYTES = (BM * BK + BN * BK) * 2          # the expert's 48 KiB slot
STG_WG_BYTES = 2 * 64 * 64 * 2                 # the expert's 16 KiB staging per consumer
SMEM_PLAN = 4 * (128 * 64 + 256 * 64) * 2 + 2 * 64 * 128 * 2 + 1024  # the plan's smem=
TN, TM = 128, 216
T216_B_BYTES, T216_A_BYTES = TN * BK * 2, TM * BK * 2
PASS_ROWS, PASS2_ROW0 = 112, 104
T216_OVH, SK_FIXUP20 = 4, 3
SK_NUM, SK_DEN, SK_REM_NUM, SK_REM_DEN = 17, 20, 1, 4


# ---------------------------------------------------------------------------------------------
# Epilogue


def fragment(w, l, i):
    """(row, col) of accumulator i of lane l in warp w: wgmma's m64nN f32 layout (sm_90a.md).
    For T216 the row is n (within the warpgroup's 64) and the column m (within the tile's 216)."""
    return 16 * w + l // 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (l % 4) + (i & 1)


def lane_off(w, l, mutation=None):
    """The kernel's lane_off: this lane's stmatrix row address in a pass, staging-relative."""
    sj, sr = l // 8, l % 8
    chunk = 2 * w + (sj & 1)
    if mutation == "no_xor":
        return (8 * (sj >> 1) + sr) * 128 + (chunk << 4)
    return (8 * (sj >> 1) + sr) * 128 + ((chunk ^ sr) << 4)


def x4_registers(p, q, mutation=None):
    """Accumulator pairs (i, i + 1) packed into stmatrix registers r0..r3 for pass p, step q."""
    b = (14 if mutation == "pass2_at_112" else 13) * p + 2 * q
    regs = [4 * b, 4 * b + 2, 4 * b + 4, 4 * b + 6]
    if mutation == "swap_regs":
        regs[1], regs[2] = regs[2], regs[1]
    return regs


def pass_row0(p, mutation=None):
    return (PASS_ROWS if mutation == "pass2_at_112" else PASS2_ROW0) * p


def stmatrix_writes(addr_of_lane, regs_of_lane, trans=True):
    """Model of stmatrix.sync.aligned.m8n8.x4[.trans].b16 (PTX ISA): register j of lane l holds
    element (row l/4, columns 2*(l%4), +1) of matrix j; lanes 8j..8j+7 give the addresses of the
    8 stored rows of matrix j. Without .trans stored row r is matrix row r; with .trans it is
    matrix column r. Yields (byte address, lane, register j, half e) per stored b16."""
    for l in range(32):
        for j in range(4):
            for e in range(2):
                fr, fc = l // 4, 2 * (l % 4) + e
                if trans:
                    yield addr_of_lane[8 * j + fc] + 2 * fr, l, j, e
                else:
                    yield addr_of_lane[8 * j + fr] + 2 * fc, l, j, e


def tma_box_element(off):
    """Inverse of the TMA 128B swizzle for a 1024-byte aligned box of 128-byte rows: the byte at
    staging offset off holds box element (row, column)."""
    row = off // 128
    chunk = ((off >> 4) & 7) ^ (row & 7)
    return row, (chunk * 16 + (off & 15)) // 2


def check_epilogue(mutation=None):
    """Replays one consumer warpgroup's epilogue; returns a list of errors."""
    errs = []
    written = {}  # (m, n) of the warpgroup's 216x64 block -> set of source (w, l, i)
    for p in range(2):
        staging = {}
        for q in range(PASS_ROWS // 16):
            regs = x4_registers(p, q, mutation)
            for w in range(4):
                addrs = [lane_off(w, l, mutation) + q * 2048 for l in range(32)]
                # Bank conflicts: per matrix, 8 rows x 16 bytes must hit 32 distinct banks.
                for j in range(4):
                    banks = set()
                    for r in range(8):
                        a = addrs[8 * j + r]
                        banks |= {(a // 4 + k) % 32 for k in range(4)}
                    if len(banks) != 32 and mutation is None:
                        errs.append(f"pass {p} q {q} warp {w} matrix {j}: bank conflicts")
                for addr, l, j, e in stmatrix_writes(addrs, None, trans=mutation != "no_trans"):
                    i = regs[j] + e  # pack_bf16x2(d[i], d[i+1]): d[i] is the low half
                    if not 0 <= addr < PASS_ROWS * 128:
                        errs.append(f"pass {p}: stmatrix address {addr} outside the pass")
                        continue
                    if addr in staging:
                        errs.append(f"pass {p}: staging byte {addr} written twice")
                    staging[addr] = (w, l, i)
        if len(staging) != PASS_ROWS * 64:
            errs.append(f"pass {p}: {len(staging)} of {PASS_ROWS * 64} staging elements written")
        # The TMA store of this pass: box element (row, col) goes to C row pass_row0 + row.
        for off, (w, l, i) in staging.items():
            row, col = tma_box_element(off)
            m, n = pass_row0(p, mutation) + row, col
            fn, fm = fragment(w, l, i)
            if (m, n) != (fm, fn):
                errs.append(f"pass {p}: C[{m}][{n}] gets d[{i}] of warp {w} lane {l}, "
                            f"which is C[{fm}][{fn}]")
                if len(errs) > 20:
                    return errs
            if m < TM:  # rows >= 216 belong to the next tile: a store there is a bug too
                written.setdefault((m, n), set()).add((w, l, i))
            else:
                errs.append(f"pass {p}: store reaches row {m} of the tile (next tile's rows)")
    for m in range(TM):
        for n in range(64):
            src = written.get((m, n))
            if not src:
                errs.append(f"C[{m}][{n}] of the block never written")
            elif len(src) > 1:
                errs.append(f"C[{m}][{n}] written from different registers {src}")
    twice = sum(1 for m in range(PASS2_ROW0, PASS_ROWS) for n in range(64))
    if not errs and mutation is None:
        print(f"epilogue: 216x64 block per warpgroup written, each element from its own register; "
              f"{twice} elements (rows 104..111) stored twice with the same value; "
              f"staging bytes once per pass; stmatrix conflict-free")
    return errs


# ---------------------------------------------------------------------------------------------
# Descriptors and shared memory


def desc_lo(addr):
    return (addr >> 4) | (1 << 16)


DESC_HI = 0x40000040


def swz128(addr):
    """128B swizzle of a shared-memory byte address (sm_90a.md): bits [4:6] ^= bits [7:9]."""
    return addr ^ (((addr >> 7) & 7) << 4)


def decode(lo, hi):
    d = lo | (hi << 32)
    return dict(start=(d & 0x3FFF) << 4, lbo=(d >> 16) & 0x3FFF, sbo=((d >> 32) & 0x3FFF) << 4,
                base_offset=(d >> 49) & 7, swizzle=(d >> 62) & 3)


def wgmma_operand_address(desc, row, kl):
    """Where a K-major, 128B-swizzled operand element (row, k within the k16 step) is read: core
    matrices of 8 rows x 16 B, 8-row groups SBO apart, rows 128 B apart inside the swizzle atom,
    the swizzle applied to the resulting address."""
    a = desc["start"] + (row // 8) * desc["sbo"] + (row % 8) * 128 + 2 * kl
    return swz128(a)


def check_descriptors(base_candidates):
    errs = []
    doc = open(os.path.join(ROOT, "docs/arch/sm_90a.md")).read()
    for needle in ("SBO = distance between consecutive 8-row groups = 8 x 128 B = 1024 B (encoded 64)",
                   "LBO is not used for swizzled K-major operands (set it to 1)",
                   "(encoded +2)", "62-63 | swizzle: 0 = none (interleaved), 1 = 128B"):
        if needle not in doc:
            errs.append(f"sm_90a.md no longer says: {needle!r}")
    ref = dict(lbo=1, sbo=1024, base_offset=0, swizzle=1)
    for base in base_candidates:
        # Layout (kernel): stage s at base + s * STAGE_BYTES: B box (wgmma A, 128 rows) at +0,
        # A box (wgmma B, 216 rows) at +16 KiB; staging at base + 4 * STAGE_BYTES + cw * 16 KiB.
        if T216_B_BYTES + T216_A_BYTES > STAGE_BYTES or PASS_ROWS * 128 > STG_WG_BYTES:
            errs.append("T216 stage or staging pass larger than the expert's slot")
        for s in range(STAGES):
            sB_box = base + s * STAGE_BYTES            # 128 rows of B: wgmma A
            sA_box = sB_box + T216_B_BYTES             # 216 rows of A: wgmma B
            for name, tile, rows, op_off in (("216-row (A box, wgmma B)", sA_box, TM, 0),
                                             ("64-row (B box, wgmma A), cw 0", sB_box, 64, 0),
                                             ("64-row (B box, wgmma A), cw 1", sB_box, 64, 64)):
                start = tile + op_off * 128
                if start % 1024:
                    errs.append(f"{name}: stage {s} operand at {start:#x} not 1024-byte aligned")
                for k in range(BK // 16):
                    lo = desc_lo(start) + 2 * k
                    dd = decode(lo, DESC_HI)
                    for f, v in ref.items():
                        if dd[f] != v:
                            errs.append(f"{name}: {f} = {dd[f]}, sm_90a.md says {v}")
                    if lo >> 14 != (1 << 16) >> 14:  # +2k must not carry out of the 14-bit field
                        errs.append(f"{name}: start field overflows at {start:#x} + k {k}")
                    for row in range(rows):
                        for kl in range(16):
                            hw = wgmma_operand_address(dd, row, kl)
                            # TMA box: operand row (op_off + row) of the box, element 16k + kl,
                            # at tile + swizzle(row * 128 + 2 * element) (1024-aligned tile).
                            tma = tile + swz128((op_off + row) * 128 + 2 * (16 * k + kl))
                            if hw != tma:
                                errs.append(f"{name}: stage {s} k {k} row {row} kl {kl}: wgmma reads "
                                            f"{hw:#x}, TMA wrote {tma:#x}")
                                return errs
                if tile + rows * 128 > base + (s + 1) * STAGE_BYTES and rows == TM:
                    errs.append(f"stage {s}: A box overruns the slot")
    # Footprint: raw dynamic base r, base = (r + 1023) & ~1023; the last byte used must lie within
    # r + SMEM_PLAN for every r (raw is only 16-byte aligned in the worst case).
    used = STAGES * STAGE_BYTES + 2 * STG_WG_BYTES
    if 1023 + used > SMEM_PLAN:
        errs.append("footprint + alignment slack exceeds the plan's smem")
    if SMEM_PLAN + 64 > 227 * 1024:
        errs.append("plan smem + 64 B static barriers above 227 KiB")
    # The alternative the header rules out: separate 43 KiB stages + whole-tile staging.
    alt = STAGES * (T216_B_BYTES + T216_A_BYTES) + 2 * TM * 128 + 1024
    if not errs:
        print(f"descriptors: 216-row and 64-row operands, 4 stages x 4 k-steps: LBO 1, SBO 1024 B, "
              f"128B swizzle, base offset 0, +32 B per k16; wgmma addresses = TMA placement")
        print(f"shared memory: plan {SMEM_PLAN} B + 64 B static = {SMEM_PLAN + 64} <= {227 * 1024}; "
              f"T216 uses {T216_B_BYTES + T216_A_BYTES} of each {STAGE_BYTES} B slot, "
              f"{PASS_ROWS * 128} of each {STG_WG_BYTES} B staging buffer "
              f"(whole-tile staging would need {alt} B + 64 static > {227 * 1024})")
    return errs


# ---------------------------------------------------------------------------------------------
# Schedule and rule


def t216_selected(M, N, K, nsm=SMS, verbose=False):
    """The kernel's t216_selected; G = the plan's grid."""
    k_tiles = cdiv(K, BK)
    tiles = cdiv(M, BM) * cdiv(N, BN)
    G = min(SMS, tiles)
    if k_tiles == 0 or tiles == 0:
        return False, None, None
    sk_tiles = stream_k_tiles(tiles, k_tiles, G, nsm, (SK_NUM, SK_DEN, SK_REM_NUM, SK_REM_DEN))
    expert20 = expert_makespan20(tiles, sk_tiles, G, SK_FIXUP20)
    tiles216 = cdiv(N, TN) * cdiv(M, TM)
    rounds216 = cdiv(tiles216, G)
    t216_x = 20 * rounds216 * (TM + T216_OVH)
    return t216_x < 256 * expert20, expert20 / 20, t216_x / (20 * 256)


def check_schedule(M, N, K):
    """T216's tiles over G CTAs (as produce_t216 / consume_t216 walk them)."""
    errs = []
    tiles_n, tiles_m = cdiv(N, TN), cdiv(M, TM)
    tiles = tiles_n * tiles_m
    G = min(SMS, cdiv(M, BM) * cdiv(N, BN))
    seen = {}
    loads = []
    for c in range(G):
        n_units = 0
        for t in range(c, tiles, G):
            # The expert's grouped order with the N-tiles as its rows (GROUP_M N-tiles at a time).
            nt, mt = tile_coords(t, tiles_n, tiles_m, GROUP_M)
            if not (0 <= nt < tiles_n and 0 <= mt < tiles_m):
                errs.append(f"CTA {c}: tile {t} -> ({nt}, {mt}) out of range")
            seen[(nt, mt)] = seen.get((nt, mt), 0) + 1
            n_units += 1
        loads.append(n_units)
    for nt in range(tiles_n):
        for mt in range(tiles_m):
            if seen.get((nt, mt), 0) != 1:
                errs.append(f"tile ({nt}, {mt}) dealt {seen.get((nt, mt), 0)} times")
    if loads and max(loads) - min(loads) > 1:
        errs.append(f"loads {min(loads)}..{max(loads)}")
    # Stores: per tile, warpgroup cw stores columns [n0 + 64cw, +64) when n0 + 64cw < N, rows
    # [m0, m0 + 112) and, when m0 + 104 < M, [m0 + 104, m0 + 216); all in-bounds C rows and
    # columns of the tile must be inside a stored box (the map clips the rest).
    for mt in range(tiles_m):
        m0 = mt * TM
        rows = set()
        for p in range(2):
            r0 = m0 + PASS2_ROW0 * p
            if r0 < M:
                rows |= set(range(r0, min(r0 + PASS_ROWS, M)))
        if rows != set(range(m0, min(m0 + TM, M))):
            errs.append(f"M-tile {mt}: stored rows miss some of [{m0}, {min(m0 + TM, M)})")
    for nt in range(tiles_n):
        cols = set()
        for cw in range(2):
            c0 = nt * TN + 64 * cw
            if c0 < N:
                cols |= set(range(c0, min(c0 + 64, N)))
        if cols != set(range(nt * TN, min(nt * TN + TN, N))):
            errs.append(f"N-tile {nt}: stored columns incomplete")
    return errs, max(loads) if loads else 0


def check_constants():
    """The #defines of KERNEL that this model copies, read back: a change there must reach here."""
    src = open(KERNEL).read()
    want = {"BM": BM, "BN": BN, "BK": BK, "STAGES": STAGES, "GROUP_M": GROUP_M, "TN": TN, "TM": TM,
            "T216_PASS_ROWS": PASS_ROWS, "T216_PASS2_ROW0": PASS2_ROW0, "T216_OVH": T216_OVH,
            "SK_FIXUP20": SK_FIXUP20, "SK_NUM": SK_NUM, "SK_DEN": SK_DEN, "SK_REM_NUM": SK_REM_NUM,
            "SK_REM_DEN": SK_REM_DEN}
    errs = []
    for name, value in want.items():
        m = re.search(rf"^#define {name} (\d+)\b", src, re.M)
        if not m or int(m.group(1)) != value:
            errs.append(f"{name}: kernel has {m.group(1) if m else 'no #define'}, model {value}")
    return errs


def main():
    errs = check_constants()
    errs += check_epilogue()
    for mutation in ("no_xor", "no_trans", "pass2_at_112", "swap_regs"):
        caught = check_epilogue(mutation)
        if not caught:
            errs.append(f"planted error {mutation!r} not caught")
        else:
            print(f"planted error {mutation:13} caught: {caught[0]}")
    # Dynamic shared memory base: the worst cases of (raw + 1023) & ~1023 for a raw base at
    # 64 (after the static barriers), 1024 and 65536 - 16.
    errs += check_descriptors([(r + 1023) & ~1023 for r in (64, 1024, 65520)])

    print(f"\n{'workload':38} {'tiles':>5} {'expert':>7} {'T216 tiles':>10} {'rounds':>6} "
          f"{'T216':>7}  pick")
    picked = []
    for task, name, M, N, K in task_workloads(BF16_TASKS):
        sel, e, t = t216_selected(M, N, K)
        tiles = cdiv(M, BM) * cdiv(N, BN)
        t216 = cdiv(N, TN) * cdiv(M, TM)
        G = min(SMS, tiles)
        print(f"{task[10:] + ' ' + name:38} {tiles:5} {e:7.3f} {t216:10} {t216 / G:6.2f} {t:7.3f}  "
              f"{'T216' if sel else 'expert'}")
        if sel:
            picked.append((task, M))
        e_s, _ = check_schedule(M, N, K)
        errs += [f"{task} {name}: {x}" for x in e_s]
    want = [("gemm_bf16_n7168_k5120", 3000), ("gemm_bf16_n14336_k4096", 3000)]
    if sorted(picked) != sorted(want):
        errs.append(f"rule picks T216 on {picked}, expected {want}")
    # Break-even overheads on the two picks: the largest T216_OVH that still picks T216.
    for task, M in want:
        N, K = (7168, 5120) if "7168" in task else (14336, 4096)
        _, e, _ = t216_selected(M, N, K)
        r = cdiv(cdiv(N, TN) * cdiv(M, TM), SMS)
        print(f"{task} M{M}: T216 picked while 216 + overhead < {256 * e / r:.1f} "
              f"(T216_OVH < {256 * e / r - TM:.1f}/256 of a tile)")

    rng = random.Random(7)
    n_sel = n_shapes = 0
    for _ in range(300):
        M = rng.choice([rng.randint(1, 600), rng.randint(1, 6000), rng.randint(1, 20000)])
        N = 8 * rng.randint(1, 3000)
        K = 8 * rng.randint(1, 1200)
        e_s, _ = check_schedule(M, N, K)
        errs += [f"random M{M} N{N} K{K}: {x}" for x in e_s]
        n_sel += t216_selected(M, N, K)[0]
        n_shapes += 1
    print(f"\nschedule: every T216 tile once, loads within one tile, stored boxes cover C, on the "
          f"15 workloads and {n_shapes} random shapes ({n_sel} of them would run T216)")
    if errs:
        print("\nFAILED:")
        for x in errs[:40]:
            print("  " + x)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
