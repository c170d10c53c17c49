#!/usr/bin/env python3
"""numpy checks of what v12 (v12_item_overlap.cu) changes in the data, beside the expert's
emulator (tasks/mha_fwd/emulate_wgmma_tma.py, whose math v12 keeps).

1. Q halves: two 64-row TMA boxes at base + c * 8192 (per 64-column block at cb * 16384) put
   every byte where v8's one 128-row box did, under the 128B swizzle (16-byte chunk j of the
   128-byte row at shared address a lands in chunk j ^ ((a >> 7) & 7)).
2. The item restart: v12 never zeroes O with moves. At the turn that ends item i it resets
   m = -inf, l = 0, so the next softmax yields corr = 0, and o *= corr zeroes O after item i's
   store. Per row, float32, over several items of several tiles: the O and LSE this gives are
   bit-identical to v8's (O = 0 at each item's start), as long as O is finite; a NaN survives
   (NaN * 0), which is why v12 loads a Q half wholly past S from row S - 1 instead of leaving it
   unwritten.
Usage: python3 check_v12_dataflow.py  (exit 0 when all hold)
"""
import numpy as np

rng = np.random.default_rng(7)
f32 = np.float32


def sw128_image(boxes, size):
    """Shared-memory bytes after TMA writes boxes = [(dst, rows[r] = 128 bytes)]."""
    mem = np.full(size, -1, dtype=np.int64)
    for dst, rows in boxes:
        for r, row in enumerate(rows):
            a = dst + 128 * r
            for j in range(8):
                pj = j ^ ((a >> 7) & 7)
                mem[a + 16 * pj:a + 16 * pj + 16] = row[16 * j:16 * j + 16]
    return mem


def check_q_halves(D):
    q = rng.integers(0, 1 << 16, size=(128, 2 * D))  # 128 rows of D bf16, as byte-ish tags
    base = 4096  # any 1024-aligned start
    blocks = D // 64
    v8 = [(base + cb * 128 * 128, [q[r, 128 * cb:128 * cb + 128] for r in range(128)])
          for cb in range(blocks)]
    v12 = [(base + cb * 128 * 128 + c * 64 * 128,
            [q[64 * c + r, 128 * cb:128 * cb + 128] for r in range(64)])
           for cb in range(blocks) for c in range(2)]
    size = base + blocks * 128 * 128
    assert np.array_equal(sw128_image(v8, size), sw128_image(v12, size)), D


def softmax_rows(items, restart):
    """items: list of (scores [tiles, BN], values [tiles, BN, D]); returns O and LSE per item."""
    c = f32(1.4426950408889634 / np.sqrt(128))
    outs = []
    o = None
    m, l = f32(-np.inf), f32(0)
    for n, (s, v) in enumerate(items):
        if restart == 'v8' or o is None:
            o = np.zeros(v.shape[2], f32)
            m, l = f32(-np.inf), f32(0)
        else:
            m, l = f32(-np.inf), f32(0)  # v12: o is zeroed by the rescale of the first tile
        for j in range(s.shape[0]):
            m_new = max(m, f32(s[j].max() * c))
            corr = np.exp2(f32(m - m_new))
            p = np.exp2((s[j] * c - m_new).astype(f32)).astype(f32)
            l = f32(l * corr + p.sum(dtype=f32))
            if j == 0 and restart == 'v12' and n > 0:
                o = (o * corr).astype(f32)  # the previous item's O, times 0
                o = (o + p @ v[j]).astype(f32)
            else:
                o = (o * corr + p @ v[j]).astype(f32) if j else (o + p @ v[j]).astype(f32)
            m = m_new
        outs.append(((o / l).astype(f32), f32((m + np.log2(l)) * np.log(2))))
    return outs


def check_restart():
    for trial in range(20):
        items = []
        for n in range(5):
            tiles = int(rng.integers(1, 5))
            s = (rng.standard_normal((tiles, 128)) * rng.uniform(1, 40)).astype(f32)
            v = rng.standard_normal((tiles, 128, 16)).astype(f32)
            items.append((s, v))
        a, b = softmax_rows(items, 'v8'), softmax_rows(items, 'v12')
        for (oa, la), (ob, lb) in zip(a, b):
            assert np.array_equal(oa, ob) and la == lb, trial
    # A NaN left in O (a row computed from never-written Q) survives the restart.
    o = np.array([np.nan, 1.0], f32) * f32(0)
    assert np.isnan(o[0]) and o[1] == 0


for D in (64, 128, 256):
    check_q_halves(D)
print('Q halves: bytes identical to one 128-row box under the 128B swizzle (D = 64, 128, 256)')
check_restart()
print('item restart through corr = 0: O and LSE bit-identical to zeroing O (finite O); '
      'NaN survives, hence the clamped Q-half load')
