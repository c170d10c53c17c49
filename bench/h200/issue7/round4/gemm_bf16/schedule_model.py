#!/usr/bin/env python3
"""schedule_model.py - CPU model of v8_streamk_tail.cu's work schedule (issue 7, round 4).

The kernel cannot run on the development machine, so this script mirrors its schedule
(make_work, sk_end, next_unit, tile_coords and the head's wait loop: same arithmetic, same names;
the parts later kernels share are in ../../gemm_model.py) and checks, for every workload of the
three gemm_bf16_n*_k* tasks and a sweep of other shapes, with the kernel's choice of stream-K
region and with either region forced:

  coverage      every output element's K range is covered exactly once: tile_coords maps the
                tile numbers one-to-one onto the (M-tile, N-tile) grid, and every tile's k-tiles
                [0, kTiles) are covered by its units exactly once;
  contributors  a split tile is a head (0, k), the LAST unit of CTA c, plus pieces (k0 > 0) that
                are the FIRST stream-K units of CTAs c+1, c+2, ...; the head's wait loop visits
                exactly those CTAs; so each CTA writes at most one partial slot (its own);
  deadlock      an event simulation of the fix-up protocol (a piece raises its flag after the
                partial store; a head waits for its sources' flags after its mainloop) finishes
                with every CTA resident (grid <= 132, one CTA per SM) and random per-CTA speeds.
                With far fewer SMs than CTAs it can deadlock; the kernel's `%nsmid` guard is for
                that. A mutation test checks that the checks catch broken schedules.

It then predicts v8's time per workload from the expert's H200 measurements (docs/perf.md,
2026-11-29), and the DRAM traffic of v8, of the expert and of the "wave" region alone under an
LRU model of a 50 MB L2 (the reason v8 switches to the "rem" region at rem >= G/4).
Run: python3 schedule_model.py [--no-l2] (about 30 s); exit status 1 if any check fails.
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from gemm_model import (BF16_TASKS, SMS, cdiv, covers_once, dram_bytes,  # noqa: E402
                        region_of, sk_end, stream_k_ranges, stream_k_tiles, task_workloads,
                        tile_coords, units)

BM, BN, BK, GROUP_M = 128, 256, 64, 16
SK_ON, SK_NUM, SK_DEN, SK_REM_NUM, SK_REM_DEN = True, 17, 20, 1, 4


def make_work(tiles, k_tiles, grid, c, nsmid=SMS, sk_on=SK_ON, region=None):
    """The kernel's make_work: (t, dp_end, kTiles, sk_i, sk_e, per, extra). region forces the
    stream-K region ("rem" or "wave") for the model's comparisons; None is the kernel's rule."""
    w = dict(t=c, dp_end=tiles, kTiles=k_tiles, sk_i=0, sk_e=0, per=0, extra=0)
    cut = (SK_NUM, SK_DEN, SK_REM_NUM, SK_REM_DEN)
    sk_tiles = stream_k_tiles(tiles, k_tiles, grid, nsmid, cut, region) if sk_on else 0
    if sk_tiles:
        stream_k_ranges(w, tiles, sk_tiles, grid, c)
    return w


def schedule(M, N, K, nsmid=SMS, sk_on=SK_ON, region=None):
    tiles_m, tiles_n, k_tiles = cdiv(M, BM), cdiv(N, BN), cdiv(K, BK)
    tiles = tiles_m * tiles_n
    grid = min(SMS, tiles)  # the plan's grid
    return grid, tiles_m, tiles_n, k_tiles, [
        units(make_work(tiles, k_tiles, grid, c, nsmid, sk_on, region), grid) for c in range(grid)]


def reducer_sources(M, N, K, c, tile, nsmid=SMS, region=None):
    """The CTAs whose slots the head of `tile` in CTA c waits for and adds: the kernel's loop
    (q = c+1, c+2, ... until sk_end(q) reaches the tile's end, q < grid)."""
    tm, tn, k_tiles = cdiv(M, BM), cdiv(N, BN), cdiv(K, BK)
    grid = min(SMS, tm * tn)
    w = make_work(tm * tn, k_tiles, grid, c, nsmid, region=region)
    tile_end = (tile - w["dp_end"] + 1) * k_tiles
    out = []
    for q in range(c + 1, grid):
        out.append(q)
        if sk_end(w, q) >= tile_end:
            break
    return out


def kind(u, k_tiles):
    """full tile, head [0, k) (owns the tile), or "tail": any piece with k0 > 0 (a tail
    [k, kTiles) or a middle [k, k')), which hands a partial sum over."""
    _, k0, k1 = u
    return "full" if (k0 == 0 and k1 == k_tiles) else ("tail" if k0 > 0 else "head")


def check(M, N, K, region=None):
    """Coverage and contributors; returns a list of error strings."""
    grid, tiles_m, tiles_n, k_tiles, per_cta = schedule(M, N, K, region=region)
    tiles, errs = tiles_m * tiles_n, []
    coords = {tile_coords(t, tiles_m, tiles_n, GROUP_M) for t in range(tiles)}
    if coords != {(m, n) for m in range(tiles_m) for n in range(tiles_n)}:
        errs.append("tile_coords is not one-to-one onto the tile grid")
    pieces = {}
    for c, us in enumerate(per_cta):
        kinds = [kind(u, k_tiles) for u in us]
        for i, (u, k) in enumerate(zip(us, kinds)):
            t, k0, k1 = u
            if not (0 <= t < tiles and 0 <= k0 < k1 <= k_tiles) and k_tiles > 0:
                errs.append(f"CTA {c}: bad unit {u}")
            if k == "tail" and any(x != "full" for x in kinds[:i]):
                errs.append(f"CTA {c}: partial piece {u} is not its first stream-K unit")
            if k == "head" and i != len(us) - 1:
                errs.append(f"CTA {c}: head {u} is not its last unit")
            pieces.setdefault(t, []).append((k0, k1, c, k))
    for t in range(tiles):
        ps = sorted(pieces.get(t, []))
        if k_tiles > 0 and not covers_once(ps, k_tiles):
            errs.append(f"tile {t}: K ranges {[(p[0], p[1]) for p in ps]} do not cover [0, {k_tiles}) once")
        if len(ps) > 1:  # a head in CTA c, then pieces of CTAs c+1, c+2, ... it waits for
            hc = ps[0][2]
            if ps[0][3] != "head" or [p[2] for p in ps] != list(range(hc, hc + len(ps))):
                errs.append(f"tile {t}: pieces {ps} are not head(c) + c+1, c+2, ...")
            elif reducer_sources(M, N, K, hc, t, region=region) != [p[2] for p in ps[1:]]:
                errs.append(f"tile {t}: the head's wait list is not the contributors {ps[1:]}")
    return errs


def simulate(M, N, K, t_it, e_full, e_store, e_load, launch, sms=SMS, jitter=0.0, rng=None,
             nsmid=SMS, shuffle=False, region=None):
    """Event simulation of the fix-up protocol. Returns the finish time, or None on deadlock.
    A CTA holds an SM from dispatch to finish; with sms < grid the rest wait, in index order
    or (shuffle) in a random order."""
    grid, _, _, k_tiles, per_cta = schedule(M, N, K, nsmid, region=region)
    sources = {c: reducer_sources(M, N, K, c, us[-1][0], nsmid, region)
               for c, us in enumerate(per_cta) if us and kind(us[-1], k_tiles) == "head"}
    speed = [1.0 + (rng.uniform(-jitter, jitter) if rng else 0.0) for _ in range(grid)]
    pos, clock, flag, done = [0] * grid, [None] * grid, {}, [False] * grid
    queue = list(range(grid))
    if shuffle:
        rng.shuffle(queue)
    free = [launch] * sms
    finish = 0.0
    while True:
        while queue and free:  # dispatch in index order onto the earliest free SM
            free.sort()
            clock[queue.pop(0)] = free.pop(0)
        progress = False
        for c in range(grid):
            if clock[c] is None or done[c]:
                continue
            while pos[c] < len(per_cta[c]):
                u = per_cta[c][pos[c]]
                k = kind(u, k_tiles)
                if k == "head" and any(q not in flag for q in sources[c]):
                    break  # spins on a later CTA's flag
                end = clock[c] + (u[2] - u[1]) * t_it * speed[c]
                if k == "tail":
                    clock[c] = end + e_store
                    flag[c] = clock[c]
                elif k == "head":
                    for q in sources[c]:  # wait for and add each slot in turn
                        end = max(end, flag[q]) + e_load
                    clock[c] = end + e_full
                else:
                    clock[c] = end + e_full
                pos[c] += 1
                progress = True
            if pos[c] == len(per_cta[c]):
                done[c] = True
                free.append(clock[c])
                finish = max(finish, clock[c])
        if all(done):
            return finish
        if not progress and not (queue and free):
            return None


def l2_traffic(M, N, K, sk_on, t_it, e_full, l2_bytes, region=None):
    """DRAM bytes of one run under an LRU L2 of l2_bytes, every CTA at uniform speed (no waits):
    the k-slabs A[mt, k] (128 x 64) and B[nt, k] (256 x 64) each CTA loads, in time order.
    Returns (total miss bytes, miss bytes after the data-parallel rounds, their start time):
    for v8 the stream-K phase, for the expert (sk_on False) its last, partial round."""
    grid, tm, tn, k_tiles, per_cta = schedule(M, N, K, sk_on=sk_on, region=region)
    tiles = tm * tn
    dp_rounds = make_work(tiles, k_tiles, grid, 0, sk_on=sk_on, region=region)["dp_end"] // grid
    phase2 = dp_rounds * (k_tiles * t_it + e_full)
    miss, miss2 = dram_bytes(per_cta, M, N, (BM, BN, BK), 2, GROUP_M, t_it, e_full, l2_bytes, phase2)
    return miss, miss2, phase2


# The expert on the H200 (docs/perf.md, "Expert bf16 GEMM on the H200", 2026-11-29):
# (cuBLASLt ms, expert ms) per workload M.
MEASURED = {
    "gemm_bf16_n7168_k5120": {4096: (0.3756, 0.4108), 8192: (0.7508, 0.8266), 1024: (0.1109, 0.1203),
                              3000: (0.2744, 0.3468), 16384: (1.5123, 1.6560)},
    "gemm_bf16_n4096_k4096": {4096: (0.1754, 0.1954), 8192: (0.3448, 0.3833), 1024: (0.0469, 0.0536),
                              3000: (0.1320, 0.1493), 16384: (0.7051, 0.7688)},
    "gemm_bf16_n14336_k4096": {4096: (0.6039, 0.6708), 8192: (1.2165, 1.3383), 1024: (0.1519, 0.1943),
                               3000: (0.4422, 0.5220), 16384: (2.3889, 2.6383)},
}
# Time model (us): a full round of 132 tiles costs t_round (fitted from the expert's three
# largest workloads of the task: time / rounds), of which E_FULL is the bf16 epilogue; LAUNCH is
# launch + pipeline fill; E_STORE / E_LOAD the 128 KiB fp32 partial store / load of a stream-K CTA.
E_FULL, E_STORE, E_LOAD, LAUNCH = 2.5, 1.0, 1.5, 4.0


def t_round(task):
    k_tiles = cdiv(5120 if "k5120" in task else 4096, BK)
    n = int(task.split("_n")[1].split("_")[0])
    rounds = [cdiv(cdiv(m, BM) * cdiv(n, BN), SMS) for m in (4096, 8192, 16384)]
    us = [MEASURED[task][m][1] * 1000 for m in (4096, 8192, 16384)]
    return sum(us) / sum(rounds), k_tiles


def mutation_test(workloads):
    """The checks must catch broken schedules: returns the number of mutations NOT caught."""
    global reducer_sources, make_work
    good_rs, good_mw = reducer_sources, make_work
    shapes = [(M, N, K) for _, _, M, N, K in workloads]
    missed = 0
    # 1. A head that stops one contributor early (only splits with >= 2 sources can show it).
    reducer_sources = lambda *a, **k: (lambda r: r[:-1] if len(r) > 1 else r)(good_rs(*a, **k))
    missed += not any(check(*w) for w in shapes)
    # 2. Ranges that drop the remainder iterations (extra).
    def short(*a, **k):
        w = good_mw(*a, **k)
        if w["per"]:
            w["sk_e"] = w["sk_i"] + w["per"]
        return w
    reducer_sources, make_work = good_rs, short
    missed += not any(check(*w) for w in shapes)
    # 3. A head that also waits on its own (never raised) flag: the simulation must deadlock.
    make_work = good_mw
    reducer_sources = lambda M, N, K, c, *a, **k: [c] + good_rs(M, N, K, c, *a, **k)
    missed += not any(simulate(*w, 1.0, 2.0, 1.0, 1.0, 0.0) is None for w in shapes)
    reducer_sources = good_rs
    return missed


def main():
    failures = 0
    workloads = task_workloads(BF16_TASKS)

    # 1. Coverage and pairing: the task workloads, edge cases around full rounds, random shapes.
    shapes = [(M, N, K) for _, _, M, N, K in workloads]
    for rounds in range(1, 6):
        for rem in (-1, 0, 1, 2, 66, 112, 113, 131):
            tiles = rounds * SMS + rem
            shapes.append((tiles * BM, BN, 4096))            # one N tile
            shapes.append((BM * 4 - 5, cdiv(tiles, 4) * BN - 7, 64 * 7 + 3))
    rng = random.Random(7)
    for _ in range(1500):
        shapes.append((rng.randint(1, 20000), rng.randint(1, 20000), rng.randint(1, 9000)))
    for region in (None, "wave", "rem"):
        for M, N, K in shapes:
            errs = check(M, N, K, region)
            if errs:
                failures += 1
                print(f"FAIL region={region} M={M} N={N} K={K}: {errs[:3]}")
    print(f"coverage + contributors: {len(shapes)} shapes x (kernel's rule, forced wave, forced rem),"
          f" {failures} failing")

    missed = mutation_test(workloads)
    failures += missed
    print(f"mutations (head stops early, ranges drop the remainder, head waits on itself): "
          f"{3 - missed} of 3 caught")

    # 2. Deadlock: all resident, random per-CTA speed (+-20%), and with fewer SMs than CTAs.
    dead = 0
    for M, N, K in shapes[: len(workloads)] + shapes[-200:]:
        for region in (None, "wave", "rem"):
            if simulate(M, N, K, 1.0, 2.0, 1.0, 1.0, 0.0, jitter=0.2, rng=rng, region=region) is None:
                dead += 1
                print(f"DEADLOCK (all resident) region={region} M={M} N={N} K={K}")
    failures += dead
    print(f"deadlock, all CTAs resident: {len(workloads) + 200} shapes x 3 regions, random speeds"
          f" (+-20%): {dead} deadlocks")
    few8 = sum(simulate(M, N, K, 1.0, 2.0, 1.0, 1.0, 0.0, sms=8, rng=rng, shuffle=True) is None
               for M, N, K in shapes[: len(workloads)] for _ in range(5))
    few = sum(simulate(M, N, K, 1.0, 2.0, 1.0, 1.0, 0.0, sms=114) is None for M, N, K in shapes[: len(workloads)])
    few_guarded = sum(simulate(M, N, K, 1.0, 2.0, 1.0, 1.0, 0.0, sms=114, nsmid=114) is None
                      for M, N, K in shapes[: len(workloads)])
    shuffled = sum(simulate(M, N, K, 1.0, 2.0, 1.0, 1.0, 0.0, sms=114, rng=rng, shuffle=True) is None
                   for M, N, K in shapes[: len(workloads)] for _ in range(5))
    print(f"with 114 SMs for 132 CTAs: {few} of {len(workloads)} task workloads deadlock with CTAs "
          f"dispatched in index order, {shuffled} of {5 * len(workloads)} in random orders; "
          f"{few_guarded} with the %nsmid guard seeing 114; with 8 SMs, random orders: {few8} of "
          f"{5 * len(workloads)} deadlock (hence the guard)")

    # 3. Predicted time and ratio.
    print("\nPredicted time (event model, us constants above) and DRAM traffic (LRU model of a 50 MB L2,"
          " uniform speeds): MB per run, and TB/s demanded in the last phase (v8: its stream-K phase;"
          " expert: its last, partial round). Region: the kernel's choice; 'wave' alone for comparison.")
    print(f"{'task':24} {'M':>5} {'tiles':>5} rounds+rem region  expert ms  v8 ms  ratio expert -> v8"
          f"   DRAM MB expert/v8/wave-only   TB/s expert/v8/wave-only")
    for task, name, M, N, K in workloads:
        grid, tm, tn, k_tiles, per_cta = schedule(M, N, K)
        tiles = tm * tn
        lib, exp = MEASURED[task][M]
        region = region_of(make_work(tiles, k_tiles, grid, 0), tiles, grid)
        tr, kt = t_round(task)
        t_it = (tr - E_FULL) / kt
        v8 = exp if region == "DP" else simulate(M, N, K, t_it, E_FULL, E_STORE, E_LOAD, LAUNCH) / 1000
        line = (f"{task:24} {M:5} {tiles:5}  {tiles // grid:3} + {tiles % grid:3} {region:5}"
                f"  {exp:8.4f}  {v8:7.4f}  {lib / exp:.2f} -> {lib / v8:.2f}")
        if region != "DP" and "--no-l2" not in sys.argv:
            mb, rate = [], []
            for on, reg, total_us in ((False, None, exp * 1000 - LAUNCH), (True, None, v8 * 1000 - LAUNCH),
                                      (True, "wave", v8 * 1000 - LAUNCH)):
                miss, miss2, start = l2_traffic(M, N, K, on, t_it, E_FULL, 50e6, reg)
                mb.append(f"{miss / 1e6:.0f}")
                rate.append(f"{miss2 / 1e6 / max(total_us - start, 1e-9):.2f}")
            line += f"   {'/'.join(mb):>22}   {'/'.join(rate):>20}"
        print(line, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
