#!/usr/bin/env python3
"""schedule_model.py - CPU model of v11_streamk_tail.cu's schedule (issue 7, round 5, fp8 GEMM).

v11 takes the bf16 expert's stream-K tail as it is (make_work, sk_end, next_unit, tile_coords and
the head's wait loop, same arithmetic). So this script loads the bf16 model
(bench/h200/issue7/round4/gemm_bf16/schedule_model.py, which mirrors that code with the
helpers of bench/h200/issue7/gemm_model.py) with fp8's tile
(BM = BN = BK = 128: kTiles = K / 128 = 40 or 32) and reruns its checks on gemm_fp8_e4m3's
workloads and on random shapes:

  coverage      every tile's K range [0, kTiles) is covered exactly once; a split tile is a head
                (its CTA's last unit) plus the first stream-K units of the following CTAs, and the
                head's wait list is exactly those CTAs (plus the bf16 model's mutation test);
  deadlock      event simulation of the fix-up protocol, all CTAs resident, per-CTA speeds +-20%.

and adds what is new in fp8:

  pairs         the consumer's loop over a unit [k0, k1): stages in pairs, an odd last stage
                alone; every stage of the unit is promoted exactly once, a pair never crosses k1,
                and the consumer's stage order equals the producer's (so ring slots and parities
                match as in v10); counts the units that take the single-stage path;
  zero=once     each CTA raises its flag at most once per launch (only its first stream-K unit
                can be a partial), every raised flag is in exactly one head's wait list, and a head
                resets only flags it waited for: all flags are zero again when the kernel ends;
  numerics      the head's result (its own stages promoted in order, then the partials added)
                against v10's order, in fp32, on random K = 128 stage sums: reassociation only;
  prediction    v11's time from v10's H200 times (docs/perf.md) with the same event model, and a
                DRAM-traffic estimate under an LRU model of a 50 MB L2 (fp8: 1-byte elements).

Run: python3 schedule_model.py [--no-l2]   (about a minute; exit status 1 if any check fails)
"""
import importlib.util
import os
import random
import struct
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the bf16 model or gemm_model.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from gemm_model import ROOT, SMS, cdiv, dram_bytes, region_of  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "bf16_schedule_model", os.path.join(ROOT, "bench/h200/issue7/round4/gemm_bf16/schedule_model.py"))
sk = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sk)
# v11's tile; the bf16 model's functions read these module globals at call time. SK_* (85% cut-off,
# region switch at rem = G/4) and GROUP_M = 16 are the same in v11.
sk.BM, sk.BN, sk.BK = 128, 128, 128

WORKLOADS = [  # gemm_fp8_e4m3's task.json: (name, M, N, K)
    ("dev-m4096", 4096, 7168, 5120), ("dev-m8192", 8192, 7168, 5120),
    ("heldout-m1024", 1024, 7168, 5120), ("heldout-m3000-ragged", 3000, 7168, 5120),
    ("heldout-m8192-n4096-k4096", 8192, 4096, 4096),
]
# H200, docs/perf.md: cuBLASLt ms ("gemm_fp8_e4m3 | cuBLASLt ms" table) and v10's ratio (round 4,
# "fp8 v10", now the expert).
LIB_MS = {"dev-m4096": 0.215, "dev-m8192": 0.419, "heldout-m1024": 0.059,
          "heldout-m3000-ragged": 0.156, "heldout-m8192-n4096-k4096": 0.198}
V10_RATIO = {"dev-m4096": 0.99, "dev-m8192": 0.96, "heldout-m1024": 0.92,
             "heldout-m3000-ragged": 0.90, "heldout-m8192-n4096-k4096": 0.99}
