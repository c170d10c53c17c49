"""RMSNorm in Triton with pointer loads: one program per row, the row read
into registers with vector loads, an fp32 reduction across the program's
warps; no bulk copies, no mbarriers."""
import triton
import triton.language as tl

# @ptxbench kernel rmsnorm_rows grid=T num_warps=8
# @ptxbench   args x, w, y
# @ptxbench   constexpr H=4096 EPS=1e-6
@triton.jit
def rmsnorm_rows(x_ptr, w_ptr, y_ptr, H: tl.constexpr, EPS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, H)
    x = tl.load(x_ptr + row * H + offs).to(tl.float32)
    w = tl.load(w_ptr + offs).to(tl.float32)
    rstd = tl.math.rsqrt(tl.sum(x * x, 0) / H + EPS)
    tl.store(y_ptr + row * H + offs, (x * rstd * w).to(tl.bfloat16))
