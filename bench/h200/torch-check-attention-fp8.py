"""PyTorch on the attention and fp8 tasks' shapes, the sanity check of the
harness's library baselines: SDPA with the cuDNN backend (forward with LSE and backward) on the
attention tasks' workloads, and torch._scaled_mm (fp8 e4m3, per-tensor
scales, bf16 out) on gemm_fp8_e4m3's. Timed with triton.testing.do_bench
(median, best of 3 calls). The shapes are read from the task files so they
cannot drift from what the harness runs.

Usage: python3 bench/h200/torch-check-attention-fp8.py [TASKS_DIR]
"""
import json
import math
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

tasks = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "tasks")


def bench(fn):
    return min(do_bench(fn, warmup=10, rep=50, return_mode="median") for _ in range(3))


def workloads(name):
    t = json.load(open(os.path.join(tasks, name, "task.json")))
    return t["workloads"]["dev"] + t["workloads"]["heldout"]


print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
      torch.cuda.get_device_name(), flush=True)

for name in ["mha_fwd_lse_h48_d128", "mha_fwd_lse_h48_d128_causal", "mha_fwd_lse_h48_d64",
             "mha_fwd_lse_h48_d256", "mha_bwd_h48_d128", "mha_bwd_h48_d128_causal"]:
    bwd = name.startswith("mha_bwd")
    for w in workloads(name):
        b, h, s, d, causal = w["B"], w["H"], w["S"], w["D"], bool(w["CAUSAL"])
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=bwd)
                   for _ in range(3))
        flops = (2 if causal else 4) * b * h * s * s * d * (2.5 if bwd else 1)
        try:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                if not bwd:
                    ms = bench(lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, scale=1 / math.sqrt(d)))
                else:
                    o = torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, scale=1 / math.sqrt(d))
                    do = torch.randn_like(o)
                    ms = bench(lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True))
            print(f"{name} {w['name']}: torch SDPA (cuDNN) {ms:.4f} ms  {flops / ms / 1e9:.1f} TFLOP/s",
                  flush=True)
        except Exception as e:  # a backend that refuses the shape is a result too
            print(f"{name} {w['name']}: torch SDPA (cuDNN) failed: {str(e).splitlines()[0][:200]}",
                  flush=True)
        del q, k, v
        torch.cuda.empty_cache()

for w in workloads("gemm_fp8_e4m3"):
    m, n, k = w["M"], w["N"], w["K"]
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    bm = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    sa = torch.tensor(0.5, device="cuda")
    sb = torch.tensor(1.5, device="cuda")
    try:
        ms = bench(lambda: torch._scaled_mm(a, bm.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16))
        print(f"gemm_fp8_e4m3 {w['name']}: torch._scaled_mm {ms:.4f} ms  {2 * m * n * k / ms / 1e9:.1f} TFLOP/s",
              flush=True)
    except Exception as e:
        print(f"gemm_fp8_e4m3 {w['name']}: torch._scaled_mm failed: {str(e).splitlines()[0][:200]}", flush=True)
