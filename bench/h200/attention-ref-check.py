#!/usr/bin/env python3
"""Checks the harness's fp32 attention reference kernels on a GPU.

Reads the harness's kernel files (lib/Runtime/kernels/builtin.cu and
attention.cu), compiles builtin.cu followed by attention.cu with NVRTC as
the harness does
(-arch=compute_XXa -std=c++17 -lineinfo -default-device; CuPy's own NVRTC
path if libnvrtc cannot be opened), loads the PTX through the driver
with CuPy, and runs each reference kernel on small random shapes. Every
output is compared in float64 against torch:

  * forward: O against softmax(scale Q K^T) V and LSE against
    torch.logsumexp, for the bf16 inputs the kernels saw;
  * ptxbench_f32_to_bf16: bit-exact against torch's round-to-nearest-even;
  * backward, tight: Delta, dQ, dK, dV against the task's formulas fed the
    same bf16 O and fp32 LSE as the kernels (the forward reference's, as in
    the harness);
  * backward, autograd: dQ, dK, dV against torch autograd of the float64
    forward; the kernels see O rounded to bf16, so this is a relative-L2
    check at 1e-2 (half the backward task's rel_l2 of 0.02).

Prints max abs error, normalized max error (max abs error / max |ref|) and
relative L2 per output with PASS/FAIL; exits 1 on any failure. Both ratios
have a floor under the denominator (NORM_FLOOR, RMS_FLOOR) so that an
all-zero reference, such as dQ of a one-row sequence, is compared in
absolute terms instead of failing on rounding noise. --bench then times
each kernel at B=4, H=48, S=4096 (the tasks' dev shape) for D = 128 with
and without the causal mask, and for D = 64 and 256.

Run from the repository root on the GPU machine:
  python3 bench/h200/attention-ref-check.py [--bench] [--quick]
(--builtins, --attention and --header name other copies of
lib/Runtime/kernels/builtin.cu, attention.cu and the launch constants'
lib/Runtime/AttentionKernels.h)
For a shared-memory race check of the kernels:
  compute-sanitizer --tool racecheck \\
      python3 bench/h200/attention-ref-check.py --quick
"""

import argparse
import ctypes
import ctypes.util
import glob
import math
import os
import re
import sys
import tempfile

import cupy as cp
import numpy as np
import torch

# Normalized max error allowed against the float64 formulas: fp32
# accumulation gives about 1e-6 here; a wrong mask, scale or index gives
# errors of order one.
TIGHT = 1e-4
# LSE is compared in absolute terms (it is a log, of order 10).
LSE_ATOL = 1e-4
# Relative L2 allowed against autograd (bf16-rounded O in Delta).
AUTOGRAD_REL_L2 = 1e-2
# Floors under max |ref| and under the RMS of ref in the two ratios; the
# outputs checked here are of order one.
NORM_FLOOR = 1e-2
RMS_FLOOR = 1e-3


def read_source(path):
    """The text of a kernel file, byte for byte as the harness embeds it."""
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def header_constant(path, name):
    m = re.search(re.escape(name) + r"\s*=\s*(\d+)\s*;", open(path).read())
    if not m:
        sys.exit(f"{path}: no constant {name}")
    return int(m.group(1))


def open_nvrtc():
    candidates = []
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                 "/usr/local/cuda"):
        if root:
            candidates += sorted(glob.glob(os.path.join(root, "lib64",
                                                        "libnvrtc.so*")))
    found = ctypes.util.find_library("nvrtc")
    if found:
        candidates.append(found)
    for c in candidates:
        try:
            return ctypes.CDLL(c)
        except OSError:
            continue
    return None


