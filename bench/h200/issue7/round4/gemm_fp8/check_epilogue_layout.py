#!/usr/bin/env python3
"""check_epilogue_layout.py - CPU check of v9's shared-memory staging of C.

v9_tile128_tma_store.cu writes each consumer's 64x128 bf16 output into two 64x64 boxes laid out
as the TMA 128B swizzle expects, then stores them with cp.async.bulk.tensor. This replays the
kernel's address arithmetic for every thread and accumulator register and checks, against an
independent model of the swizzle (byte address bits [4:6] XOR bits [7:9] of the box's row-major
byte offset, box 1024-byte aligned):
  1. every (row, column) of the 64x128 block is written exactly once, by the register the
     m64n128 wgmma fragment puts it in, at the address the TMA reads that element from;
  2. each warp-wide 4-byte st.shared hits 32 different banks (no bank conflicts).
Run: python3 bench/h200/issue7/round4/gemm_fp8/check_epilogue_layout.py  (prints OK or fails).
"""

BOX_BYTES = 64 * 64 * 2  # one 64x64 bf16 box


def fragment(w, l, i):
    """(row, col) of accumulator register i of lane l in warp w: the m64nN wgmma layout."""
    return 16 * w + l // 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (l % 4) + (i & 1)


def kernel_address(w, l, i):
    """Byte offset in the consumer's staging buffer, as v9 computes it (i even)."""
    r = 16 * w + l // 4 + 8 * ((i >> 1) & 1)
    box, chunk = i >> 5, (i >> 2) & 7
    return box * BOX_BYTES + r * 128 + ((chunk ^ (r & 7)) << 4) + 4 * (l % 4)


def tma_address(row, col):
    """Where a 128B-swizzled TMA box keeps element (row, col) of the 64x128 block."""
    box, c = col // 64, col % 64
    linear = row * 128 + 2 * c  # row-major box, 128-byte rows
    swizzled = linear ^ (((linear >> 7) & 7) << 4)
    return box * BOX_BYTES + swizzled


def main():
    seen = {}
    for w in range(4):
        for l in range(32):
            for i in range(0, 64, 2):
                addr = kernel_address(w, l, i)
                for half in range(2):  # the bf16x2 holds registers i and i + 1
                    row, col = fragment(w, l, i + half)
                    assert tma_address(row, col) == addr + 2 * half, (w, l, i, half)
                    assert (row, col) not in seen, (row, col)
                    seen[(row, col)] = addr + 2 * half
    assert len(seen) == 64 * 128
    assert sorted(seen.values()) == list(range(0, 2 * BOX_BYTES, 2))
    for w in range(4):
        for i in range(0, 64, 2):
            banks = {(kernel_address(w, l, i) // 4) % 32 for l in range(32)}
            assert len(banks) == 32, (w, i, sorted(banks))
    print("OK: 64x128 block written once, in the TMA 128B-swizzle layout, conflict-free")


if __name__ == "__main__":
    main()
