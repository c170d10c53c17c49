#!/usr/bin/env python3
"""check_half_tiles.py - CPU replay of v15_half_tiles.cu's work schedule (issue 7, round 6).

Mirrors the kernel's make_work / half_pairs / next_unit / unit_coords (same arithmetic, same names;
the expert's stream-K split, next_unit's loop and tile_coords are ../../gemm_model.py's) and
checks, for the 15 workloads of the three gemm_bf16_n*_k* tasks and a few hundred random (M, N, K):

  coverage    every 64-row half of every output tile that holds rows < M is computed exactly once
              over [0, kTiles): by units of full tiles (both consumer warpgroups), stream-K pieces
              (both), or half tiles (warpgroup 0 only); a half tile is only ever dealt where
              warpgroup 1's 64 rows are all >= M (M - m0 <= 64), so its skip loses nothing;
  ring        a half tile is a whole unit (0, kTiles): warpgroup 1's wait/arrive loop runs as many
              stages as the producer loads and warpgroup 0 consumes, so the three stay in step;
  expert      a shape the rule leaves in the expert's schedule gets exactly the units of the
              round-4/5 schedule (schedule_model.py's make_work/units), whose stream-K protocol
              that model checks; all shapes with M % 128 == 0 or > 64 are among them;
  rule        the kernel's closed-form half-tile makespan equals the brute-force max of the
              per-CTA loads, and half mode is chosen only when it models shorter than the expert.

Then prints per-CTA loads and makespans for the three M3000 workloads and predicted ratios at
half-tile costs 0.5 and 0.65. A mutation test (half tile dealt twice, pair stride off by one,
half tile on a row with rows for warpgroup 1) checks that the checks catch broken schedules.
Run: python3 check_half_tiles.py  (a few seconds); exit status 1 if any check fails.
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "round4", "gemm_bf16"))
from gemm_model import (BF16_TASKS, SMS, cdiv, covers_once, expert_makespan20,  # noqa: E402
                        stream_k_ranges, stream_k_tiles, task_workloads, tile_coords, units)
import schedule_model as r4  # noqa: E402  (the expert's stream-K schedule and its checks)

BM, BN, BK, GROUP_M = r4.BM, r4.BN, r4.BK, r4.GROUP_M
SK_CUT = (r4.SK_NUM, r4.SK_DEN, r4.SK_REM_NUM, r4.SK_REM_DEN)
HT_ON, HT_FIXUP20 = True, 3

# Mutations for the self-test: None, "twice" (CTAs G-1 and G-2 both start at pair 0: a half tile
# dealt twice, the last pair never), "stride" (after wrapping, pairs advance by 2G+1),
# "second" (a pair's second half skipped: hi, hi+2), "wrong_row" (half mode at 64 < M % 128 too).
MUTATION = None


def half_pairs(q, P, G):
    first = G - 1 - q
    return (P - first + G - 1) // G if P > first else 0


def make_work(M, tiles_m, tiles_n, k_tiles, G, c, nsmid=SMS):
    """The kernel's make_work: the expert's fields plus rows_m, hi, h_end."""
    tiles = tiles_m * tiles_n
    w = dict(t=c, dp_end=tiles, kTiles=k_tiles, sk_i=0, sk_e=0, per=0, extra=0,
             rows_m=tiles_m, hi=0, h_end=0, half=False)
    sk_tiles = stream_k_tiles(tiles, k_tiles, G, nsmid, SK_CUT)  # 0: the expert keeps tiles whole
    mr = M % BM
    lim = BM if MUTATION == "wrong_row" else BM // 2
    if HT_ON and 0 < mr <= lim and tiles_m >= 2:
        F, P = (tiles_m - 1) * tiles_n, (tiles_n + 1) // 2
        Lf, fr = F // G, F % G
        half20 = 20 * Lf + 20 * half_pairs(G - 1, P, G)
        if fr > 0:
            half20 = max(half20, 20 * (Lf + 1) + 20 * half_pairs(fr - 1, P, G))
        exp20 = expert_makespan20(tiles, sk_tiles, G, HT_FIXUP20)
        w["half20"], w["exp20"] = half20, exp20
        if half20 < exp20:
            hi = 2 * (G - 1 - c)
            if MUTATION == "twice":
                hi = 2 * max(G - 2 - c, 0)
            w.update(rows_m=tiles_m - 1, dp_end=F, h_end=tiles_n, hi=hi, half=True)
            return w
    if sk_tiles:
        stream_k_ranges(w, tiles, sk_tiles, G, c)
    return w


def next_half(w, G):
    """next_unit's third branch: the CTA's next half tile (a whole unit of the last M-tile row),
    pairs of adjacent columns dealt round-robin; None when its half tiles are done."""
    if w["hi"] >= w["h_end"]:
        return None
    unit = (w["dp_end"] + w["hi"], 0, w["kTiles"])
    step = 2 * G - 1 if w["hi"] & 1 else 1
    if MUTATION == "second" and not w["hi"] & 1:
        step = 2
    if MUTATION == "stride" and w["hi"] & 1:
        step = 2 * G + 1
    w["hi"] += step
    return unit


def next_units(w, G):
    """The kernel's next_unit loop: list of (tile, k0, k1)."""
    return units(w, G, lambda w: next_half(w, G))


