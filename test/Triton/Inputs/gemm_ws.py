"""C = A @ B^T with descriptors made on the device (tl.make_tensor_descriptor,
which live in Triton's global scratch) and a warp-specialized K loop, which
adds warps to the ones the plan asks for."""
import triton
import triton.language as tl

# @ptxbench kernel gemm_ws grid=(ceildiv(M, 128), ceildiv(N, 128)) num_warps=4 num_stages=3
# @ptxbench   args A, B, C, M, N, K
# @ptxbench   constexpr BLOCK_M=128 BLOCK_N=128 BLOCK_K=64
@triton.jit
def gemm_ws(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=True):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.bfloat16))
