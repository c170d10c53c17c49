#!/usr/bin/env python3
"""CPU model of v7's barrier protocol (double-buffered Q, K/V ring, ping-pong turns, dynamic items).

Producer and the two consumer warpgroups run as Python generators under a random scheduler; a
warpgroup is one agent whose mbarrier arrival counts 128. mbarriers are modelled by phase with
parity waits (try_wait.parity passes while the barrier's current phase parity differs from the
parity asked); TMA writes a tag into the buffer and completes the transaction at a random later
step. Each consumer checks that the Q, K and V it reads carry the tags of its own item and tile
(so no buffer is overwritten while in use) and that every item is done once. Deadlock = no agent
can move. The mbarrier, TMA-load and scheduler machinery is ../../mbarrier_model.py (shared with
round 5's model and gemm_fp8's).
Usage: python3 protocol_model.py  (prints one line per configuration).
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from mbarrier_model import MBarrier, run_interleaved, tma_load  # noqa: E402


def run(D, S, B, H, causal, grid, seed):
    rnd = random.Random(seed)
    BM = 128
    BN = 128 if D <= 128 else 64
    NQ = 2 if D <= 128 else 1
    NST = 3 if D == 64 else 2
    n_qt = (S + BM - 1) // BM
    n_items = n_qt * H * B
    def item(i):
        bh, qt = divmod(i, n_qt)
        q0 = qt * BM
        kv_end = min(S, q0 + BM) if causal else S
        return q0, bh, (kv_end + BN - 1) // BN
    counter = [0]
    done = set()
    for cta in range(grid):
        qbar = [MBarrier(1) for _ in range(NQ)]
        qempty = [MBarrier(256) for _ in range(NQ)]
        fullk = [MBarrier(1) for _ in range(NST)]
        fullv = [MBarrier(1) for _ in range(NST)]
        empty = [MBarrier(256) for _ in range(NST)]
        slot = [None] * NQ
        qbuf = [None] * NQ
        kbuf = [None] * NST
        vbuf = [None] * NST
        inflight = []  # TMA loads issued, not landed: (barrier, buffer list, index, tag)
        turn = [0, 0]  # named barriers 1, 2: arrivals of the passing side not yet consumed
        def producer():
            def issue_q(m, it):
                b = m % NQ
                yield from qempty[b].wait(((m // NQ) & 1) ^ 1)
                slot[b] = it
                if it >= n_items:
                    qbar[b].arrive(1)
                    return
                tma_load(inflight, qbar[b], qbuf, b, ('Q', it))
            k = 0
            i = cta
            yield from issue_q(0, i)
            n = 0
            while True:
                nxt = grid + counter[0]; counter[0] += 1
                q0, bh, nt = item(i)
                q_after = 0 if NQ > 1 else nt - 1
                for j in range(nt):
                    st = k % NST
                    yield from empty[st].wait(((k // NST) & 1) ^ 1)
                    tma_load(inflight, fullk[st], kbuf, st, ('K', i, j))
                    tma_load(inflight, fullv[st], vbuf, st, ('V', i, j))
                    if j == q_after:
                        yield from issue_q(n + 1, nxt)
                    k += 1
                    yield
                if nxt >= n_items:
                    return
                i = nxt
                n += 1
        def consumer(c):
            def turn_wait():
                while turn[c] == 0:
                    yield
                turn[c] -= 1
            def turn_pass():
                turn[1 - c] += 1
            k = 0
            if c == 1:
                turn_pass()
            n = 0
            while True:
                qb = n % NQ
                yield from qbar[qb].wait((n // NQ) & 1)
                i = slot[qb]
                if i >= n_items:
                    break
                q0, bh, nt = item(i)
                q_lo = q0 + 64 * c
                my = min(nt, (min(S, q_lo + 64) + BN - 1) // BN) if causal else nt
                def wait_k(j):
                    st = (k + j) % NST
                    yield from fullk[st].wait(((k + j) // NST) & 1)
                    assert kbuf[st] == ('K', i, j), (kbuf[st], i, j)
                def wait_v(j):
                    st = (k + j) % NST
                    yield from fullv[st].wait(((k + j) // NST) & 1)
                    assert vbuf[st] == ('V', i, j), (vbuf[st], i, j)
                def read_q():
                    assert qbuf[qb] == ('Q', i), (qbuf[qb], i)
                yield from wait_k(0)
                yield from turn_wait(); read_q(); turn_pass(); yield
                if my == 1:
                    qempty[qb].arrive(128)
                for j in range(my - 1):
                    yield from wait_k(j + 1)
                    yield from wait_v(j)
                    yield from turn_wait(); read_q(); turn_pass(); yield
                    if j + 2 == my:
                        qempty[qb].arrive(128)
                    yield
                    st = (k + j) % NST
                    assert kbuf[st] == ('K', i, j) and vbuf[st] == ('V', i, j)
                    empty[st].arrive(128)
                j = my - 1
                yield from wait_v(j)
                yield from turn_wait(); turn_pass(); yield
                empty[(k + j) % NST].arrive(128)
                for j in range(my, nt):
                    yield from turn_wait(); turn_pass()
                    yield from wait_k(j); yield from wait_v(j)
                    empty[(k + j) % NST].arrive(128)
                done.add((i, c))
                k += nt
                n += 1
            if c == 0:
                yield from turn_wait()
        run_interleaved([producer(), consumer(0), consumer(1)], inflight, rnd)
        assert turn == [0, 0], turn
    assert done == {(i, c) for i in range(n_items) for c in (0, 1)}, 'items missing'

for D in (64, 128, 256):
    for S in (300, 512, 1000):
        for causal in (False, True):
            for seed in range(3):
                run(D, S, 2, 3, causal, grid=min(4, ((S + 127) // 128) * 6), seed=seed)
    print(f'D={D}: protocol model OK (no deadlock, no buffer overwritten in use, every item once)')
