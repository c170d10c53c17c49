#!/usr/bin/env python3
"""CPU model of v12's barrier protocol (v12_item_overlap.cu): per-warpgroup Q halves and item
slots, the K/V ring, ping-pong turns, dynamic items, and for D <= 128 the items of a CTA run as
one pipeline (the turn that ends an item issues the next item's first Q K^T).

Style of round 3's model (bench/h200/issue7/round3/mha_fwd/protocol_model.py): the producer and
the two consumer warpgroups are Python generators under a random scheduler; a warpgroup is one
agent whose mbarrier arrivals count 128; mbarriers are phases with parity waits; TMA writes a tag
into the buffer and completes its transaction at a random later step. wgmma reads are modelled
as happening between the turn's wait and the step's wait_group (a yield in between), and every
read checks that the buffer holds the tag of the item and tile it expects, so a buffer
overwritten while in use, or read before it landed, fails an assertion. Also checked: every item
done once by each warpgroup, each warpgroup's O stored exactly once per item after its last P V,
no named-barrier arrival left over at exit, no deadlock (no agent can move for a long time).

It has teeth: --break qhalf makes the producer reload a Q half on the other warpgroup's qempty,
--break ring runs a one-stage ring, --break slot shares one item slot between the warpgroups;
each fails (assertion or deadlock). Usage: python3 protocol_model.py [--break WHAT]
"""
import argparse
import random


class MBar:
    def __init__(self, count):
        self.count, self.pending, self.phase, self.tx = count, count, 0, 0

    def arrive(self, n=1, tx=0):
        self.tx += tx
        self.pending -= n
        assert self.pending >= 0, 'more arrivals than the count'
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