def nvrtc_ptx(lib, source, arch):
    """PTX of `source` compiled with the harness's NVRTC options."""
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(),
                              b"ptxbench_builtins.cu", 0, None, None):
        sys.exit("nvrtcCreateProgram failed")
    opts = [f"-arch={arch}".encode(), b"-std=c++17", b"-lineinfo",
            b"-default-device"]
    rc = lib.nvrtcCompileProgram(prog, len(opts),
                                 (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc:
        sys.exit(f"NVRTC ({arch}) failed:\n{log.value.decode()}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def load_module(source):
    major, minor = torch.cuda.get_device_capability()
    arch = f"compute_{major}{minor}" + ("a" if major >= 9 else "")
    lib = open_nvrtc()
    if lib is None:
        print("libnvrtc not found; compiling with CuPy's NVRTC options instead")
        return cp.RawModule(code=source, options=("-std=c++17",)), "cupy"
    ptx = nvrtc_ptx(lib, source, arch)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx)
    module = cp.RawModule(path=f.name)
    module.get_function("ptxbench_attn_fwd_ref")  # loads the module now
    os.unlink(f.name)
    return module, arch


class Refs:
    """The reference kernels, launched with the header's geometry."""

    def __init__(self, module, tile, group_cols):
        self.fn = {n: module.get_function(n) for n in (
            "ptxbench_attn_fwd_ref", "ptxbench_attn_bwd_delta",
            "ptxbench_attn_bwd_dq_ref", "ptxbench_attn_bwd_dkdv_ref",
            "ptxbench_f32_to_bf16")}
        self.tile, self.group_cols = tile, group_cols

    def grid(self, bh, s, d):  # attnFwdRefLaunch / attnBwdDqLaunch / DkDv
        return (-(-s // self.tile), bh, -(-d // self.group_cols))

    def fwd(self, q, k, v, o, lse, s, d, scale, causal):
        self.fn["ptxbench_attn_fwd_ref"](
            self.grid(q.shape[0], s, d), (256,),
            (bits(q), bits(k), bits(v), f32(o), f32(lse), np.int32(s),
             np.int32(d), np.float32(scale), np.int32(causal)))

    def to_bf16(self, x, out):
        n = x.numel()
        blocks = max(1, min(65536, -(-n // 256)))  # f32ToBf16Launch
        self.fn["ptxbench_f32_to_bf16"]((blocks,), (256,),
                                        (f32(x), bits(out), np.uint64(n)))

    def delta(self, o, do, delta, d):
        rows = delta.numel()
        self.fn["ptxbench_attn_bwd_delta"](
            (-(-rows // 8),), (256,),
            (bits(o), bits(do), f32(delta), np.int64(rows), np.int32(d)))

    def dq(self, q, k, v, do, lse, delta, dq, s, d, scale, causal):
        self.fn["ptxbench_attn_bwd_dq_ref"](
            self.grid(q.shape[0], s, d), (256,),
            (bits(q), bits(k), bits(v), bits(do), f32(lse), f32(delta),
             f32(dq), np.int32(s), np.int32(d), np.float32(scale),
             np.int32(causal)))

    def dkdv(self, q, k, v, do, lse, delta, dk, dv, s, d, scale, causal):
        self.fn["ptxbench_attn_bwd_dkdv_ref"](
            self.grid(q.shape[0], s, d), (256,),
            (bits(q), bits(k), bits(v), bits(do), f32(lse), f32(delta),
             f32(dk), f32(dv), np.int32(s), np.int32(d), np.float32(scale),
             np.int32(causal)))


def bits(t):
    """A bf16 torch tensor as a CuPy uint16 view (no copy)."""
    assert t.dtype == torch.bfloat16 and t.is_contiguous()
    return cp.asarray(t.view(torch.int16)).view(cp.uint16)


def f32(t):
    assert t.dtype == torch.float32 and t.is_contiguous()
    return cp.asarray(t)


def inputs(bh, s, d, gen, spiky):
    """bf16 Q, K, V, dO of shape [BH, S, D]; spiky adds rare x8 values."""
    out = []
    for _ in range(4):
        x = torch.randn(bh, s, d, generator=gen, device="cuda")
        if spiky:
            spikes = torch.rand(bh, s, d, generator=gen, device="cuda") < 0.01
            x = torch.where(spikes, x * 8, x)
        out.append(x.to(torch.bfloat16).contiguous())
    return out


def causal_mask(s, causal):
    if not causal:
        return None
    return torch.ones(s, s, dtype=torch.bool, device="cuda").triu(1)


def scores(q, k, scale, mask):
    s = scale * q @ k.transpose(-1, -2)
    return s if mask is None else s.masked_fill(mask, -math.inf)


class Report:
    def __init__(self):
        self.failed = []

    def compare(self, label, got, ref, limit, metric="norm"):
        got, ref = got.double(), ref.double()
        err = (got - ref).abs()
        max_abs = err.max().item()
        max_ref = ref.abs().max().item()
        norm = max_abs / max(max_ref, NORM_FLOOR)
        rel_l2 = (err.norm() / ref.norm().clamp_min(
            RMS_FLOOR * math.sqrt(ref.numel()))).item()
        value = {"norm": norm, "abs": max_abs, "rel_l2": rel_l2}[metric]
        ok = bool(torch.isfinite(got).all()) and value <= limit
        print(f"  {label:<16} max_abs {max_abs:.3e}  max|ref| {max_ref:.3e}  "
              f"norm {norm:.3e}  rel_l2 {rel_l2:.3e}  "
              f"[{metric} <= {limit:g}] {'PASS' if ok else 'FAIL'}")
        if not ok:
            self.failed.append(label)

    def exact(self, label, got, ref):
        differ = got.view(torch.int16) != ref.view(torch.int16)
        mismatches = differ.sum().item()
        ok = mismatches == 0
        print(f"  {label:<16} {mismatches} mismatching elements "
              f"{'PASS' if ok else 'FAIL'}")
        if not ok:
            self.failed.append(label)


def check_case(refs, report, b, h, s, d, causal, spiky, seed):
    bh, scale = b * h, 1.0 / math.sqrt(d)
    print(f"B={b} H={h} S={s} D={d} causal={causal}" +
          (" spiky" if spiky else ""))
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v, do = inputs(bh, s, d, gen, spiky)
    nan = float("nan")
    o = torch.full((bh, s, d), nan, device="cuda")
    lse = torch.full((bh, s), nan, device="cuda")
    o_bf16 = torch.empty(bh, s, d, dtype=torch.bfloat16, device="cuda")
    delta = torch.full((bh, s), nan, device="cuda")
    dq, dk, dv = (torch.full((bh, s, d), nan, device="cuda") for _ in range(3))

    torch.cuda.synchronize()
    refs.fwd(q, k, v, o, lse, s, d, scale, causal)
    refs.to_bf16(o, o_bf16)
    refs.delta(o_bf16, do, delta, d)
    refs.dq(q, k, v, do, lse, delta, dq, s, d, scale, causal)
    refs.dkdv(q, k, v, do, lse, delta, dk, dv, s, d, scale, causal)
    cp.cuda.runtime.deviceSynchronize()

    mask = causal_mask(s, causal)
    q64, k64, v64, do64 = (x.double() for x in (q, k, v, do))
    s64 = scores(q64, k64, scale, mask)
    report.compare("fwd O", o, torch.softmax(s64, -1) @ v64, TIGHT)
    report.compare("fwd LSE", lse, torch.logsumexp(s64, -1), LSE_ATOL, "abs")
    report.exact("f32_to_bf16", o_bf16, o.to(torch.bfloat16))

    # The task's formulas with the kernels' own O (bf16) and LSE (fp32).
    p = torch.exp(s64 - lse.double()[..., None])
    dp = do64 @ v64.transpose(-1, -2)
    delta64 = (o_bf16.double() * do64).sum(-1)
    ds = p * (dp - delta64[..., None])
    report.compare("bwd Delta", delta, delta64, TIGHT)
    report.compare("bwd dQ", dq, scale * ds @ k64, TIGHT)
    report.compare("bwd dK", dk, scale * ds.transpose(-1, -2) @ q64, TIGHT)
    report.compare("bwd dV", dv, p.transpose(-1, -2) @ do64, TIGHT)

    # Autograd of the float64 forward (exact O in Delta).
    qa, ka, va = (x.detach().clone().requires_grad_() for x in (q64, k64, v64))
    out = torch.softmax(scores(qa, ka, scale, mask), -1) @ va
    out.backward(do64)
    report.compare("autograd dQ", dq, qa.grad, AUTOGRAD_REL_L2, "rel_l2")
    report.compare("autograd dK", dk, ka.grad, AUTOGRAD_REL_L2, "rel_l2")
    report.compare("autograd dV", dv, va.grad, AUTOGRAD_REL_L2, "rel_l2")


def bench(refs, b, h, s, d, causal):
    """Best-of-3 time of each reference kernel at one shape."""
    bh, scale = b * h, 1.0 / math.sqrt(d)
    gen = torch.Generator(device="cuda").manual_seed(1)
    q, k, v, do = inputs(bh, s, d, gen, False)
    o = torch.empty(bh, s, d, device="cuda")
    lse = torch.empty(bh, s, device="cuda")
    o_bf16 = torch.empty(bh, s, d, dtype=torch.bfloat16, device="cuda")
    delta = torch.empty(bh, s, device="cuda")
    dq, dk, dv = (torch.empty(bh, s, d, device="cuda") for _ in range(3))
    # fp32 work of each kernel (causal: about half), in units of 2 B H S^2 D.
    unit = 2.0 * bh * s * s * d * (0.5 if causal else 1.0)
    launches = [
        ("fwd", 2, lambda: refs.fwd(q, k, v, o, lse, s, d, scale, causal)),
        ("f32_to_bf16", 0, lambda: refs.to_bf16(o, o_bf16)),
        ("delta", 0, lambda: refs.delta(o_bf16, do, delta, d)),
        ("dq", 3, lambda: refs.dq(q, k, v, do, lse, delta, dq, s, d, scale,
                                  causal)),
        ("dkdv", 4, lambda: refs.dkdv(q, k, v, do, lse, delta, dk, dv, s, d,
                                      scale, causal)),
    ]
    print(f"bench B={b} H={h} S={s} D={d} causal={causal}")
    torch.cuda.synchronize()
    for name, units, launch in launches:
        launch()  # warm-up, and the outputs the next kernels read
        best = math.inf
        for _ in range(3):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            launch()
            stop.record()
            stop.synchronize()
            best = min(best, cp.cuda.get_elapsed_time(start, stop))
        rate = f"  {units * unit / best / 1e9:.1f} TFLOP/s" if units else ""
        print(f"  {name:<12} {best:9.2f} ms{rate}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--header", default="lib/Runtime/AttentionKernels.h")
    ap.add_argument("--builtins", default="lib/Runtime/kernels/builtin.cu")
    ap.add_argument("--attention", default="lib/Runtime/kernels/attention.cu")
    ap.add_argument("--bench", action="store_true",
                    help="also time the kernels at B=4 H=48 S=4096")
    ap.add_argument("--quick", action="store_true",
                    help="two small cases only (e.g. under compute-sanitizer)")
    args = ap.parse_args()

    source = read_source(args.builtins) + read_source(args.attention)
    module, how = load_module(source)
    refs = Refs(module, header_constant(args.header, "kAttnRefTile"),
                header_constant(args.header, "kAttnRefGroupCols"))
    print(f"{torch.cuda.get_device_name()}: compiled with NVRTC ({how})")

    # (B, H, S, D, spiky): the task's head dimensions at a ragged S, then
    # edge cases: one row, a D that is not a multiple of 16, a D that
    # spans two column groups unevenly, and spiky inputs.
    cases = [(1, 2, 257, 64, False), (1, 2, 257, 128, False),
             (1, 2, 257, 256, False), (1, 1, 1, 64, False),
             (1, 3, 130, 40, False), (2, 1, 200, 200, False),
             (1, 2, 300, 128, True)]
    if args.quick:
        cases = [(1, 1, 70, 64, False), (1, 1, 70, 200, False)]
    report = Report()
    for i, (b, h, s, d, spiky) in enumerate(cases):
        for causal in (0, 1):
            seed = 1000 + 2 * i + causal
            check_case(refs, report, b, h, s, d, causal, spiky, seed)

    if args.bench:
        for d, causal in ((128, 0), (128, 1), (64, 0), (256, 0)):
            bench(refs, 4, 48, 4096, d, causal)

    if report.failed:
        print(f"FAIL: {len(report.failed)} comparisons failed")
        return 1
    print("PASS: every comparison within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
