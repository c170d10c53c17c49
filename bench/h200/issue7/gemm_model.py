"""gemm_model.py - helpers shared by the CPU models of the GEMM experts' schedules (issue 7).

The bf16/fp8 GEMM experts deal their output tiles the same way: a grouped tile order, whole tiles
round-robin over a persistent grid of CTAs, and (from round 4 on) a stream-K tail that splits the
last tiles' k-iterations into one contiguous range per CTA. The scripts below each model one
kernel version; this module holds the arithmetic they have in common, with the kernel's constants
passed in, so that each script keeps only its own version's logic (and its own copy of the
constants it mirrors):

  round4/gemm_bf16/schedule_model.py   v8's stream-K tail (the expert's schedule since)
  round5/gemm_fp8/schedule_model.py    v11 (fp8): round 4's model with fp8's tile
  round6/gemm_bf16/check_half_tiles.py v15's half tiles on top of the expert's schedule
  round7/gemm_bf16/check_t216.py       v16's transposed 128x216 tiles and their selection rule

Each script puts this folder on sys.path itself (they run as `python3 path/to/script.py`).
Names follow the kernels' (tile_coords, sk_end, next_unit's loop).
"""
import json
import os
from collections import OrderedDict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SMS = 132  # H200's SM count: the plans' grid is min(SMS, tiles)
BF16_TASKS = ["gemm_bf16_n7168_k5120", "gemm_bf16_n4096_k4096", "gemm_bf16_n14336_k4096"]


def cdiv(a, b):
    return (a + b - 1) // b


def task_workloads(tasks):
    """(task, workload name, M, N, K) of every workload in tasks/<task>/task.json, in file order
    (dev, then heldout)."""
    out = []
    for task in tasks:
        with open(os.path.join(ROOT, "tasks", task, "task.json")) as f:
            spec = json.load(f)
        for group in spec["workloads"].values():
            for wl in group:
                out.append((task, wl["name"], wl["M"], wl["N"], wl["K"]))
    return out


def tile_coords(t, tiles_m, tiles_n, group_m):
    """The kernels' grouped tile order: tile t -> (row tile, column tile), walking group_m row
    tiles down each column before the next column (the last group may be shorter), so that
    concurrent CTAs share operand slabs in L2. v16's T216 path calls it with the N-tiles as rows."""
    per_group = group_m * tiles_n
    group = t // per_group
    first_m = group * group_m
    gsize = min(tiles_m - first_m, group_m)
    r = t - group * per_group
    return first_m + r % gsize, r // gsize


# ---------------------------------------------------------------------------------------------
# The expert's stream-K tail (v8 on): make_work's split, next_unit's walk, the selection model.
# cut = (SK_NUM, SK_DEN, SK_REM_NUM, SK_REM_DEN) of the kernel being modeled.


def stream_k_tiles(tiles, k_tiles, grid, nsmid, cut, region=None):
    """How many of the last tiles make_work hands to stream-K: 0 when the kernel keeps every tile
    whole (no partial last round, a single round, a last round fuller than SK_NUM/SK_DEN of the
    grid, no k-tiles, or a grid larger than the %nsmid the kernel sees); rem (the "rem" region: the
    partial round alone) when rem >= SK_REM_NUM/SK_REM_DEN of the grid and every CTA's range is
    non-empty; else grid + rem ("wave": the last full round too). region ("rem" or "wave") forces
    the choice where "rem" is possible; None is the kernel's rule."""
    num, den, rem_num, rem_den = cut
    rounds, rem = tiles // grid, tiles % grid
    if not (rem > 0 and rounds > 0 and k_tiles > 0 and rem * den <= grid * num and grid <= nsmid):
        return 0
    rem_ok = rem * k_tiles >= grid  # every range non-empty
    rem_rule = rem * rem_den >= grid * rem_num and rem_ok
    use_rem = (region == "rem") if region and rem_ok else rem_rule
    return rem if use_rem else grid + rem


def stream_k_ranges(w, tiles, sk_tiles, grid, c):
    """make_work's stream-K fields of CTA c: tiles [0, tiles - sk_tiles) stay whole (dp_end); the
    sk_tiles * kTiles k-iterations after them are split into grid contiguous ranges of per or
    per + 1 iterations (the first `extra` CTAs take one more); CTA c's is [sk_i, sk_e)."""
    w["dp_end"] = tiles - sk_tiles
    iters = sk_tiles * w["kTiles"]
    w["per"], w["extra"] = iters // grid, iters % grid
    w["sk_i"] = c * w["per"] + min(c, w["extra"])
    w["sk_e"] = sk_end(w, c)


