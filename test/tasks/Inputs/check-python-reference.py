#!/usr/bin/env python3
"""Checks a Python reference's outputs against an independent computation.

`ptxbench tasks reference TASK -o DIR` writes, per workload, the inputs it
drew (raw, in their dtypes), the reference's outputs (raw fp32) and a
workload.json. This script recomputes each output in float64 with NumPy
loops and formulas written for the family (not PyTorch, not the reference's
code) and compares: the largest error relative to the output's largest
magnitude must stay below --rtol. Prints one line per output.

Usage: check-python-reference.py DIR [--rtol R]   (every DIR/**/workload.json)
"""
import argparse
import glob
import json
import math
import os
import sys

import numpy as np

DTYPES = {"f32": np.float32, "i32": np.int32, "f16": np.float16}


def load(wdir, tensor):
    raw = open(os.path.join(wdir, tensor["file"]), "rb").read()
    shape = tensor["shape"]
    if tensor["role"] == "output":
        return np.frombuffer(raw, dtype=np.float32).reshape(shape).astype(np.float64)
    dt = tensor["dtype"]
    if dt == "bf16":
        bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape).astype(np.float64)
    if dt == "e4m3":
        return e4m3_values(np.frombuffer(raw, dtype=np.uint8)).reshape(shape)
    return np.frombuffer(raw, dtype=DTYPES[dt]).reshape(shape).astype(
        np.float64 if dt != "i32" else np.int64)