# Event-model constants (us): exposed part of the TMA-store epilogue per tile, the 64 KiB fp32
# partial store + release of a piece, the flag wait + 64 KiB load + adds per contributor of a head,
# launch and pipeline fill. Per-stage time is fitted to v10's times below.
E_FULL, E_STORE, E_LOAD, LAUNCH = 0.7, 1.0, 1.2, 3.0
# What bf16 realised of the same change (round 4 v11 -> v12, docs/perf.md) at the same tile counts
# (448 tiles = 3 rounds + 52 and 1344 = 10 rounds + 24, n14336) and at n7168 M3000 (672 = 5 + 12),
# as a fraction of the ideal quantization gain: 0.88 -> 0.94 (ideal 4/3.39), 0.94 -> 0.96 (11/10.18),
# 0.86 -> 0.94 (6/5.09).
BF16_REALISED = [(0.94 / 0.88 - 1) / (4 / 3.39 - 1), (0.96 / 0.94 - 1) / (11 / 10.18 - 1),
                 (0.94 / 0.86 - 1) / (6 / 5.09 - 1)]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def consumer_steps(k0, k1):
    """v11's consumer loop over one unit: ("pair", kt, kt+1) while kt + 1 < k1, then ("single",
    kt) if kt < k1."""
    steps, kt = [], k0
    while kt + 1 < k1:
        steps.append(("pair", kt, kt + 1))
        kt += 2
    if kt < k1:
        steps.append(("single", kt))
    return steps


def check_pairs(M, N, K):
    """Every stage of every unit promoted once, in the producer's order; returns (errors,
    units, units taking the single-stage path)."""
    grid, _, _, k_tiles, per_cta = sk.schedule(M, N, K)
    errs, n_units, n_single = [], 0, 0
    for c, us in enumerate(per_cta):
        producer = [(t, kt) for t, k0, k1 in us for kt in range(k0, k1)]
        consumer = []
        for t, k0, k1 in us:
            steps = consumer_steps(k0, k1)
            n_units += 1
            n_single += any(s[0] == "single" for s in steps)
            stages = [kt for s in steps for kt in s[1:]]
            if stages != list(range(k0, k1)) or any(max(s[1:]) >= k1 for s in steps):
                errs.append(f"CTA {c} unit {(t, k0, k1)}: steps {steps}")
            consumer += [(t, kt) for kt in stages]
        if consumer != producer:
            errs.append(f"CTA {c}: consumer stage order differs from the producer's")
    return errs, n_units, n_single


def check_flags(M, N, K):
    """zero=once: raises, waits and resets of one launch leave every flag at zero."""
    grid, _, _, k_tiles, per_cta = sk.schedule(M, N, K)
    errs, raised, reset = [], [], []
    for c, us in enumerate(per_cta):
        kinds = [sk.kind(u, k_tiles) for u in us]
        if kinds.count("tail") > 1:
            errs.append(f"CTA {c} raises its flag {kinds.count('tail')} times")
        if "tail" in kinds:
            raised.append(c)
        if us and kinds[-1] == "head":
            # The kernel's loop: q = c+1 .. q_last, each waited for (flag seen) before the reset.
            reset += sk.reducer_sources(M, N, K, c, us[-1][0])
    if sorted(reset) != sorted(raised):
        errs.append(f"raised {sorted(set(raised) - set(reset))} never reset, "
                    f"reset {sorted(set(reset) - set(raised))} never raised")
    if len(reset) != len(set(reset)):
        errs.append("a flag is reset by two heads (the second could spin on a reset flag)")
    return errs, len(raised)


