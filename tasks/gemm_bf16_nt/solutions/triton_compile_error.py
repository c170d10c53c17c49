"""Broken on purpose: tl.dot of a [BLOCK_M, BLOCK_K] tile with a
[BLOCK_N, BLOCK_K] tile (B not transposed), which Triton rejects."""
import triton
import triton.language as tl

# @ptxbench kernel gemm_tma grid=(ceildiv(M, 128), ceildiv(N, 128)) num_warps=8 num_stages=4
# @ptxbench   args a_desc, b_desc, c_desc, K
# @ptxbench   constexpr BLOCK_M=128 BLOCK_N=128 BLOCK_K=64
# @ptxbench tensormap a_desc tensor=A box=(128, 64)
# @ptxbench tensormap b_desc tensor=B box=(128, 64)
# @ptxbench tensormap c_desc tensor=C box=(128, 128)
@triton.jit
def gemm_tma(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.bfloat16))