def unit_coords(w, tile, tiles_n):
    full = w["rows_m"] * tiles_n
    if tile < full:
        return tile_coords(tile, w["rows_m"], tiles_n, GROUP_M)
    return w["rows_m"], tile - full


def schedule(M, N, K):
    """Per CTA: (work, [(mt, nt, k0, k1, half)]) as the consumers walk it."""
    tiles_m, tiles_n, k_tiles = cdiv(M, BM), cdiv(N, BN), cdiv(K, BK)
    G = min(SMS, tiles_m * tiles_n)
    per_cta = []
    for c in range(G):
        w = make_work(M, tiles_m, tiles_n, k_tiles, G, c)
        units = next_units(dict(w), G)
        per_cta.append((w, [(*unit_coords(w, t, tiles_n), k0, k1,
                             w["h_end"] > 0 and t >= w["dp_end"]) for t, k0, k1 in units]))
    return G, tiles_m, tiles_n, k_tiles, per_cta


def loads(per_cta, k_tiles, h):
    """Per-CTA work in tile-times (a half tile costs h, a stream-K piece its k fraction)."""
    return [sum((h if half else 1.0) * (k1 - k0) / k_tiles for _, _, k0, k1, half in us)
            for _, us in per_cta]


def check(M, N, K):
    errs = []
    G, tiles_m, tiles_n, k_tiles, per_cta = schedule(M, N, K)
    if k_tiles == 0:
        return errs
    cover = {}  # (mt, nt, warpgroup) -> list of (k0, k1)
    for c, (w, us) in enumerate(per_cta):
        for mt, nt, k0, k1, half in us:
            if not (0 <= mt < tiles_m and 0 <= nt < tiles_n and 0 <= k0 < k1 <= k_tiles):
                errs.append(f"CTA {c}: bad unit {(mt, nt, k0, k1)}")
                continue
            if half and (k0, k1) != (0, k_tiles):
                errs.append(f"CTA {c}: half tile {(mt, nt)} is not a whole unit (ring out of step)")
            if half and M - mt * BM > BM // 2:
                errs.append(f"CTA {c}: half tile {(mt, nt)} has rows < M for warpgroup 1")
            for wg in ((0,) if half else (0, 1)):
                cover.setdefault((mt, nt, wg), []).append((k0, k1))
    for mt in range(tiles_m):
        for nt in range(tiles_n):
            for wg in (0, 1):
                if mt * BM + wg * 64 >= M:
                    continue  # all padding: computing it or not is both fine
                rs = sorted(cover.get((mt, nt, wg), []))
                if not covers_once(rs, k_tiles):
                    errs.append(f"tile {(mt, nt)} warpgroup {wg}: K ranges {rs} do not cover "
                                f"[0, {k_tiles}) exactly once")
    w0 = per_cta[0][0]
    if w0["half"]:
        lo = loads(per_cta, k_tiles, 0.5)
        if abs(20 * max(lo) - w0["half20"]) > 1e-9:
            errs.append(f"closed-form makespan {w0['half20'] / 20} != replay {max(lo)}")
        if max(lo) - min(lo) > 1.0 + 1e-9 and sum(lo) >= G:
            errs.append(f"loads spread {min(lo)}..{max(lo)} by more than one tile")
    else:
        # The expert's schedule, unit for unit (round-4 model; its check() covers stream-K).
        _, _, _, _, ref = r4.schedule(M, N, K)
        mine = [[(t, k0, k1) for t, k0, k1 in next_units(dict(w), G)] for w, _ in per_cta]
        if mine != ref:
            errs.append("not the expert's schedule")
        errs += r4.check(M, N, K)
    if M % BM == 0 or M % BM > BM // 2:
        if w0["half"]:
            errs.append("half mode on a shape that must keep the expert's path")
    return errs


