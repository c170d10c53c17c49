#!/usr/bin/env python3
"""hoist_desc.py - applies round 4's descriptor change to a GEMM variant (issue 7).

  hoist_desc.py IN.cu OUT.cu

Rewrites every `desc_sw128(X + 32 * k)` / `desc_sw128(X)` wgmma operand into
`desc_of(desc_lo(X) + 2 * k)` / `desc_of(desc_lo(X))`, adds those two helpers
after desc_sw128, and broadcasts the warpgroup index from lane 0 so that ptxas
can prove it warp-uniform and keep the descriptor words in uniform registers
(README.md in desc/ has the evidence). The header gets one line saying so.
Fails loudly when a pattern it expects is missing, so a variant that does not
fit is not silently left unchanged.
"""
import re
import sys

HELPERS = '''
// Round 4 (bench/h200/issue7/round4/hoist_desc.py): the low word of a 128B-swizzled K-major
// descriptor is (addr >> 4) | 1 << 16, the high word a constant; smem addresses stay below 2^18,
// so k offsets are added to the low word (no mask/shift chain and R2UR around every wgmma).
__device__ __forceinline__ uint32_t desc_lo(uint32_t smem_addr) { return (smem_addr >> 4) | (1u << 16); }
__device__ __forceinline__ uint64_t desc_of(uint32_t lo) { return (0x40000040ull << 32) | lo; }
'''


def hoist(s, src, dst):
    """Returns the source text s (of file src) rewritten for dst."""
    m = re.search(r'__device__ __forceinline__ uint64_t desc_sw128\(uint32_t smem_addr\) \{.*?\n\}\n', s,
                  re.S)
    if not m:
        sys.exit(f'{src}: no desc_sw128 definition')
    s = s[:m.end()] + HELPERS + s[m.end():]
    s, n_wg = re.subn(r'wg = tid / 128;', 'wg = __shfl_sync(0xffffffffu, tid / 128, 0); // warp-uniform', s)
    s, n_k = re.subn(r'desc_sw128\(([^()]+?) \+ 32 \* k\)', r'desc_of(desc_lo(\1) + 2 * k)', s)
    s, n_0 = re.subn(r'desc_sw128\((\w+)\)', r'desc_of(desc_lo(\1))', s)
    if n_wg != 1 or n_k == 0:
        sys.exit(f'{src}: expected one "wg = tid / 128;" and desc_sw128(X + 32 * k) operands '
                 f'(found {n_wg}, {n_k})')
    s = (f'// {dst.split("/")[-1]}: {src.split("/")[-1]} with round 4\'s descriptor change '
         f'(hoist_desc.py: {n_k + n_0} operands).\n') + s
    return s


def main(src, dst):
    open(dst, 'w').write(hoist(open(src).read(), src, dst))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
