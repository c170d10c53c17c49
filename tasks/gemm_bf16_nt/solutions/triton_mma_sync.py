"""C = A @ B^T in Triton with 16-row tiles and one warp per program:
wgmma needs a warpgroup and 64 rows, so Triton lowers tl.dot to the
Ampere mma.sync instead, fed by cp.async."""
import triton
import triton.language as tl

# @ptxbench kernel gemm_small_tiles grid=(ceildiv(M, 16), ceildiv(N, 64)) num_warps=1 num_stages=3
# @ptxbench   args A, B, C, M, N, K
# @ptxbench   constexpr BLOCK_M=16 BLOCK_N=64 BLOCK_K=64
@triton.jit
def gemm_small_tiles(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=offs_m[:, None] < M)