def check_numerics(M, N, K, rng, samples=200):
    """fp32 result of a split tile's element: v11 (per-unit promotion, then partials added in
    q order) against v10 (one pass over all stages), both against the exact sum. Stage sums are
    K = 128 dot products of N(0,1) fp8 values: ~N(0, sqrt(128))."""
    grid, _, _, k_tiles, per_cta = sk.schedule(M, N, K)
    pieces = {}
    for c, us in enumerate(per_cta):
        for t, k0, k1 in us:
            pieces.setdefault(t, []).append((k0, k1))
    split = [sorted(p) for p in pieces.values() if len(p) > 1]
    worst = 0.0
    for _ in range(samples if split else 0):
        ps = rng.choice(split)
        stage = [f32(rng.gauss(0, 128 ** 0.5)) for _ in range(k_tiles)]
        v10 = 0.0
        for s in stage:
            v10 = f32(v10 + s)
        part = []
        for k0, k1 in ps:
            a = 0.0
            for s in stage[k0:k1]:
                a = f32(a + s)
            part.append(a)
        v11 = part[0]
        for p in part[1:]:
            v11 = f32(v11 + p)
        exact = sum(stage)
        # Error of the output element against its allowance atol 0.5 + rtol 0.02 |C|, at the
        # largest scale (scale_a * scale_b = 4: the allowance grows more slowly than the error).
        worst = max(worst, *(4 * abs(v - exact) / (0.5 + 0.02 * 4 * abs(exact)) for v in (v10, v11)))
    return len(split), worst


def fit_stage_time():
    """Least squares over v10's four K = 5120 workloads: time = LAUNCH + rounds * (40 t + E_FULL)."""
    pts = []
    for name, M, N, K in WORKLOADS[:4]:
        tiles = cdiv(M, 128) * cdiv(N, 128)
        pts.append((cdiv(tiles, SMS), LIB_MS[name] / V10_RATIO[name] * 1000 - LAUNCH))
    b = sum(r * t for r, t in pts) / sum(r * r for r, _ in pts)  # through the origin
    return (b - E_FULL) / 40, pts, b


def l2_traffic(M, N, K, sk_on, t_it):
    """DRAM bytes under an LRU 50 MB L2, uniform speeds: the A[mt, k] and B[nt, k] 128x128-byte
    slabs every CTA loads, in time order. Returns (total MB, MB in the last phase, its start us)."""
    grid, tm, tn, k_tiles, per_cta = sk.schedule(M, N, K, sk_on=sk_on)
    dp_rounds = sk.make_work(tm * tn, k_tiles, grid, 0, sk_on=sk_on)["dp_end"] // grid
    phase2 = dp_rounds * (k_tiles * t_it + E_FULL)
    miss, miss2 = dram_bytes(per_cta, M, N, (sk.BM, sk.BN, sk.BK), 1, sk.GROUP_M, t_it, E_FULL, 50e6,
                             phase2)
    return miss / 1e6, miss2 / 1e6, phase2


