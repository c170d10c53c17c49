"""Triton kernels for the wild corpus, compiled ahead of time by
test/wild/generate.py for sm_90a and sm_100a (no GPU needed).

KERNELS maps a corpus name to the jitted function, its signature and
constexprs (triton.compiler.ASTSource), the compile options, and the
arguments Triton's launcher would find divisible by 16 (aligned pointers,
sizes and strides that are multiples of 16), which it specializes on.
"""
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
           BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A @ B (row-major, fp16 in, fp32 accumulation), pointer loads with
    masks, grouped tile order for L2 reuse."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * tiles_n)
    first_m = group * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * tiles_n)) % rows
    pid_n = (pid % (GROUP_M * tiles_n)) // rows

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc.to(tl.float16), mask=mask)


@triton.jit
def matmul_tma_ws(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B^T (bf16, A M x K and B N x K row-major) through tensor
    descriptors made on the device (TMA), with Triton's automatic warp
    specialization of the K loop."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3,
                      warp_specialize=True):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.bfloat16))


@triton.jit
def attention_fwd(q_desc, k_desc, v_desc, o_desc, lse_ptr, seq_len, scale,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    """Flash-attention forward, one (batch*head, query block) per program:
    Q, K, V and O are (batch*heads*seq_len, HEAD_DIM) bf16 behind host-made
    tensor descriptors; online softmax in base 2; writes O and the
    log-sum-exp."""
    start_m = tl.program_id(0) * BLOCK_M
    row0 = tl.program_id(1) * seq_len
    q = q_desc.load([row0 + start_m, 0])
    m_i = tl.full((BLOCK_M, ), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M, ), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * 1.4426950408889634
    for start_n in tl.range(0, seq_len, BLOCK_N):
        k = k_desc.load([row0 + start_n, 0])
        s = tl.dot(q, k.T) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(tl.bfloat16), v, acc * alpha[:, None])
        m_i = m_new
    acc = acc / l_i[:, None]
    offs_m = start_m + tl.arange(0, BLOCK_M)
    tl.store(lse_ptr + row0 + offs_m, m_i + tl.math.log2(l_i))
    o_desc.store([row0 + start_m, 0], acc.to(tl.bfloat16))


_D = 128
_ATT_DESC = f"tensordesc<bf16[128,{_D}]>"

# name -> (function, signature, constexprs, compile options, arguments
# divisible by 16)
_MATMUL_SIG = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
    "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32",
    "stride_cm": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
    "BLOCK_K": "constexpr", "GROUP_M": "constexpr"}
_MATMUL_CONST = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}
KERNELS = {
    "triton_matmul": (
        matmul, _MATMUL_SIG, _MATMUL_CONST, {"num_warps": 8, "num_stages": 3},
        ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk",
         "stride_cm"],
    ),
    # The same kernel for shapes that are not multiples of 16: no
    # specialization, so Triton can neither vectorize nor use cp.async.
    "triton_matmul_unaligned": (
        matmul, _MATMUL_SIG, _MATMUL_CONST, {"num_warps": 8, "num_stages": 3},
        [],
    ),
    "triton_matmul_tma_ws": (
        matmul_tma_ws,
        {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": "i32",
         "N": "i32", "K": "i32", "BLOCK_M": "constexpr",
         "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
        {"num_warps": 4, "num_stages": 3},
        ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
    ),
    "triton_attention_fwd": (
        attention_fwd,
        {"q_desc": _ATT_DESC, "k_desc": _ATT_DESC, "v_desc": _ATT_DESC,
         "o_desc": _ATT_DESC, "lse_ptr": "*fp32", "seq_len": "i32",
         "scale": "fp32", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr",
         "BLOCK_N": "constexpr"},
        {"HEAD_DIM": _D, "BLOCK_M": 128, "BLOCK_N": 128},
        {"num_warps": 8, "num_stages": 2},
        ["lse_ptr", "seq_len"],
    ),
}