def sk_end(w, q):
    """End of CTA q's stream-K range (the kernel's sk_end; the head's wait loop uses it too)."""
    return (q + 1) * w["per"] + min(q + 1, w["extra"])


def units(w, grid, more=None):
    """The kernel's next_unit loop over a CTA's work w (advanced in place): its whole tiles t,
    t + grid, ... < dp_end as (t, 0, kTiles), then its stream-K range cut at tile boundaries into
    pieces (tile, k0, k1), then the units more(w) deals until it returns None (v15's half tiles).
    Returns the list of (tile, k0, k1)."""
    out = []
    while True:
        if w["t"] < w["dp_end"]:
            out.append((w["t"], 0, w["kTiles"]))
            w["t"] += grid
        elif w["sk_i"] < w["sk_e"]:
            tile = w["dp_end"] + w["sk_i"] // w["kTiles"]
            k0 = w["sk_i"] % w["kTiles"]
            k1 = min(w["kTiles"], k0 + (w["sk_e"] - w["sk_i"]))
            w["sk_i"] += k1 - k0
            out.append((tile, k0, k1))
        else:
            u = more(w) if more else None
            if u is None:
                return out
            out.append(u)


def region_of(w, tiles, grid):
    """The stream-K region make_work chose (from any CTA's work w): "DP" (none), "rem" or "wave"."""
    if w["dp_end"] == tiles:
        return "DP"
    return "rem" if w["dp_end"] == tiles // grid * grid else "wave"


def expert_makespan20(tiles, sk_tiles, grid, fixup20):
    """The kernels' cost model of the expert's schedule, in 1/20 tile-times: the whole tiles'
    rounds, plus the stream-K tiles spread over the grid and a fix-up cost fixup20 when there are
    any (sk_tiles from stream_k_tiles)."""
    if sk_tiles:
        return 20 * (tiles - sk_tiles) // grid + cdiv(20 * sk_tiles, grid) + fixup20
    return 20 * cdiv(tiles, grid)


def covers_once(ranges, k_tiles):
    """Whether the sorted K ranges (k0, k1, ...) cover [0, k_tiles) exactly once: each starts
    where the previous one ends, the first at 0, the last ending at k_tiles."""
    edges = [0] + [x for r in ranges for x in r[:2]] + [k_tiles]
    return all(edges[2 * i] == edges[2 * i + 1] for i in range(len(ranges) + 1))


# ---------------------------------------------------------------------------------------------
# DRAM traffic under an LRU model of the L2


def dram_bytes(per_cta, M, N, tile, elem_bytes, group_m, t_it, e_full, l2_bytes, phase2):
    """DRAM bytes of one run under an LRU L2 of l2_bytes, every CTA at uniform speed (no waits):
    CTA c walks its units per_cta[c] = [(tile, k0, k1)] from time 0, t_it per k-tile and e_full
    (the epilogue) per unit, and each k-tile loads the slabs A[mt, k] (bm x bk) and B[nt, k]
    (bn x bk), elem_bytes per element, smaller at the ragged edges; tile = (bm, bn, bk) and the
    grouped order (group_m) place the units. Returns (miss bytes, miss bytes at time >= phase2)."""
    bm, bn, bk = tile
    tiles_m, tiles_n = cdiv(M, bm), cdiv(N, bn)
    events = []
    for c, us in enumerate(per_cta):
        clock = 0.0
        for t, k0, k1 in us:
            mt, nt = tile_coords(t, tiles_m, tiles_n, group_m)
            for k in range(k0, k1):
                events.append((clock, c, mt, nt, k))
                clock += t_it
            clock += e_full
    events.sort()
    lru, held, miss, miss2 = OrderedDict(), 0, 0, 0
    for clock, _, mt, nt, k in events:
        for key, size in ((("A", mt, k), min(bm, M - mt * bm) * bk * elem_bytes),
                          (("B", nt, k), min(bn, N - nt * bn) * bk * elem_bytes)):
            if key in lru:
                lru.move_to_end(key)
                continue
            miss += size
            if clock >= phase2:
                miss2 += size
            lru[key] = size
            held += size
            while held > l2_bytes:
                held -= lru.popitem(last=False)[1]
    return miss, miss2