def main():
    failures = 0
    rng = random.Random(11)
    shapes = [(M, N, K) for _, M, N, K in WORKLOADS]
    for rounds in range(1, 6):
        for rem in (-1, 0, 1, 2, 32, 33, 66, 112, 113, 131):
            tiles = rounds * SMS + rem
            shapes.append((tiles * 128, 128, 5120))
            shapes.append((128 * 4 - 5, cdiv(tiles, 4) * 128 - 8, 128 * 39 + 16))
    for _ in range(1000):
        shapes.append((rng.randint(1, 12000), 8 * rng.randint(1, 2000), 16 * rng.randint(1, 600)))

    # 1. The bf16 model's checks with fp8's tile.
    for region in (None, "wave", "rem"):
        for M, N, K in shapes:
            errs = sk.check(M, N, K, region)
            if errs:
                failures += 1
                print(f"FAIL coverage region={region} M={M} N={N} K={K}: {errs[:3]}")
    print(f"coverage + contributors: {len(shapes)} shapes x (v11's rule, forced wave, forced rem): "
          f"{failures} failing")
    missed = sk.mutation_test([("gemm_fp8_e4m3",) + w for w in WORKLOADS])
    failures += missed
    print(f"mutations (head stops early, ranges drop the remainder, head waits on itself): "
          f"{3 - missed} of 3 caught")
    dead = sum(sk.simulate(M, N, K, 1.0, 2.0, 1.0, 1.0, 0.0, jitter=0.2, rng=rng, region=region) is None
               for M, N, K in shapes[:5] + shapes[-200:] for region in (None, "wave", "rem"))
    failures += dead
    print(f"deadlock, all CTAs resident, speeds +-20%: {5 + 200} shapes x 3 regions: {dead} deadlocks")

    # 2. fp8: pairs, zero=once flags, numerics.
    bad = 0
    for M, N, K in shapes:
        for errs in (check_pairs(M, N, K)[0], check_flags(M, N, K)[0]):
            if errs:
                bad += 1
                print(f"FAIL pairs/flags M={M} N={N} K={K}: {errs[:3]}")
    failures += bad
    print(f"pairs (every stage promoted once, producer's order) and zero=once flags: {len(shapes)} "
          f"shapes, {bad} failing")

    print("\nper workload: tiles = rounds + rem, region, units taking the single-stage path, flags "
          "raised, split tiles, worst fp32 error of a split tile's element (fraction of its allowance)")
    for name, M, N, K in WORKLOADS:
        grid, tm, tn, k_tiles, per_cta = sk.schedule(M, N, K)
        tiles = tm * tn
        w0 = sk.make_work(tiles, k_tiles, grid, 0)
        region = region_of(w0, tiles, grid)
        _, n_units, n_single = check_pairs(M, N, K)
        _, n_raised = check_flags(M, N, K)
        n_split, worst = check_numerics(M, N, K, rng)
        per = w0["per"]
        srcs = max([len(sk.reducer_sources(M, N, K, c, us[-1][0])) for c, us in enumerate(per_cta)
                    if us and sk.kind(us[-1], k_tiles) == "head"] or [0])
        print(f"  {name:26} {tiles:5} = {tiles // grid:2} x {grid} + {tiles % grid:3}  {region:4} "
              f"range {per}-{per + 1} stages, <= {srcs} partials per head; single path in "
              f"{n_single} of {n_units} units; {n_raised} flags; {n_split} split tiles; "
              f"worst {worst:.1e}")

    # 3. Prediction.
    t_it, pts, t_round = fit_stage_time()
    print(f"\nfit on v10's K = 5120 times: {t_round:.2f} us per round of 132 tiles (t_stage "
          f"{t_it * 1000:.0f} ns, epilogue {E_FULL} us, launch {LAUNCH} us); residuals "
          + ", ".join(f"{t - r * t_round:+.1f}" for r, t in pts) + " us")
    print(f"bf16's realised fraction of the ideal gain, same change: "
          + " / ".join(f"{f:.2f}" for f in BF16_REALISED))
    lo_frac = min(BF16_REALISED)
    print(f"{'workload':26} {'v10 ms':>7} {'model v10':>9} {'model v11':>9}  ratio v10 -> v11 "
          f"model (bf16-realised {lo_frac:.2f} of it)   DRAM MB v10/v11, last phase TB/s v10/v11")
    for name, M, N, K in WORKLOADS:
        grid, tm, tn, k_tiles, _ = sk.schedule(M, N, K)
        tiles = tm * tn
        v10_ms = LIB_MS[name] / V10_RATIO[name]
        m10 = LAUNCH + cdiv(tiles, grid) * (k_tiles * t_it + E_FULL)
        m11 = sk.simulate(M, N, K, t_it, E_FULL, E_STORE, E_LOAD, LAUNCH)
        r11 = V10_RATIO[name] * m10 / m11
        r11_lo = V10_RATIO[name] * (1 + lo_frac * (m10 / m11 - 1))
        line = (f"{name:26} {v10_ms:7.4f} {m10 / 1000:9.4f} {m11 / 1000:9.4f}  "
                f"{V10_RATIO[name]:.2f} -> {r11:.2f} ({r11_lo:.2f})")
        if "--no-l2" not in sys.argv:
            a = l2_traffic(M, N, K, False, t_it)
            b = l2_traffic(M, N, K, True, t_it)
            rate = [x[1] / 1e6 / max((m - LAUNCH - x[2]) * 1e-6, 1e-9)
                    for x, m in ((a, m10), (b, m11))]
            line += f"   {a[0]:5.0f}/{b[0]:5.0f}   {rate[0]:.2f}/{rate[1]:.2f}"
        print(line, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
