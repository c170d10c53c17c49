#!/usr/bin/env python3
"""CPU model of v7's barrier protocol (double-buffered Q, K/V ring, ping-pong turns, dynamic items).

Producer and the two consumer warpgroups run as Python generators under a random scheduler; a
warpgroup is one agent whose mbarrier arrival counts 128. mbarriers are modelled by phase with
parity waits (try_wait.parity passes while the barrier's current phase parity differs from the
parity asked); TMA writes a tag into the buffer and completes the transaction at a random later
step. Each consumer checks that the Q, K and V it reads carry the tags of its own item and tile
(so no buffer is overwritten while in use) and that every item is done once. Deadlock = no agent
can move. Usage: python3 protocol_model.py  (prints one line per configuration).
"""
import random

class MBar:
    def __init__(self, count):
        self.count, self.pending, self.phase, self.tx = count, count, 0, 0
    def arrive(self, n=1, tx=0):
        self.tx += tx
        self.pending -= n
        self._maybe_flip()
    def complete_tx(self, b):
        self.tx -= b
        self._maybe_flip()
    def _maybe_flip(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count
    def ready(self, parity):  # try_wait.parity: true once the phase with this parity completed
        return (self.phase & 1) != parity

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
        qbar = [MBar(1) for _ in range(NQ)]
        qempty = [MBar(256) for _ in range(NQ)]
        fullk = [MBar(1) for _ in range(NST)]
        fullv = [MBar(1) for _ in range(NST)]
        empty = [MBar(256) for _ in range(NST)]
        slot = [None] * NQ
        qbuf = [None] * NQ
        kbuf = [None] * NST
        vbuf = [None] * NST
        inflight = []  # (barrier, buffer list, index, tag)
        turn = [0, 0]  # named barriers 1, 2: arrivals of the passing side not yet consumed
        def tma(bar, buf, idx, tag):
            bar.arrive(1, tx=1)
            inflight.append((bar, buf, idx, tag))
        def producer():
            def issue_q(m, it):
                b = m % NQ
                while not qempty[b].ready(((m // NQ) & 1) ^ 1):
                    yield
                slot[b] = it
                if it >= n_items:
                    qbar[b].arrive(1)
                    return
                tma(qbar[b], qbuf, b, ('Q', it))
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
                    while not empty[st].ready(((k // NST) & 1) ^ 1):
                        yield
                    tma(fullk[st], kbuf, st, ('K', i, j))
                    tma(fullv[st], vbuf, st, ('V', i, j))
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
                while not qbar[qb].ready((n // NQ) & 1):
                    yield
                i = slot[qb]
                if i >= n_items:
                    break
                q0, bh, nt = item(i)
                q_lo = q0 + 64 * c
                my = min(nt, (min(S, q_lo + 64) + BN - 1) // BN) if causal else nt
                def wait_k(j):
                    st = (k + j) % NST
                    while not fullk[st].ready(((k + j) // NST) & 1):
                        yield
                    assert kbuf[st] == ('K', i, j), (kbuf[st], i, j)
                def wait_v(j):
                    st = (k + j) % NST
                    while not fullv[st].ready(((k + j) // NST) & 1):
                        yield
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
        agents = [producer(), consumer(0), consumer(1)]
        alive = list(agents)
        stuck = 0
        while alive or inflight:
            if inflight and rnd.random() < 0.3:
                bar, buf, idx, tag = inflight.pop(rnd.randrange(len(inflight)))
                buf[idx] = tag
                bar.complete_tx(1)
                stuck = 0
                continue
            if not alive:
                continue
            a = rnd.choice(alive)
            try:
                next(a)
            except StopIteration:
                alive.remove(a)
            stuck += 1
            if stuck > 200000:
                raise RuntimeError('deadlock')
        assert turn == [0, 0], turn
    assert done == {(i, c) for i in range(n_items) for c in (0, 1)}, 'items missing'

for D in (64, 128, 256):
    for S in (300, 512, 1000):
        for causal in (False, True):
            for seed in range(3):
                run(D, S, 2, 3, causal, grid=min(4, ((S + 127) // 128) * 6), seed=seed)
    print(f'D={D}: protocol model OK (no deadlock, no buffer overwritten in use, every item once)')
