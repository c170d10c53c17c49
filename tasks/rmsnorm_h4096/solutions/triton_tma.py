"""RMSNorm in Triton with host-side tensor descriptors: each program loads
ROWS rows of x into shared memory by TMA (one descriptor load of a
[ROWS, H] block, which Triton issues as bulk tensor copies completing on a
transaction-count mbarrier), reduces in fp32 and stores y by TMA."""
import triton
import triton.language as tl

# @ptxbench kernel rmsnorm_tma grid=ceildiv(T, 2) num_warps=8 num_stages=1
# @ptxbench   args x_desc, w, y_desc
# @ptxbench   constexpr ROWS=2 H=4096 EPS=1e-6
# @ptxbench tensormap x_desc tensor=x box=(2, 4096)
# @ptxbench tensormap y_desc tensor=y box=(2, 4096)
@triton.jit
def rmsnorm_tma(x_desc, w_ptr, y_desc, ROWS: tl.constexpr, H: tl.constexpr,
                EPS: tl.constexpr):
    row = tl.program_id(0) * ROWS
    x = x_desc.load([row, 0]).to(tl.float32)
    w = tl.load(w_ptr + tl.arange(0, H)).to(tl.float32)
    rstd = tl.math.rsqrt(tl.sum(x * x, 1) / H + EPS)
    y = x * rstd[:, None] * w[None, :]
    y_desc.store([row, 0], y.to(tl.bfloat16))
