#!/usr/bin/env python3
"""A numpy model of the consumer side of tasks/mha_fwd/solutions/wgmma_tma.cu, at the level of per-thread
registers, checked against a float64 reference with the tasks' tolerances. No GPU needed.

It replays what each of the 128 threads of a consumer warpgroup holds, with the hardware layouts
the kernel relies on:
  - wgmma fp32 accumulator m64nN, warp w, lane l: d[i] is row 16w + l/4 + 8*((i>>1)&1),
    column 8*(i>>2) + 2*(l%4) + (i&1);
  - wgmma bf16 A from registers: register r of (w, l) holds row 16w + l/4 + 8*(r&1),
    columns 2*(l%4) + 8*(r>>1) + {0, 1} (low half first);
and the kernel's own choices: tile sizes, tile counts per warpgroup under the causal mask, the
mask limits, the order of the software pipeline (S(j+1) and the softmax of tile j+1 before O is
rescaled), the quad reductions, the P packing, the LSE formula. Q K^T and P V are taken as exact
products of the tiles; a separate check (smem_layout_check) models the shared-memory side: TMA
boxes written with the 128B swizzle, read back through the kernel's descriptor start addresses,
LBO and SBO under the canonical K-major and MN-major SW128 layouts (as CUTLASS's make_gmma_desc
describes them), and compared with the operand tiles each wgmma k-step should see.

Use it when changing the consumer's math; it fails loudly when, say, the P packing or the
rescaling order is wrong. Needs numpy:  python3 utils/emulate-mha-fwd.py
"""
import sys

import numpy as np

BM = 128  # query rows per CTA (two consumer warpgroups)
LN2 = np.float32(0.69314718055994531)
THREAD = np.arange(128)
WARP, LANE = THREAD // 32, THREAD % 32


