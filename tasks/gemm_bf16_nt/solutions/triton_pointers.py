"""C = A @ B^T in Triton with pointer loads: no descriptors, so Triton
pipelines the K loop with cp.async into shared memory (no TMA, no
transaction-count mbarriers) and still lowers tl.dot to wgmma. Masks
cover the ragged M edge."""
import triton
import triton.language as tl

# @ptxbench kernel gemm_pointers grid=(ceildiv(M, 128), ceildiv(N, 128)) num_warps=8 num_stages=3
# @ptxbench   args A, B, C, M, N, K
# @ptxbench   constexpr BLOCK_M=128 BLOCK_N=128 BLOCK_K=64
@triton.jit
def gemm_pointers(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
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