def run(D, S, B, H, causal, grid, seed, brk=None):
    rnd = random.Random(seed)
    BM = 128
    BN = 128 if D <= 128 else 64
    NST = 1 if brk == 'ring' else (3 if D <= 128 else 2)
    pingpong = D <= 128
    n_qt = (S + BM - 1) // BM
    n_items = n_qt * H * B

    def item(i):
        bh, qt = divmod(i, n_qt)
        q0 = qt * BM
        kv_end = min(S, q0 + BM) if causal else S
        return (i, q0, bh, (kv_end + BN - 1) // BN)

    counter = [0]
    done = {}
    for cta in range(grid):
        qfull = [MBar(1) for _ in range(2)]
        qempty = [MBar(128) for _ in range(2)]
        fullk = [MBar(1) for _ in range(NST)]
        fullv = [MBar(1) for _ in range(NST)]
        empty = [MBar(256) for _ in range(NST)]
        slot = [None, None]
        qbuf = [None, None]
        kbuf = [None] * NST
        vbuf = [None] * NST
        inflight = []
        turn = [0, 0]  # named barriers 1, 2: passes not yet consumed

        def tma(bar, buf, idx, tag):
            bar.arrive(1, tx=1)
            inflight.append((bar, buf, idx, tag))

        def producer():
            k, i = 0, cta
            n = 0
            while True:
                more = i < n_items
                it = item(i) if more else None
                nxt = None
                if more:
                    nxt = grid + counter[0]
                    counter[0] += 1

                def load_kv(j):
                    st = (k + j) % NST
                    while not empty[st].ready((((k + j) // NST) & 1) ^ 1):
                        yield
                    tma(fullk[st], kbuf, st, ('K', it[0], j))
                    tma(fullv[st], vbuf, st, ('V', it[0], j))
                    yield

                if more:
                    yield from load_kv(0)
                for c in (0, 1):
                    wait_on = qempty[1 - c] if brk == 'qhalf' else qempty[c]
                    while not wait_on.ready((n & 1) ^ 1):
                        yield
                    s = 0 if brk == 'slot' else c
                    slot[s] = it
                    if brk == 'slot':
                        slot[1] = it
                    if not more:
                        qfull[c].arrive(1)  # no more work: the phase completes without a load
                        continue
                    tma(qfull[c], qbuf, c, ('Q', it[0], c))
                    yield
                if not more:
                    return
                for j in range(1, it[3]):
                    yield from load_kv(j)
                k += it[3]
                i = nxt
                n += 1

        def consumer(c):
            def turn_wait():
                if pingpong:
                    while turn[c] == 0:
                        yield
                    turn[c] -= 1

            def turn_pass():
                if pingpong:
                    turn[1 - c] += 1

            def wait_k(pos, it, j):
                st = pos % NST
                while not fullk[st].ready((pos // NST) & 1):
                    yield

            def wait_v(pos, it, j):
                st = pos % NST
                while not fullv[st].ready((pos // NST) & 1):
                    yield

            def check(buf, pos, tag):
                assert buf[pos % NST] == tag, (buf[pos % NST], tag)

            def read_slot():
                return slot[0 if brk == 'slot' else c]

            def store(it):
                key = (it[0], c)
                assert key not in done, ('stored twice', key)
                done[key] = True

            if c == 1:
                turn_pass()
            n = 0
            while not qfull[c].ready(n & 1):
                yield
            it = read_slot()
            if it is not None and pingpong:
                # One pipeline over all items (consume_pipelined).
                pos_of = {}  # ring position -> (item, tile)
                kc = 0
                pos_of[0] = (it[0], 0)
                yield from wait_k(0, it, 0)
                yield from turn_wait()
                check(kbuf, 0, ('K', it[0], 0)); assert qbuf[c] == ('Q', it[0], c)
                turn_pass()
                yield
                check(kbuf, 0, ('K', it[0], 0)); assert qbuf[c] == ('Q', it[0], c)
                if it[3] == 1:
                    qempty[c].arrive(128)
                left = it[3] - 1
                cur = it
                while True:
                    ends = left == 0
                    nxt_it = cur
                    if ends:
                        n += 1
                        while not qfull[c].ready(n & 1):
                            yield
                        nxt_it = read_slot()
                        if nxt_it is None:
                            break
                        left = nxt_it[3]
                        jn = 0
                    else:
                        jn = cur[3] - left
                    kn = kc + 1
                    ic, jc = pos_of[kc]
                    pos_of[kn] = (nxt_it[0], jn)
                    yield from wait_k(kn, nxt_it, jn)
                    yield from wait_v(kc, cur, jc)
                    yield from turn_wait()
                    # Q K^T(kn) and P V(kc) issued; they read until the wait_groups.
                    check(kbuf, kn, ('K', nxt_it[0], jn)); check(vbuf, kc, ('V', ic, jc))
                    assert qbuf[c] == ('Q', nxt_it[0], c), (qbuf[c], nxt_it[0], c)
                    turn_pass()
                    yield
                    check(kbuf, kn, ('K', nxt_it[0], jn)); assert qbuf[c] == ('Q', nxt_it[0], c)
                    if left == 1:
                        qempty[c].arrive(128)  # last Q K^T of nxt_it
                    yield
                    check(vbuf, kc, ('V', ic, jc))
                    empty[kc % NST].arrive(128)
                    if ends:
                        store(cur)
                    cur = nxt_it
                    kc = kn
                    left -= 1
                ic, jc = pos_of[kc]
                yield from wait_v(kc, cur, jc)
                yield from turn_wait()
                check(vbuf, kc, ('V', ic, jc))
                turn_pass()
                yield
                check(vbuf, kc, ('V', ic, jc))
                empty[kc % NST].arrive(128)
                store(cur)
            elif it is not None:
                # D = 256: one pipeline per item (consume_item), v8's order.
                k = 0
                while True:
                    i, q0, bh, nt = it
                    q_lo = q0 + 64 * c
                    my = min(nt, (min(S, q_lo + 64) + BN - 1) // BN) if causal else nt
                    yield from wait_k(k, it, 0)
                    yield from turn_wait(); check(kbuf, k, ('K', i, 0)); turn_pass(); yield
                    assert qbuf[c] == ('Q', i, c)
                    if my == 1:
                        qempty[c].arrive(128)
                    for j in range(my - 1):
                        yield from wait_k(k + j + 1, it, j + 1)
                        yield from wait_v(k + j, it, j)
                        yield from turn_wait()
                        check(kbuf, k + j + 1, ('K', i, j + 1)); check(vbuf, k + j, ('V', i, j))
                        assert qbuf[c] == ('Q', i, c)
                        turn_pass(); yield
                        if j + 2 == my:
                            qempty[c].arrive(128)
                        yield
                        check(vbuf, k + j, ('V', i, j))
                        empty[(k + j) % NST].arrive(128)
                    j = my - 1
                    yield from wait_v(k + j, it, j)
                    yield from turn_wait(); check(vbuf, k + j, ('V', i, j)); turn_pass(); yield
                    empty[(k + j) % NST].arrive(128)
                    for j in range(my, nt):
                        yield from turn_wait(); turn_pass()
                        yield from wait_k(k + j, it, j); yield from wait_v(k + j, it, j)
                        check(kbuf, k + j, ('K', i, j))
                        empty[(k + j) % NST].arrive(128)
                    store(it)
                    k += nt
                    n += 1
                    while not qfull[c].ready(n & 1):
                        yield
                    it = read_slot()
                    if it is None:
                        break
            if c == 0:
                yield from turn_wait()

        alive = [producer(), consumer(0), consumer(1)]
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
                stuck = 0
            stuck += 1
            if stuck > 200000:
                raise RuntimeError('deadlock')
        assert turn == [0, 0], turn
    want = {(i, c) for i in range(n_items) for c in (0, 1)}
    assert set(done) == want, 'items missing'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--break', dest='brk', choices=['qhalf', 'ring', 'slot'])
    a = ap.parse_args()
    failures = 0
    for D in (64, 128, 256):
        for S in (200, 300, 512, 1000):
            for causal in (False, True):
                for seed in range(25):
                    try:
                        run(D, S, 2, 3, causal, grid=min(4, ((S + 127) // 128) * 6), seed=seed,
                            brk=a.brk)
                    except (AssertionError, RuntimeError) as e:
                        failures += 1
                        if a.brk is None:
                            raise
                        last = f'{type(e).__name__}: {str(e)[:80]}'
        print(f'D={D}: ' + ('protocol model OK (no deadlock, no buffer overwritten or read early, '
                            'every item stored once per warpgroup)' if not failures else
                            f'{failures} failing runs so far (e.g. {last})'))
    if a.brk is not None and failures == 0:
        raise SystemExit(f'--break {a.brk} was not caught')


if __name__ == '__main__':
    main()