def bf16(x):
    """Round to bfloat16 (nearest even), returned as float32."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32)


def acc_coords(n):
    """(row, col) of every accumulator register of an m64n{n} fp32 wgmma, shape [128, n/2]."""
    i = np.arange(n // 2)[None]
    row = 16 * WARP[:, None] + LANE[:, None] // 4 + 8 * ((i >> 1) & 1)
    col = 8 * (i >> 2) + 2 * (LANE[:, None] % 4) + (i & 1)
    return row, col


def quad_reduce(x, op):
    """Reduce [128, 2] over the 4 lanes of each quad (shfl xor 1, 2) and broadcast back."""
    return np.repeat(op(x.reshape(32, 4, 2), axis=1), 4, axis=0)


def attention(Q, K, V, causal):
    """The kernel's result for one (b, h): O [S, D] (NaN where never stored) and LSE [S]."""
    S, D = Q.shape
    BN = 128 if D <= 128 else 64
    scale_log2 = np.float32(1.4426950408889634 / np.sqrt(D))
    O = np.full((S, D), np.nan, np.float32)
    LSE = np.full(S, np.nan, np.float32)
    n_q = (S + BM - 1) // BM
    # TMA zero-fills rows past S.
    Qz = np.vstack([Q, np.zeros((n_q * BM - S, D), np.float32)])
    Kz = np.vstack([K, np.zeros((BN, D), np.float32)])
    Vz = np.vstack([V, np.zeros((BN, D), np.float32)])
    s_row, s_col = acc_coords(BN)
    o_row, o_col = acc_coords(D)
    s_half = (np.arange(BN // 2) >> 1) & 1
    o_half = (np.arange(D // 2) >> 1) & 1

    for q0 in range(0, S, BM):
        kv_end = min(S, q0 + BM) if causal else S
        n_tiles = (kv_end + BN - 1) // BN
        for c in range(2):
            q_lo = q0 + 64 * c
            row0 = q_lo + 16 * WARP + LANE // 4
            my_tiles = min(n_tiles, (min(S, q_lo + 64) + BN - 1) // BN) if causal else n_tiles
            state = {"m": np.full((128, 2), -np.inf, np.float32),
                     "l": np.zeros((128, 2), np.float32)}

            def qk(j):
                k0 = j * BN
                return (Qz[q_lo:q_lo + 64] @ Kz[k0:k0 + BN].T)[s_row, s_col].astype(np.float32)

            def softmax(s, k0):
                need_mask = k0 + BN > S or (causal and k0 + BN - 1 > q_lo)
                if need_mask:
                    lim = np.stack([np.minimum(S, row0 + 1) if causal else np.full(128, S),
                                    np.minimum(S, row0 + 9) if causal else np.full(128, S)], 1)
                    s = np.where(k0 + s_col < lim[:, s_half], s * scale_log2, -np.inf)
                else:
                    s = s * scale_log2
                s = s.astype(np.float32)
                mx = np.stack([s[:, s_half == 0].max(1), s[:, s_half == 1].max(1)], 1)
                mx = quad_reduce(mx, np.max)
                m_new = np.maximum(state["m"], mx)
                m_use = np.where(m_new == -np.inf, 0, m_new).astype(np.float32)
                corr = np.exp2(state["m"] - m_use)
                state["m"] = m_new
                p = np.exp2(s - m_use[:, s_half]).astype(np.float32)
                psum = np.stack([p[:, s_half == 0].sum(1), p[:, s_half == 1].sum(1)], 1)
                state["l"] = state["l"] * corr + psum
                # A fragments: frag[t, kk, r] = (p[8kk + 2r], p[8kk + 2r + 1]) as bf16.
                frag = bf16(p).reshape(128, BN // 16, 4, 2)
                return frag, corr

            def pv(o, frag, j):
                # Rebuild P [64, BN] from the A-register layout, then multiply by the V tile.
                P = np.zeros((64, BN), np.float32)
                for kk in range(BN // 16):
                    for r in range(4):
                        rows = 16 * WARP + LANE // 4 + 8 * (r & 1)
                        cols = 16 * kk + 2 * (LANE % 4) + 8 * (r >> 1)
                        P[rows, cols] = frag[:, kk, r, 0]
                        P[rows, cols + 1] = frag[:, kk, r, 1]
                k0 = j * BN
                return o + (P @ Vz[k0:k0 + BN])[o_row, o_col]

            o = np.zeros((128, D // 2), np.float32)
            frag, _ = softmax(qk(0), 0)
            for j in range(my_tiles - 1):
                s = qk(j + 1)                 # S(j+1) issued first ...
                o = pv(o, frag, j)            # ... then P(j) V(j)
                frag, corr = softmax(s, (j + 1) * BN)
                o = o * corr[:, o_half]       # after P(j) V(j) has completed
            o = pv(o, frag, my_tiles - 1)

            l_tot = quad_reduce(state["l"], np.sum)
            inv = np.where(l_tot > 0, 1 / np.maximum(l_tot, 1e-30), 0).astype(np.float32)
            rows = q_lo + o_row
            ok = rows < S
            O[rows[ok], o_col[ok]] = bf16(o * inv[:, o_half])[ok]
            for r in range(2):
                rr = row0 + 8 * r
                ok = (rr < S) & (LANE % 4 == 0)
                LSE[rr[ok]] = (state["m"][ok, r] + np.log2(l_tot[ok, r])) * LN2
    return O, LSE


def reference(Q, K, V, causal):
    S, D = Q.shape
    sc = (Q.astype(np.float64) @ K.T.astype(np.float64)) / np.sqrt(D)
    if causal:
        sc = np.where(np.arange(S)[None] <= np.arange(S)[:, None], sc, -np.inf)
    mx = sc.max(1, keepdims=True)
    e = np.exp(sc - mx)
    tot = e.sum(1, keepdims=True)
    return (e / tot) @ V, (mx + np.log(tot))[:, 0]


def swizzle128(addr):
    """The 128B swizzle of a shared-memory byte address: bits 4-6 ^= bits 7-9."""
    return addr ^ (((addr >> 7) & 7) << 4)


def smem_layout_check(D):
    """TMA boxes in, wgmma operands out, with the kernel's addresses. True if all match."""
    BN = 128 if D <= 128 else 64
    q_bytes, kv_bytes = BM * D * 2, BN * D * 2
    sQ, sK = 0, q_bytes                       # offsets from the 1024-aligned base
    sV = sK + kv_bytes                        # stage 0
    smem = np.zeros((q_bytes + 2 * kv_bytes) // 2)  # one value per 2-byte slot
    rng = np.random.default_rng(D)
    Qt, Kt, Vt = (rng.standard_normal((rows, D)) for rows in (BM, BN, BN))

    def tma_tile(dst, tile):                  # tma_load_tile: D/64 boxes of rows x 64
        rows = tile.shape[0]
        r, c = np.meshgrid(np.arange(rows), np.arange(64), indexing="ij")
        for cb in range(D // 64):
            smem[swizzle128(dst + cb * rows * 128 + r * 128 + c * 2) // 2] = tile[:, 64 * cb:64 * cb + 64]

    for dst, tile in ((sQ, Qt), (sK, Kt), (sV, Vt)):
        tma_tile(dst, tile)

    def kmajor(start, rows, sbo=1024):        # element (mn, k) of a K-major SW128 operand
        mn, k = np.meshgrid(np.arange(rows), np.arange(16), indexing="ij")
        return smem[swizzle128(start + (mn % 8) * 128 + (mn // 8) * sbo + k * 2) // 2]

    def mnmajor(start, n, lbo, sbo=1024):     # element (k, n) of an MN-major SW128 operand
        k, nn = np.meshgrid(np.arange(16), np.arange(n), indexing="ij")
        return smem[swizzle128(start + (nn % 64) * 2 + (nn // 64) * lbo + (k % 8) * 128 + (k // 8) * sbo) // 2]

    ok = True
    for kk in range(D // 16):                 # qk_wgmma
        for c in range(2):                    # consumer warpgroup: sQ + c * 64 * 128
            a = kmajor(sQ + c * (64 * 128) + (kk // 4) * (BM * 128) + (kk % 4) * 32, 64)
            ok &= np.array_equal(a, Qt[64 * c:64 * c + 64, 16 * kk:16 * kk + 16])
        b = kmajor(sK + (kk // 4) * (BN * 128) + (kk % 4) * 32, BN)
        ok &= np.array_equal(b, Kt[:, 16 * kk:16 * kk + 16])
    for kk in range(BN // 16):                # pv_wgmma
        b = mnmajor(sV + kk * 16 * 128, D, lbo=BN * 128)
        ok &= np.array_equal(b, Vt[16 * kk:16 * kk + 16, :])
    return bool(ok)


def main():
    rng = np.random.default_rng(0)
    failed = 0
    for D in (64, 128, 256):
        ok = smem_layout_check(D)
        failed += not ok
        print(f"shared-memory operands D={D}: {'ok' if ok else 'WRONG'}")
    for S, D, causal in [(300, 64, 0), (300, 64, 1), (257, 128, 0), (383, 128, 1),
                         (200, 256, 0), (330, 256, 1), (512, 128, 1)]:
        Q, K, V = (bf16(rng.standard_normal((S, D))) for _ in range(3))
        O, LSE = attention(Q, K, V, causal)
        O_ref, LSE_ref = reference(Q, K, V, causal)
        # The tasks' tolerances: bf16 atol 0.01 rtol 0.02, f32 atol 1e-3 rtol 5e-4 (NaN fails).
        ok_o = bool(np.all(np.abs(O - O_ref) <= 0.01 + 0.02 * np.abs(O_ref)))
        ok_l = bool(np.all(np.abs(LSE - LSE_ref) <= 1e-3 + 5e-4 * np.abs(LSE_ref)))
        failed += not (ok_o and ok_l)
        print(f"S={S:4d} D={D:3d} causal={causal}: max|dO| {np.nanmax(np.abs(O - O_ref)):.1e}, "
              f"max|dLSE| {np.nanmax(np.abs(LSE - LSE_ref)):.1e}: {'ok' if ok_o and ok_l else 'WRONG'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
