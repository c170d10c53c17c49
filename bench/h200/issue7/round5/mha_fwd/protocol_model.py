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
each fails (assertion or deadlock). The mbarrier, TMA-load and scheduler machinery is
../../mbarrier_model.py (shared with round 3's models).
Usage: python3 protocol_model.py [--break WHAT]
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from mbarrier_model import MBarrier, run_interleaved, tma_load  # noqa: E402


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
        qfull = [MBarrier(1) for _ in range(2)]
        qempty = [MBarrier(128) for _ in range(2)]
        fullk = [MBarrier(1) for _ in range(NST)]
        fullv = [MBarrier(1) for _ in range(NST)]
        empty = [MBarrier(256) for _ in range(NST)]
        slot = [None, None]
        qbuf = [None, None]
        kbuf = [None] * NST
        vbuf = [None] * NST
        inflight = []
        turn = [0, 0]  # named barriers 1, 2: passes not yet consumed

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
                    yield from empty[st].wait((((k + j) // NST) & 1) ^ 1)
                    tma_load(inflight, fullk[st], kbuf, st, ('K', it[0], j))
                    tma_load(inflight, fullv[st], vbuf, st, ('V', it[0], j))
                    yield

                if more:
                    yield from load_kv(0)
                for c in (0, 1):
                    wait_on = qempty[1 - c] if brk == 'qhalf' else qempty[c]
                    yield from wait_on.wait((n & 1) ^ 1)
                    s = 0 if brk == 'slot' else c
                    slot[s] = it
                    if brk == 'slot':
                        slot[1] = it
                    if not more:
                        qfull[c].arrive(1)  # no more work: the phase completes without a load
                        continue
                    tma_load(inflight, qfull[c], qbuf, c, ('Q', it[0], c))
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
                yield from fullk[st].wait((pos // NST) & 1)

            def wait_v(pos, it, j):
                st = pos % NST
                yield from fullv[st].wait((pos // NST) & 1)

            def check(buf, pos, tag):
                assert buf[pos % NST] == tag, (buf[pos % NST], tag)

            def next_item(n):
                """Wait for this warpgroup's qfull phase n, then read its slot: the item
                (i, q0, bh, n_tiles), or None when the producer has no more work."""
                yield from qfull[c].wait(n & 1)
                return slot[0 if brk == 'slot' else c]

            def store(it):
                key = (it[0], c)
                assert key not in done, ('stored twice', key)
                done[key] = True

            if c == 1:
                turn_pass()
            n = 0
            it = yield from next_item(n)
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
                        nxt_it = yield from next_item(n)
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
                    it = yield from next_item(n)
                    if it is None:
                        break
            if c == 0:
                yield from turn_wait()

        run_interleaved([producer(), consumer(0), consumer(1)], inflight, rnd)
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
