#!/usr/bin/env python3
"""Runs the mha_fwd_fp8 corpus on a GPU without ptxbench, against its reference.

For a machine with CUDA, PyTorch and CuPy but no ptxbench build: each
solution of tasks/mha_fwd_fp8/solutions whose launch plan is the fallback's
(grid (ceildiv(S, 64), H, B), 128 threads, 384*(D+8) bytes of shared
memory, the tasks' arguments in order) is compiled with NVRTC (CuPy) for
sm_90a and launched on inputs drawn as the tasks draw them (normal(0, 16)
rounded to e4m3, descales uniform in [0.04, 0.08]); its O and LSE are
compared with tasks/mha_fwd_fp8/reference.py under the tasks' tolerances
(utils/make-attention-tasks.py). Prints one line per solution and shape,
with the verdict the harness would give (PASSED or INCORRECT), and the
reference's time at the largest held-out shape. A quick check of the
kernels' arithmetic, not a replacement for `ptxbench run`.

Usage: bench/h200/fp8-attention-check.py [--seed N]
"""
import argparse
import importlib.util
import math
import os
import sys
import time

import cupy as cp
import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SOLUTIONS = os.path.join(ROOT, "tasks", "mha_fwd_fp8", "solutions")
sys.path.insert(0, os.path.join(ROOT, "utils"))
spec = importlib.util.spec_from_file_location(
    "make_attention_tasks", os.path.join(ROOT, "utils", "make-attention-tasks.py"))
tasks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tasks)
spec = importlib.util.spec_from_file_location(
    "reference", os.path.join(ROOT, "tasks", "mha_fwd_fp8", "reference.py"))
reference = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reference)

FILES = {"mma_sync_dequant.cu": "PASSED", "lse_log2.cu": "INCORRECT",
         "no_descale.cu": "INCORRECT"}
SHAPES = [(2, 3, 1000, 64, 0), (1, 4, 1000, 96, 1), (2, 2, 777, 128, 0),
          (1, 4, 1000, 128, 1), (1, 2, 700, 256, 0), (1, 2, 1000, 256, 1)]


def draw(b, h, s, d):
    x = [(torch.randn(b, h, s, d) * 16).to(torch.float8_e4m3fn) for _ in range(3)]
    scales = [torch.empty(1).uniform_(0.04, 0.08) for _ in range(3)]
    return x, scales


def verdict(out, ref, atol, rtol, rel_l2):
    out, ref = out.double(), ref.double()
    err = (out - ref).abs()
    within = bool((err <= atol + rtol * ref.abs()).all()) and bool(torch.isfinite(out).all())
    l2 = (err.norm() / ref.norm()).item()
    return within and l2 <= rel_l2, err.max().item(), l2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_default_device("cuda")
    failures = 0
    for name, expected in FILES.items():
        src = open(os.path.join(SOLUTIONS, name)).read()
        module = cp.RawModule(code=src, options=("-arch=sm_90a", "--std=c++17"))
        fn = module.get_function("mha_fwd_fp8_mma_sync")
        for b, h, s, d, causal in SHAPES:
            (q, k, v), (sq, sk, sv) = draw(b, h, s, d)
            o = torch.full((b, h, s, d), float("nan"), dtype=torch.bfloat16)
            lse = torch.full((b, h, s), float("nan"))
            smem = 384 * (d + 8)
            fn.max_dynamic_shared_size_bytes = smem
            ptrs = [cp.asarray(t.view(torch.uint8)) for t in (q, k, v)]
            ptrs += [cp.asarray(t) for t in (sq, sk, sv)]
            ptrs += [cp.asarray(o.view(torch.int16)), cp.asarray(lse)]
            fn(((s + 63) // 64, h, b), (128,), (*ptrs, *(np.int32(x) for x in (b, h, s, d, causal))),
               shared_mem=smem)
            torch.cuda.synchronize()
            ro, rl = reference.run(q.float(), k.float(), v.float(), sq, sk, sv, causal, d)
            ok_o, eo, lo = verdict(o.float(), ro, tasks.FP8_O_ATOL, tasks.FP8_O_RTOL, tasks.FP8_REL_L2)
            ok_l, el, ll = verdict(lse, rl, tasks.FP8_LSE_ATOL, tasks.FP8_LSE_RTOL, tasks.FP8_REL_L2)
            got = "PASSED" if ok_o and ok_l else "INCORRECT"
            failures += got != expected
            print(f"{'ok  ' if got == expected else 'FAIL'} {name} B={b} H={h} S={s} D={d} "
                  f"causal={causal}: {got} (expected {expected}); O max err {eo:.3g} rel_l2 "
                  f"{lo:.3g}; LSE max err {el:.3g} rel_l2 {ll:.3g}", flush=True)
    for causal in (0, 1):
        (q, k, v), (sq, sk, sv) = draw(1, 32, 16384, 128)
        torch.cuda.synchronize()
        t0 = time.time()
        reference.run(q.float(), k.float(), v.float(), sq, sk, sv, causal, 128)
        torch.cuda.synchronize()
        print(f"reference B=1 H=32 S=16384 D=128 causal={causal}: {time.time() - t0:.2f} s",
              flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
