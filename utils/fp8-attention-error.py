#!/usr/bin/env python3
"""How far an fp8 attention kernel lands from the mha_fwd_fp8 reference.

The tolerances of the mha_fwd_fp8_h32_* tasks come from this model of a
kernel's arithmetic, run on the tasks' input distributions (Q, K, V normal
with std 16 rounded to e4m3, descales uniform in [0.04, 0.08]). The
reference is float64 on the exact e4m3 values times their scales. A kernel
variant is modelled as FlashAttention-3's fp8 forward computes:

- S = Q K^T on the fp8 tensor core: each 32 products summed exactly, then
  added to an accumulator truncated to 13 mantissa bits (Hopper's fp8 wgmma
  as utils/fp8-accum-model.c models it; --frac 23 for plain fp32);
- an online softmax over key blocks of 128 in fp32 (running max, rescaled
  row sum and accumulator);
- P converted to e4m3 after a multiplication by --p-scale (256: P <= 1 stays
  inside e4m3's normal range down to 2^-14) for the second product, which
  accumulates as the first; --p-dtype bf16 models a bf16 P instead, f32 an
  exact one;
- the row sum taken from the fp32 P (--sum f32) or from the rounded P the
  MMA sees (--sum rounded);
- O = acc * v_scale / (p_scale * l) rounded to bf16, LSE = m + log(l).

Prints, per configuration, the largest absolute error of O and LSE, the
largest |ref| and the relative L2 error (also as a fraction of the task's
bound), and the worst element's error as a fraction of the task's allowance
atol + rtol * |ref| (above 1 fails). CPU only; S = 1024 takes seconds.

Usage: utils/fp8-attention-error.py [--s 1024] [--d 128] [--heads 2]
       [--causal] [--p-dtype e4m3|bf16|f32] [--sum f32|rounded] [--frac 13]
       [--scale-q 0.08 ...] [--seed 1]
"""
import argparse
import math

import torch

# The tasks' check (utils/make-attention-tasks.py, fp8 forward).
O_ATOL, O_RTOL, LSE_ATOL, LSE_RTOL, REL_L2 = 0.15, 0.05, 0.005, 0.001, 0.08


def truncate(x, frac):
    """x (float64) truncated toward zero to `frac` mantissa bits."""
    if frac >= 52:
        return x
    m, e = torch.frexp(x)
    return torch.ldexp(torch.trunc(m * 2.0 ** (frac + 1)) / 2.0 ** (frac + 1), e)


def mma(a, b, frac):
    """a [M, K] @ b [K, N] with the fp8 tensor core's accumulation."""
    acc = torch.zeros(a.shape[0], b.shape[1], dtype=torch.float64)
    for k in range(0, a.shape[1], 32):
        acc = truncate(acc + a[:, k:k + 32] @ b[k:k + 32], frac)
    return acc


def rounded(x, dtype):
    if dtype == "f32":
        return x.to(torch.float32).to(torch.float64)
    t = torch.float8_e4m3fn if dtype == "e4m3" else torch.bfloat16
    return x.to(t).to(torch.float64)


def kernel(q, k, v, sq, sk, sv, causal, a):
    s_len, d = q.shape
    o = torch.empty(s_len, d, dtype=torch.float64)
    lse = torch.empty(s_len, dtype=torch.float64)
    scale = sq * sk / math.sqrt(d)
    raw = mma(q, k.T, a.frac) * scale  # the scores, scaled in fp32
    m = torch.full((s_len,), -math.inf, dtype=torch.float64)
    l = torch.zeros(s_len, dtype=torch.float64)
    acc = torch.zeros(s_len, d, dtype=torch.float64)
    rows = torch.arange(s_len)[:, None]
    for j in range(0, s_len, 128):
        s = raw[:, j:j + 128].clone()
        if causal:
            s[torch.arange(j, min(j + 128, s_len))[None, :] > rows] = -math.inf
        m_new = torch.maximum(m, s.max(1).values)
        alpha = torch.exp(m - m_new)
        p = torch.exp(s - m_new[:, None]).to(torch.float32).to(torch.float64)
        p8 = rounded(p * a.p_scale, a.p_dtype)
        l = l * alpha + (p8 / a.p_scale if a.sum == "rounded" else p).sum(1)
        acc = mma_rescaled(acc * alpha[:, None], p8, v[j:j + 128], a.frac)
        m = m_new
    o = rounded(acc * sv / (a.p_scale * l[:, None]), "bf16")
    lse = (m + torch.log(l)).to(torch.float32).to(torch.float64)
    return o, lse


def mma_rescaled(acc, p, v, frac):
    for k in range(0, p.shape[1], 32):
        acc = truncate(acc + p[:, k:k + 32] @ v[k:k + 32], frac)
    return acc


def reference(q, k, v, sq, sk, sv, causal):
    s = (q * sq) @ (k * sk).T / math.sqrt(q.shape[1])
    if causal:
        s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), -math.inf)
    return torch.softmax(s, 1) @ (v * sv), torch.logsumexp(s, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--s", type=int, default=1024)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--p-dtype", choices=["e4m3", "bf16", "f32"], default="e4m3")
    ap.add_argument("--p-scale", type=float, default=256.0)
    ap.add_argument("--sum", choices=["f32", "rounded"], default="f32")
    ap.add_argument("--frac", type=int, default=13)
    ap.add_argument("--scale-q", type=float, default=0.08)
    ap.add_argument("--scale-k", type=float, default=0.08)
    ap.add_argument("--scale-v", type=float, default=0.08)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    worst = {"O": [0.0, 0.0, 0.0], "LSE": [0.0, 0.0, 0.0]}  # abs, |ref|, share
    num = {"O": 0.0, "LSE": 0.0}
    den = {"O": 0.0, "LSE": 0.0}
    tol = {"O": (O_ATOL, O_RTOL), "LSE": (LSE_ATOL, LSE_RTOL)}
    for _ in range(a.heads):
        q, k, v = (rounded(torch.randn(a.s, a.d, dtype=torch.float64) * 16, "e4m3")
                   for _ in range(3))
        got = kernel(q, k, v, a.scale_q, a.scale_k, a.scale_v, a.causal, a)
        want = reference(q, k, v, a.scale_q, a.scale_k, a.scale_v, a.causal)
        for name, g, w in zip(("O", "LSE"), got, want):
            err = (g - w).abs()
            atol, rtol = tol[name]
            share = (err / (atol + rtol * w.abs())).max().item()
            worst[name] = [max(worst[name][0], err.max().item()),
                           max(worst[name][1], w.abs().max().item()),
                           max(worst[name][2], share)]
            num[name] += (err ** 2).sum().item()
            den[name] += (w ** 2).sum().item()
    for name in ("O", "LSE"):
        e, r, share = worst[name]
        l2 = math.sqrt(num[name] / den[name])
        print(f"{name}: max abs error {e:.4g} (max |ref| {r:.4g}), rel_l2 "
              f"{l2:.3g} ({l2 / REL_L2:.3g} of its bound), worst element at "
              f"{share:.3g} of its allowance")


if __name__ == "__main__":
    main()