def workloads():
    return [(f"{t}:{name}", M, N, K) for t, name, M, N, K in task_workloads(BF16_TASKS)]


def random_shapes(n, seed=7):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:  # ragged M with a thin last M tile: the half-tile candidates
            M = 128 * rng.randint(1, 160) + rng.randint(1, 64)
        else:
            M = rng.randint(1, 20000)
        out.append((f"random{i}", M, 8 * rng.randint(1, 2400), 8 * rng.randint(1, 1200)))
    # Wide N: more than G pairs of half tiles, so the pair deal wraps round the CTAs.
    for i, (M, N) in enumerate([(3000, 80000), (1000, 140000), (200, 70000), (8248, 99000)]):
        out.append((f"wide{i}", M, N, 512))
    return out


# Expert measurements (docs/perf.md, round 5): ratio to cuBLASLt at M3000, and the tile time
# (n7168 M4096: 382.8 us for 6.79 tile-times = 56.4 us per K=5120 tile).
MEASURED = {"gemm_bf16_n7168_k5120": 0.945, "gemm_bf16_n4096_k4096": 1.000,
            "gemm_bf16_n14336_k4096": 0.969}
US_PER_TILE_K5120 = 382.8 / (896 / 132)


def report(name, M, N, K):
    G, tiles_m, tiles_n, k_tiles, per_cta = schedule(M, N, K)
    w0 = per_cta[0][0]
    F, H = (tiles_m - 1) * tiles_n, tiles_n
    exp = w0.get("exp20", 0) / 20
    task = name.split(":")[0]
    line = (f"{name}: tiles {tiles_m * tiles_n} G {G} F {F} H {H}, "
            f"tile-equivalents at h=0.5 {F + H / 2:.0f} = {(F + H / 2) / G:.2f} rounds; "
            f"expert model {exp:.2f} tile-times; mode {'half' if w0['half'] else 'expert'}")
    print(line)
    if not w0["half"]:
        print("    unchanged (the expert's schedule and code path)")
        return
    us = US_PER_TILE_K5120 * k_tiles / 80
    for h in (0.5, 0.65):
        lo = loads(per_cta, k_tiles, h)
        hist = {}
        for x in lo:
            hist[round(x, 2)] = hist.get(round(x, 2), 0) + 1
        mk = max(lo)
        ratio = MEASURED[task] * exp / mk
        print(f"    h={h}: per-CTA loads {dict(sorted(hist.items()))}, makespan {mk:.2f} "
              f"({mk * us:.0f} us at {us:.1f} us/tile), predicted ratio {ratio:.3f} "
              f"(expert {MEASURED[task]:.3f}, modeled {exp:.2f} = {exp * us:.0f} us)")


def run_checks(shapes):
    bad = 0
    for name, M, N, K in shapes:
        errs = check(M, N, K)
        if errs:
            bad += 1
            print(f"FAIL {name} M={M} N={N} K={K}: {errs[:3]}")
    return bad


def main():
    global MUTATION
    shapes = workloads()
    rand = random_shapes(400)
    bad = run_checks(shapes + rand)
    n_half = sum(1 for _, M, N, K in shapes + rand if schedule(M, N, K)[4][0][0]["half"])
    print(f"checked {len(shapes)} workloads + {len(rand)} random shapes: {bad} failing; "
          f"{n_half} in half-tile mode")
    for name, M, N, K in shapes:
        if M == 3000:
            report(name, M, N, K)
    # Mutation test: each broken schedule must fail on some shape.
    for m in ("twice", "second", "stride", "wrong_row"):
        MUTATION = m
        caught = sum(1 for _, M, N, K in shapes + rand[:200] + rand[-4:] if check(M, N, K))
        MUTATION = None
        print(f"mutation {m}: caught on {caught} shapes")
        if caught == 0:
            bad += 1
            print(f"FAIL mutation {m} not caught")
    print("OK" if bad == 0 else "FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
