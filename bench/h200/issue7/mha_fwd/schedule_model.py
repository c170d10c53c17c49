#!/usr/bin/env python3
"""CPU model of the issue-7 attention-forward schedules (v3 static, v4/v5 dynamic), no GPU needed.

For every mha_fwd_lse_h48_* workload it checks that each variant's item_of() (transcribed from
the .cu files) maps the item numbers 0..n_items-1 one-to-one onto the (query tile, h, b) work
items, then simulates the schedule on 132 SMs: item cost = its K/V tiles + a fixed per-item
overhead, v3 deals items round robin, v4/v5 take them greedily from a counter one item ahead
(the producer claims the next item when it starts the current one). It prints the makespan
against the perfect balance (total work / 132) and an LRU estimate of the K/V bytes that miss a
50 MB L2 (each item reads its tiles evenly over its run time), the quantity behind v5.
A model only: real timing differs, it ranks schedules and checks the index arithmetic.

Usage: python3 schedule_model.py [--no-l2]
"""
import heapq
import sys
from collections import OrderedDict

BM, SMS, L2_BYTES, OVERHEAD = 128, 132, 50 << 20, 1.5  # overhead in K/V-tile units (a guess)
WORKLOADS = [(4, 4096), (16, 1024), (2, 8192), (4, 3000), (32, 512)]  # (B, S), H = 48


def bn_of(d):
    return 128 if d <= 128 else 64


def item_v3(i, B, H, S, D, causal):
    n_qt = -(-S // BM)
    bh, rank = divmod(i, n_qt)
    q0 = (n_qt - 1 - rank if causal else rank) * BM
    return q0, bh % H, bh // H


def item_v4(i, B, H, S, D, causal):
    n_qt = -(-S // BM)
    if causal:
        bh, q_tile = i % (B * H), n_qt - 1 - i // (B * H)
    else:
        bh, q_tile = divmod(i, n_qt)
    return q_tile * BM, bh % H, bh // H


def item_v5(i, B, H, S, D, causal):
    n_qt = -(-S // BM)
    if causal:
        n_bh = B * H
        g = min(n_bh, max(1, (32 << 20) // (S * 4 * D)))
        sec = i // (g * n_qt)
        r = i - sec * g * n_qt
        hs = min(g, n_bh - sec * g)
        bh, q_tile = sec * g + r % hs, n_qt - 1 - r // hs
    else:
        bh, q_tile = divmod(i, n_qt)
    return q_tile * BM, bh % H, bh // H


def n_tiles(q0, S, D, causal):
    kv_end = min(S, q0 + BM) if causal else S
    return -(-kv_end // bn_of(D))


def check_bijection(item_of, B, H, S, D, causal):
    n_qt = -(-S // BM)
    n_items = n_qt * H * B
    seen = {item_of(i, B, H, S, D, causal) for i in range(n_items)}
    want = {(q * BM, h, b) for q in range(n_qt) for h in range(H) for b in range(B)}
    assert seen == want, (item_of.__name__, B, S, D, causal)
    return n_items


def simulate(item_of, dynamic, B, H, S, D, causal):
    """Returns (makespan, ideal, per-item (start, end, q0, h, b))."""
    n_items = -(-S // BM) * H * B
    grid = min(SMS, n_items)
    cost = lambda it: n_tiles(it[0], S, D, causal) + OVERHEAD
    runs = []
    if not dynamic:
        finish = 0.0
        for k in range(grid):
            t = 0.0
            for i in range(k, n_items, grid):
                it = item_of(i, B, H, S, D, causal)
                runs.append((t, t + cost(it)) + it)
                t += cost(it)
            finish = max(finish, t)
    else:
        counter = grid  # the next number a claim returns (gridDim.x + atomicAdd)
        heap = []       # (start time, cta, item number)
        for k in range(grid):
            heap.append((0.0, k, k))
        heapq.heapify(heap)
        finish = 0.0
        while heap:
            t, k, i = heapq.heappop(heap)
            if i >= n_items:
                continue
            nxt, counter = counter, counter + 1  # claimed when the current item starts
            it = item_of(i, B, H, S, D, causal)
            runs.append((t, t + cost(it)) + it)
            finish = max(finish, t + cost(it))
            heapq.heappush(heap, (t + cost(it), k, nxt))
    ideal = sum(cost(item_of(i, B, H, S, D, causal)) for i in range(n_items)) / grid
    return finish, ideal, runs


def l2_miss_bytes(runs, S, D, causal):
    """LRU over K+V tiles, accesses spread evenly over each item's run."""
    bn = bn_of(D)
    tile_bytes = 2 * bn * D * 2
    events = []
    for start, end, q0, h, b in runs:
        nt = n_tiles(q0, S, D, causal)
        for j in range(nt):
            events.append((start + (end - start) * j / nt, (b, h, j)))
    events.sort(key=lambda e: e[0])
    lru, cap, miss = OrderedDict(), L2_BYTES // tile_bytes, 0
    for _, key in events:
        if key in lru:
            lru.move_to_end(key)
        else:
            miss += 1
            lru[key] = None
            if len(lru) > cap:
                lru.popitem(last=False)
    return miss * tile_bytes, len(events) * tile_bytes


def main():
    l2 = "--no-l2" not in sys.argv
    H = 48
    for D in (64, 128, 256):
        for causal in (False, True):
            for B, S in WORKLOADS:
                for f in (item_v3, item_v4, item_v5):
                    check_bijection(f, B, H, S, D, causal)
    print("item_of: v3, v4, v5 are bijections on every workload (D 64/128/256, causal or not)")
    print(f"{'workload':24} {'sched':4} {'makespan/ideal':>14} {'HBM K/V GB':>11} {'of read':>8}")
    for causal in (False, True):
        for B, S in WORKLOADS:
            for name, f, dyn in (("v3", item_v3, False), ("v4", item_v4, True), ("v5", item_v5, True)):
                if not causal and name == "v5":
                    continue  # same order as v4
                fin, ideal, runs = simulate(f, dyn, B, H, S, 128, causal)
                tag = f"d128{' causal' if causal else ''} B{B} S{S}"
                if l2:
                    miss, total = l2_miss_bytes(runs, S, 128, causal)
                    print(f"{tag:24} {name:4} {fin / ideal:14.3f} {miss / 1e9:11.2f} {miss / total:8.2f}")
                else:
                    print(f"{tag:24} {name:4} {fin / ideal:14.3f}")


if __name__ == "__main__":
    main()
