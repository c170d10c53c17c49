#!/usr/bin/env python3
"""Numpy model of round 4's softmax changes (v8 folded scale, v9 lazy rescaling), per thread.

It replays consume_item of v8_fold_scale_desc.cu and v9_lazy_rescale.cu at the level of the 128
threads of a consumer warpgroup, with the register layouts and helpers of the expert's model
(tasks/mha_fwd/emulate_wgmma_tma.py, imported, not changed), and checks O and LSE against a float64
reference with the tasks' tolerances. What it models of the new code:
  - v8: row max on raw scores, m = max(m, round(mx * c)), p = 2^fma(s, c, -m_use) (one rounding,
    as FFMA), masked keys -inf, the m = -inf guard;
  - v9: the reference max moves only past LAZY_TH = 8 (log2 units), corr = 1 otherwise; the
    fast path never rescales O; the first tile on which any row of the warpgroup moves (OR over
    the 128 threads, bar.red) rescales O once and switches the rest of the item to the slow path
    (O *= corr every tile). It also records the largest p and the number of slow-path switches.
Data: N(0,1) (the tasks' init) and adversarial rows whose scores grow along the keys (so v9's
reference max moves many times, the slow path runs, and p reaches its 2^8 bound).

  python3 bench/h200/issue7/round4/mha_fwd/softmax_model.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../../tasks/mha_fwd"))
import emulate_wgmma_tma as em  # noqa: E402  (acc_coords, quad_reduce, bf16, reference)

LAZY_TH = np.float32(8.0)


def f32(x):
    return np.asarray(x, dtype=np.float32)


def attention(Q, K, V, causal, variant, stats):
    """The kernel's result for one (b, h), variant 'v8' or 'v9': O [S, D] and LSE [S]."""
    S, D = Q.shape
    BM, BN = em.BM, (128 if D <= 128 else 64)
    c = f32(1.4426950408889634 / np.sqrt(D))
    O = np.full((S, D), np.nan, np.float32)
    LSE = np.full(S, np.nan, np.float32)
    n_q = (S + BM - 1) // BM
    Qz = np.vstack([Q, np.zeros((n_q * BM - S, D), np.float32)])
    Kz = np.vstack([K, np.zeros((BN, D), np.float32)])
    Vz = np.vstack([V, np.zeros((BN, D), np.float32)])
    s_row, s_col = em.acc_coords(BN)
    o_row, o_col = em.acc_coords(D)
    s_half = (np.arange(BN // 2) >> 1) & 1
    o_half = (np.arange(D // 2) >> 1) & 1
    row0 = None

    for q0 in range(0, S, BM):
        kv_end = min(S, q0 + BM) if causal else S
        n_tiles = (kv_end + BN - 1) // BN
        for wg in range(2):
            q_lo = q0 + 64 * wg
            row0 = q_lo + 16 * em.WARP + em.LANE // 4
            my_tiles = min(n_tiles, (min(S, q_lo + 64) + BN - 1) // BN) if causal else n_tiles
            m = np.full((128, 2), -np.inf, np.float32)
            lsum = np.zeros((128, 2), np.float32)

            def softmax(j):
                nonlocal m, lsum
                k0 = j * BN
                s = (Qz[q_lo:q_lo + 64] @ Kz[k0:k0 + BN].T)[s_row, s_col].astype(np.float32)
                if k0 + BN > S or (causal and k0 + BN - 1 > q_lo):
                    lim = np.stack([np.minimum(S, row0 + 1) if causal else np.full(128, S),
                                    np.minimum(S, row0 + 9) if causal else np.full(128, S)], 1)
                    s = np.where(k0 + s_col < lim[:, s_half], s, -np.inf).astype(np.float32)
                mx = np.stack([s[:, s_half == 0].max(1), s[:, s_half == 1].max(1)], 1)
                mx = em.quad_reduce(mx, np.max)
                mxs = f32(mx * c)
                if variant == "v8":
                    grow = np.ones((128, 2), bool)
                    m_new = np.maximum(m, mxs)
                else:
                    grow = mxs > f32(m + LAZY_TH)
                    m_new = np.where(grow, mxs, m)
                m_use = np.where(m_new == -np.inf, 0, m_new).astype(np.float32)
                with np.errstate(invalid="ignore"):
                    corr = np.where(grow, np.exp2(f32(m - m_use)), 1).astype(np.float32)
                m = m_new
                # fma(s, c, -m_use): exact product and sum, one rounding to fp32.
                arg = f32(s.astype(np.float64) * np.float64(c) - m_use[:, s_half].astype(np.float64))
                p = np.exp2(arg).astype(np.float32)
                stats["p_max"] = max(stats["p_max"], float(np.max(p)))
                psum = np.stack([p[:, s_half == 0].sum(1), p[:, s_half == 1].sum(1)], 1)
                lsum = f32(lsum * corr + psum)
                return em.bf16(p).reshape(128, BN // 16, 4, 2), corr, bool(np.any(grow))

            def pv(o, frag, j):
                P = np.zeros((64, BN), np.float32)
                for kk in range(BN // 16):
                    for r in range(4):
                        rows = 16 * em.WARP + em.LANE // 4 + 8 * (r & 1)
                        cols = 16 * kk + 2 * (em.LANE % 4) + 8 * (r >> 1)
                        P[rows, cols] = frag[:, kk, r, 0]
                        P[rows, cols + 1] = frag[:, kk, r, 1]
                k0 = j * BN
                return o + (P @ Vz[k0:k0 + BN])[o_row, o_col]

            o = np.zeros((128, D // 2), np.float32)  # P(0) V(0) with scale-d = 0: o = 0 + ...
            frag, _, _ = softmax(0)
            slow = variant == "v8"  # v8 rescales every tile, like v9's slow path
            for j in range(my_tiles - 1):
                o = pv(o, frag, j)
                frag, corr, moved_any = softmax(j + 1)  # moved_any: OR over the warpgroup
                if slow:
                    o = o * corr[:, o_half]
                elif moved_any:  # v9: leave the fast path, apply this tile's move
                    stats["switches"] += 1
                    o = o * corr[:, o_half]
                    slow = True
            o = pv(o, frag, my_tiles - 1)

            l_tot = em.quad_reduce(lsum, np.sum)
            inv = np.where(l_tot > 0, 1 / np.maximum(l_tot, 1e-30), 0).astype(np.float32)
            rows = q_lo + o_row
            ok = rows < S
            O[rows[ok], o_col[ok]] = em.bf16(o * inv[:, o_half])[ok]
            for r in range(2):
                rr = row0 + 8 * r
                ok = (rr < S) & (em.LANE % 4 == 0)
                LSE[rr[ok]] = (m[ok, r] + np.log2(l_tot[ok, r])) * em.LN2
    return O, LSE


def main():
    rng = np.random.default_rng(1)
    failed = 0
    cases = [(300, 64, 0), (300, 64, 1), (257, 128, 0), (383, 128, 1), (640, 128, 0),
             (200, 256, 0), (330, 256, 1), (512, 128, 1)]
    for data in ("normal", "growing"):
        for S, D, causal in cases:
            Q, K, V = (em.bf16(rng.standard_normal((S, D))) for _ in range(3))
            if data == "growing":
                # Scores grow along the keys by ~60 log2 units over the sequence (a direction u
                # shared by every query, with a growing weight in the keys): v9's reference max
                # must move many times per row, so its slow path runs and p nears its 2^8 bound.
                u = rng.standard_normal(D)
                Q = em.bf16(Q + u)
                K = em.bf16(K + np.linspace(0, 60 / (1.4427 * np.sqrt(D)), S)[:, None] * u[None])
            O_ref, LSE_ref = em.reference(Q, K, V, causal)
            for variant in ("v8", "v9"):
                stats = {"p_max": 0.0, "switches": 0}
                O, LSE = attention(Q, K, V, causal, variant, stats)
                ok_o = bool(np.all(np.abs(O - O_ref) <= 0.01 + 0.02 * np.abs(O_ref)))
                ok_l = bool(np.all(np.abs(LSE - LSE_ref) <= 1e-3 + 5e-4 * np.abs(LSE_ref)))
                ok_p = stats["p_max"] <= 2.0 ** 8 * (1 + 1e-6)
                failed += not (ok_o and ok_l and ok_p)
                print(f"{data:7s} {variant} S={S:4d} D={D:3d} causal={causal}: "
                      f"max|dO| {np.nanmax(np.abs(O - O_ref)):.1e}, "
                      f"max|dLSE| {np.nanmax(np.abs(LSE - LSE_ref)):.1e}, max p {stats['p_max']:.3g}, "
                      f"slow-path switches {stats['switches']}: "
                      f"{'ok' if ok_o and ok_l and ok_p else 'WRONG'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
