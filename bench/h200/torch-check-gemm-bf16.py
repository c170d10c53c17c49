"""Sanity check for the cuBLASLt baseline: torch.matmul(A, B.T) on the
gemm_bf16_n*_k* shapes, timed with triton.testing.do_bench (best of 3 medians).

Usage: python3 bench/h200/torch-check-gemm-bf16.py   (on a GPU host with torch and triton)
"""
import torch
from triton.testing import do_bench

print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())
for n, k in [(7168, 5120), (4096, 4096), (14336, 4096)]:
    for m in [4096, 8192, 1024, 3000, 16384]:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        ms = min(do_bench(lambda: torch.matmul(a, b.t()), warmup=25, rep=100, return_mode="median")
                 for _ in range(3))
        print(f"torch.matmul M={m} N={n} K={k}: {ms:.4f} ms  {2*m*n*k/ms/1e9:.1f} TFLOP/s")
