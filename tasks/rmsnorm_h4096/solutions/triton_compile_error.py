"""Broken on purpose: tl.arange over 4000 elements, which Triton refuses
(its ranges are powers of two)."""
import triton
import triton.language as tl

# @ptxbench kernel rmsnorm_rows grid=T num_warps=8
# @ptxbench   args x, w, y
# @ptxbench   constexpr H=4096 EPS=1e-6
@triton.jit
def rmsnorm_rows(x_ptr, w_ptr, y_ptr, H: tl.constexpr, EPS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, 4000)
    x = tl.load(x_ptr + row * H + offs).to(tl.float32)
    w = tl.load(w_ptr + offs).to(tl.float32)
    rstd = tl.math.rsqrt(tl.sum(x * x, 0) / H + EPS)
    tl.store(y_ptr + row * H + offs, (x * rstd * w).to(tl.bfloat16))