def e4m3_values(b):
    """OCP FP8 E4M3 (no infinities, S.1111.111 is NaN), decoded by hand."""
    b = b.astype(np.int64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp = (b >> 3) & 0xF
    man = b & 0x7
    normal = (1 + man / 8.0) * np.power(2.0, exp - 7)
    sub = (man / 8.0) * 2.0 ** -6
    v = sign * np.where(exp == 0, sub, normal)
    return np.where((exp == 0xF) & (man == 0x7), np.nan, v)


# --- independent computations, one per family ------------------------------

def gqa_paged_decode(x, p, c):
    B, L, HQ, HKV, D, PS = (p[k] for k in ("B", "L", "HQ", "HKV", "D", "PS"))
    q, kc, vc, idx = x["Q"], x["k_cache"], x["v_cache"], x["kv_indices"]
    o = np.zeros((B, HQ, D))
    lse = np.zeros((B, HQ))
    for b in range(B):
        for h in range(HQ):
            g = h // (HQ // HKV)
            s = np.empty(L)
            for t in range(L):
                page = idx[b, t // PS]
                s[t] = np.dot(q[b, h], kc[page, t % PS, g]) / math.sqrt(D)
            m = s.max()
            w = np.exp(s - m)
            lse[b, h] = m + math.log(w.sum())
            acc = np.zeros(D)
            for t in range(L):
                acc += w[t] * vc[idx[b, t // PS], t % PS, g]
            o[b, h] = acc / w.sum()
    return {"O": o, "LSE": lse}


def causal_prefill(q, keys, values, HQ, HKV, D, S, P):
    """One sequence: q [S, HQ, D], keys and values [L, HKV, D] (L = P + S);
    new query i sees keys t <= P + i (bottom-right aligned)."""
    o = np.zeros((S, HQ, D))
    lse = np.zeros((S, HQ))
    for h in range(HQ):
        g = h // (HQ // HKV)
        for i in range(S):
            seen = P + i + 1
            s = np.array([np.dot(q[i, h], keys[t, g]) for t in range(seen)]) / math.sqrt(D)
            m = s.max()
            w = np.exp(s - m)
            lse[i, h] = m + math.log(w.sum())
            o[i, h] = sum(w[t] * values[t, g] for t in range(seen)) / w.sum()
    return o, lse


def gqa_paged_prefill(x, p, c):
    B, S, P, HQ, HKV, D, PS = (p[k] for k in ("B", "S", "P", "HQ", "HKV", "D", "PS"))
    q, kc, vc, idx = x["Q"], x["k_cache"], x["v_cache"], x["kv_indices"]
    L = P + S
    o = np.zeros((B * S, HQ, D))
    lse = np.zeros((B * S, HQ))
    for b in range(B):
        # Token t of sequence b: slot t % PS of page kv_indices[b, t // PS].
        keys = np.stack([kc[idx[b, t // PS], t % PS] for t in range(L)])
        values = np.stack([vc[idx[b, t // PS], t % PS] for t in range(L)])
        o[b * S:(b + 1) * S], lse[b * S:(b + 1) * S] = causal_prefill(
            q[b * S:(b + 1) * S], keys, values, HQ, HKV, D, S, P)
    return {"O": o, "LSE": lse}


def gqa_ragged_prefill(x, p, c):
    B, S, P, HQ, HKV, D = (p[k] for k in ("B", "S", "P", "HQ", "HKV", "D"))
    L = P + S
    o = np.zeros((B * S, HQ, D))
    lse = np.zeros((B * S, HQ))
    for b in range(B):
        o[b * S:(b + 1) * S], lse[b * S:(b + 1) * S] = causal_prefill(
            x["Q"][b * S:(b + 1) * S], x["K"][b * L:(b + 1) * L], x["V"][b * L:(b + 1) * L],
            HQ, HKV, D, S, P)
    return {"O": o, "LSE": lse}


def gdn_decode(x, p, c):
    HQK, HV, D = p["HQK"], p["HV"], p["D"]
    q, k, v, alpha, beta = x["q"], x["k"], x["v"], x["alpha"], x["beta"]
    S = x["state"].copy()
    B, T = q.shape[0], q.shape[1]
    o = np.zeros((B, T, HV, D))
    for b in range(B):
        for h in range(HV):
            g = h // (HV // HQK)
            s = S[b, h]
            for t in range(T):
                s = alpha[b, t, h] * s
                kt = k[b, t, g]
                err = v[b, t, h] - kt @ s  # what the state predicts for k
                s = s + beta[b, t, h] * np.outer(kt, err)
                o[b, t, h] = (q[b, t, g] @ s) / math.sqrt(D)
            S[b, h] = s
    return {"o": o, "new_state": S}


def gemm_fp8_blockscale(x, p, c):
    M, N, K = p["M"], p["N"], p["K"]
    a, sa, b, sb = x["a"], x["a_scale"], x["b"], x["b_scale"]
    out = np.zeros((M, N))
    for kb in range(0, K, 128):
        block = a[:, kb:kb + 128] @ b[:, kb:kb + 128].T  # [M, N], unscaled
        for n0 in range(0, N, 128):
            scale = np.outer(sa[:, kb // 128], np.full(min(128, N - n0), sb[n0 // 128, kb // 128]))
            out[:, n0:n0 + 128] += scale * block[:, n0:n0 + 128]
    return {"c": out}


def mha_fwd_fp8(x, p, c):
    B, H, S, D, causal = (p[k] for k in ("B", "H", "S", "D", "CAUSAL"))
    q, k, v = x["Q"], x["K"], x["V"]
    sq, sk, sv = (float(x[n].reshape(-1)[0]) for n in ("q_scale", "k_scale", "v_scale"))
    o = np.zeros((B, H, S, D))
    lse = np.zeros((B, H, S))
    for b in range(B):
        for h in range(H):
            for i in range(S):
                keys = i + 1 if causal else S
                # Real values first (e4m3 value times its descale), then the
                # scores of the textbook formula.
                s = np.array([np.dot(q[b, h, i] * sq, k[b, h, j] * sk) for j in range(keys)])
                s /= math.sqrt(D)
                m = s.max()
                w = np.exp(s - m)
                lse[b, h, i] = m + math.log(w.sum())
                o[b, h, i] = (w @ (v[b, h, :keys] * sv)) / w.sum()
    return {"O": o, "LSE": lse}


def mla_paged_decode(x, p, c):
    B, L, H, PS = p["B"], p["L"], p["H"], p["PS"]
    scale = c["sm_scale"]
    qn, qp, ckv, kpe, idx = (x[k] for k in ("q_nope", "q_pe", "ckv_cache", "kpe_cache", "kv_indices"))
    o = np.zeros((B, H, ckv.shape[-1]))
    lse = np.zeros((B, H))
    for b in range(B):
        rows = [(idx[b, t // PS], t % PS) for t in range(L)]
        C = np.stack([ckv[pg, sl] for pg, sl in rows])  # [L, 512]
        P = np.stack([kpe[pg, sl] for pg, sl in rows])  # [L, 64]
        for h in range(H):
            s = (C @ qn[b, h] + P @ qp[b, h]) * scale
            m = s.max()
            w = np.exp(s - m)
            lse[b, h] = m + math.log(w.sum())
            o[b, h] = (w @ C) / w.sum()
    return {"O": o, "LSE": lse}


def rmsnorm(x, p, c):
    h = x["hidden_states"]
    out = np.zeros_like(h)
    for t in range(h.shape[0]):
        rms = math.sqrt(sum(v * v for v in h[t]) / h.shape[1] + c["eps"])
        out[t] = h[t] / rms * x["weight"]
    return {"output": out}


FAMILIES = {"rmsnorm": rmsnorm, "gqa_paged_decode": gqa_paged_decode,
            "gqa_paged_prefill": gqa_paged_prefill, "gqa_ragged_prefill": gqa_ragged_prefill,
            "gdn_decode": gdn_decode,
            "gdn_mtp": gdn_decode, "gdn_prefill": gdn_decode, "gemm_fp8_blockscale": gemm_fp8_blockscale,
            "mla_paged_decode": mla_paged_decode, "mha_fwd_fp8": mha_fwd_fp8}


def family_of(task):
    for name in FAMILIES:
        if task.startswith(name):
            return name
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rtol", type=float, default=1e-5)
    args = ap.parse_args()
    failed = 0
    metas = sorted(glob.glob(os.path.join(args.dir, "**", "workload.json"),
                             recursive=True))
    if not metas:
        print(f"error: no workload.json under {args.dir}")
        return 1
    for mpath in metas:
        wdir = os.path.dirname(mpath)
        meta = json.load(open(mpath))
        family = family_of(meta["task"])
        if not family:
            print(f"error: no independent computation for {meta['task']}")
            failed += 1
            continue
        x = {t["name"]: load(wdir, t) for t in meta["tensors"]
             if t["role"] == "input"}
        refs = {t["name"]: load(wdir, t) for t in meta["tensors"]
                if t["role"] == "output"}
        mine = FAMILIES[family](x, meta["params"], meta["constants"])
        for name, ref in refs.items():
            want = mine[name]
            scale = max(np.abs(want).max(), 1e-30)
            err = np.abs(ref - want).max() / scale
            ok = err <= args.rtol and np.isfinite(ref).all()
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {meta['task']} {meta['workload']} "
                  f"{name}: max error {'below' if ok else 'at'} "
                  f"{args.rtol if ok else err:g} of the largest |value|")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
