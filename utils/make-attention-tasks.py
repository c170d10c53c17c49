#!/usr/bin/env python3
"""Writes the task.json of every attention task (mha_fwd_lse_*, mha_bwd_*, mha_fwd_fp8_*).

The attention tasks differ only in head dimension, causality and direction,
so they are generated from one description here instead of kept by hand in
a dozen near-identical files; the D = 96 variants are the families' held-out
variants. The fp8 forward (mha_fwd_fp8_h32_*) has e4m3 Q, K, V with
per-tensor descales and a Python reference (tasks/mha_fwd_fp8/reference.py). Run it after editing; test/tasks checks that the
committed files are current.

Usage: utils/make-attention-tasks.py [--check] [TASKS_DIR]
"""
import json
import os
import sys

TIMING = {"warmup": 3, "min_samples": 10, "max_samples": 100,
          "max_seconds": 1.0, "target_rse": 0.005}

ABI = ("Tensors are row-major [B, H, S, D] (batch, head, sequence position, "
       "head dimension), LSE is [B, H, S]. The softmax scale is 1/sqrt(D); "
       "LSE is the natural-log log-sum-exp of each scaled score row "
       "(LSE[b,h,i] = log(sum_j exp(scale * Q[b,h,i,:].K[b,h,j,:]))).")
CAUSAL = ("{causal} (CAUSAL = {c} in every workload; with CAUSAL = 1 query i "
          "attends to keys j <= i only, the top-left-aligned causal mask).")
SM90 = ("On sm_90a use TMA (cp.async.bulk.tensor) for Q, K and V on "
        "transaction-count mbarriers and wgmma from shared-memory descriptors "
        "for both matrix products (FlashAttention-3 style: online softmax in "
        "registers, producer warp with setmaxnreg, consumer warpgroups); on "
        "sm_100a use tcgen05.mma with tensor memory, TMA and mbarriers.")
KERNELS_ONLY = ("Kernels only: the harness allocates every tensor and launches "
                "per the submission's launch plan (// @ptxbench lines; "
                "tensormap statements give TMA descriptors, workspace "
                "statements give zeroed scratch memory). S need not be a "
                "multiple of any tile size: handle partial tiles.")

FEATURES = {"sm_90a": ["wgmma", "tma", "mbarrier_tx"],
            "sm_100a": ["tcgen05", "tmem", "tma", "mbarrier_tx"]}
FP8_O_ATOL, FP8_O_RTOL, FP8_LSE_ATOL, FP8_LSE_RTOL, FP8_REL_L2 = 0.15, 0.05, 0.005, 0.001, 0.08
ENCOURAGED = {"sm_90a": ["setmaxnreg", "cluster_barrier"],
              "sm_100a": ["cluster_barrier"]}


def qkv(init):
    return [{"name": n, "dtype": "bf16", "shape": ["B", "H", "S", "D"],
             "role": "input", "init": dict(init)} for n in ("Q", "K", "V")]


def workloads(d, causal, bwd):
    def w(name, b, s):
        return {"name": name, "B": b, "H": 48, "S": s, "D": d, "CAUSAL": causal}
    dev = [w("dev-b4-s4096", 4, 4096), w("dev-b16-s1024", 16, 1024)]
    if bwd:
        held = [w("heldout-b4-s3000-ragged", 4, 3000), w("heldout-b8-s2048", 8, 2048),
                w("heldout-b32-s512", 32, 512)]
    else:
        held = [w("heldout-b2-s8192", 2, 8192), w("heldout-b1-s16384", 1, 16384),
                w("heldout-b4-s3000-ragged", 4, 3000), w("heldout-b32-s512", 32, 512)]
    return {"dev": dev, "heldout": held}


def variant(family, heldout):
    """The family keys, right after the name."""
    return {"family": family, **({"heldout_variant": True} if heldout else {})}


def forward(d, causal, heldout=False):
    name = f"mha_fwd_lse_h48_d{d}" + ("_causal" if causal else "")
    desc = (f"Multi-head attention forward with the log-sum-exp: O = softmax(scale * Q K^T) V "
            f"and LSE, for H = 48 heads of head dimension D = {d}, B and S varying per "
            f"workload (self-attention: queries and keys have the same length S). " + ABI + " " +
            CAUSAL.format(causal="Causal" if causal else "Not causal", c=int(causal)) +
            " bf16 Q, K, V and O, fp32 LSE; accumulate in fp32. " + KERNELS_ONLY + " " + SM90)
    flops = "2*B*H*S*S*D" if causal else "4*B*H*S*S*D"
    return name, {
        "name": name, **variant("mha_fwd_lse", heldout), "description": desc,
        "params": ["B", "H", "S", "D", "CAUSAL"],
        "tensors": qkv({"dist": "normal", "mean": 0, "std": 1}) + [
            {"name": "O", "dtype": "bf16", "shape": ["B", "H", "S", "D"], "role": "output"},
            {"name": "LSE", "dtype": "f32", "shape": ["B", "H", "S"], "role": "output"}],
        "workloads": workloads(d, int(causal), False),
        "check": {"tolerance": {"bf16": {"atol": 0.01, "rtol": 0.02},
                                "f32": {"atol": 0.001, "rtol": 0.0005}},
                  "rel_l2": 0.01, "trials": 2},
        "flops": flops,
        "bytes": "2*4*B*H*S*D + 4*B*H*S",
        "reference": "attention_fwd",
        "baseline": "cudnn_sdpa_fwd",
        "operands": {"q": "Q", "k": "K", "v": "V", "o": "O", "lse": "LSE",
                     "causal": "CAUSAL"},
        "features": FEATURES, "encouraged": ENCOURAGED, "accumulate": "f32",
        "timing": TIMING}


def backward(d, causal, heldout=False):
    name = f"mha_bwd_h48_d{d}" + ("_causal" if causal else "")
    desc = (f"Multi-head attention backward: given Q, K, V, the forward output O, its "
            f"gradient dO and the forward's LSE, compute dQ, dK and dV of "
            f"O = softmax(scale * Q K^T) V for H = 48 heads of head dimension D = {d}, "
            f"B and S varying per workload. " + ABI + " " +
            CAUSAL.format(causal="Causal" if causal else "Not causal", c=int(causal)) +
            " With P = exp(scale * Q K^T - LSE) and Delta_i = sum_d dO[i,d] * O[i,d]: "
            "dV = P^T dO, dS = P * (dO V^T - Delta), dQ = scale * dS K, dK = scale * dS^T Q. "
            "O and LSE are the forward's (computed by the harness from Q, K and V); Q, K and "
            "dO are spiky (normal with rare large values). bf16 tensors, fp32 LSE; "
            "accumulate in fp32 (a workspace may hold fp32 partial sums of dQ). " +
            KERNELS_ONLY + " " + SM90)
    flops = "5*B*H*S*S*D" if causal else "10*B*H*S*S*D"
    spiky = {"dist": "spiky", "mean": 0, "std": 1, "spike_prob": 0.001, "spike_scale": 8}
    tensors = qkv(spiky)
    tensors[2]["init"] = {"dist": "normal", "mean": 0, "std": 1}  # V
    bhsd = ["B", "H", "S", "D"]
    tensors += [
        {"name": "O", "dtype": "bf16", "shape": bhsd, "role": "input", "init": {"dist": "derived"}},
        {"name": "dO", "dtype": "bf16", "shape": bhsd, "role": "input", "init": dict(spiky)},
        {"name": "LSE", "dtype": "f32", "shape": ["B", "H", "S"], "role": "input",
         "init": {"dist": "derived"}},
        {"name": "dQ", "dtype": "bf16", "shape": bhsd, "role": "output"},
        {"name": "dK", "dtype": "bf16", "shape": bhsd, "role": "output"},
        {"name": "dV", "dtype": "bf16", "shape": bhsd, "role": "output"}]
    return name, {
        "name": name, **variant("mha_bwd", heldout), "description": desc,
        "params": ["B", "H", "S", "D", "CAUSAL"],
        "tensors": tensors,
        "workloads": workloads(d, int(causal), True),
        # cuDNN's own gradients reach 0.105 absolute error against the fp32
        # reference on these inputs (H200, docs/performance.md): the per-element
        # bound must admit library-grade kernels, rel_l2 catches real bugs.
        "check": {"tolerance": {"bf16": {"atol": 0.15, "rtol": 0.05}},
                  "rel_l2": 0.02, "trials": 2},
        "flops": flops,
        "bytes": "2*8*B*H*S*D + 4*B*H*S",
        "reference": "attention_bwd",
        "baseline": "cudnn_sdpa_bwd",
        "operands": {"q": "Q", "k": "K", "v": "V", "o": "O", "lse": "LSE", "do": "dO",
                     "dq": "dQ", "dk": "dK", "dv": "dV", "causal": "CAUSAL"},
        "features": FEATURES, "encouraged": ENCOURAGED, "accumulate": "f32",
        "timing": TIMING}


FP8_ABI = (
    "Q, K and V are fp8 e4m3 (OCP E4M3: 1 sign, 4 exponent, 3 mantissa bits, "
    "bias 7, max 448, no infinities) with per-tensor fp32 descale factors "
    "q_scale, k_scale and v_scale, each in a one-element tensor: the real value "
    "of a tensor is its e4m3 value times its scale, as FP8 serving stacks "
    "quantize attention. With s[i,j] = q_scale * k_scale * Q[b,h,i,:].K[b,h,j,:] "
    "/ sqrt(D): O[b,h,i,:] = v_scale * sum_j softmax(s[i,:])_j V[b,h,j,:] and "
    "LSE[b,h,i] = log(sum_j exp(s[i,j])) (natural log, of the descaled and "
    "scaled scores). Tensors are row-major [B, H, S, D] (batch, head, sequence "
    "position, head dimension), LSE is [B, H, S]. Kernel arguments, in order: "
    "Q, K, V e4m3 [B, H, S, D], q_scale, k_scale, v_scale f32 [1], O bf16 "
    "[B, H, S, D] (output), LSE f32 [B, H, S] (output).")
FP8_IDIOM = (
    "Accumulate the scores, the row sums and O in fp32 registers. fp8 tensor "
    "cores take both operands K-major: Q K^T is (Q and K rows are contiguous "
    "along D), but in P V the reduction runs over keys and a V tile [keys, D] "
    "is MN-major for it, so transpose each V tile into [D, keys] in shared "
    "memory (or load it transposed) before the second MMA. P is converted to "
    "e4m3 for that MMA: multiply it by a power of two first (P * 256: P <= 1, "
    "so small probabilities keep their mantissa bits instead of falling into "
    "e4m3's subnormals) and divide the factor out with v_scale and the fp32 row "
    "sum at the end. The tolerance admits P rounded to e4m3 (3 mantissa bits).")
FP8_SM90 = (
    "On sm_90a use TMA (cp.async.bulk.tensor, e4m3 maps as 1-byte elements) for "
    "Q, K and V on transaction-count mbarriers and wgmma with .e4m3 inputs (k32 "
    "per instruction) from shared-memory descriptors for both matrix products "
    "(FlashAttention-3's fp8 forward: online softmax in registers, producer warp "
    "with setmaxnreg, consumer warpgroups; P may stay in registers as the A "
    "operand after a byte permutation into the e4m3 A-fragment layout); on "
    "sm_100a use tcgen05.mma (.kind::f8f6f4) with tensor memory, TMA and "
    "mbarriers.")


def fp8_forward(d, causal, heldout=False):
    name = f"mha_fwd_fp8_h32_d{d}" + ("_causal" if causal else "")
    desc = (f"fp8 (e4m3) multi-head attention forward with the log-sum-exp: O = "
            f"softmax(s) V and LSE for H = 32 heads of head dimension D = {d}, B and S "
            f"varying per workload (self-attention: queries and keys have the same "
            f"length S). " + FP8_ABI + " " +
            CAUSAL.format(causal="Causal" if causal else "Not causal", c=int(causal)) +
            " " + FP8_IDIOM + " " + KERNELS_ONLY + " " + FP8_SM90)
    flops = "2*B*H*S*S*D" if causal else "4*B*H*S*S*D"
    bhsd = ["B", "H", "S", "D"]
    # e4m3 values of std 16 (up to about 90: inside e4m3's range, few in
    # its subnormals) and descales that put the real values' std between
    # 0.64 and 1.28, as quantized activations have.
    fp8_init = {"dist": "normal", "mean": 0, "std": 16}
    scale_init = {"dist": "uniform", "low": 0.04, "high": 0.08}

    def w(wname, b, s):
        return {"name": wname, "B": b, "H": 32, "S": s, "D": d, "CAUSAL": int(causal)}
    return name, {
        "name": name, **variant("mha_fwd_fp8", heldout), "description": desc,
        "params": ["B", "H", "S", "D", "CAUSAL"],
        "tensors": [{"name": n, "dtype": "e4m3", "shape": bhsd, "role": "input",
                     "init": dict(fp8_init)} for n in ("Q", "K", "V")] +
                   [{"name": n, "dtype": "f32", "shape": ["1"], "role": "input",
                     "init": dict(scale_init)} for n in ("q_scale", "k_scale", "v_scale")] + [
            {"name": "O", "dtype": "bf16", "shape": bhsd, "role": "output"},
            {"name": "LSE", "dtype": "f32", "shape": ["B", "H", "S"], "role": "output"}],
        "workloads": {
            "dev": [w("dev-b4-s4096", 4, 4096), w("dev-b16-s1024", 16, 1024)],
            "heldout": [w("heldout-b2-s8192", 2, 8192), w("heldout-b1-s16384", 1, 16384),
                        w("heldout-b4-s3000-ragged", 4, 3000), w("heldout-b32-s512", 32, 512)]},
        # From utils/fp8-attention-error.py (tasks/mha_fwd_fp8/README.md):
        # a kernel with P rounded to e4m3 and Hopper's fp8 accumulation is
        # up to 0.066 from the reference in O (D = 256, causal), 0.027 in
        # relative L2 (flat scores) and 1.5e-3 in LSE; the bounds are 2.3x,
        # 3x and 10x that.
        "check": {"tolerance": {"bf16": {"atol": FP8_O_ATOL, "rtol": FP8_O_RTOL},
                                "f32": {"atol": FP8_LSE_ATOL, "rtol": FP8_LSE_RTOL}},
                  "rel_l2": FP8_REL_L2, "trials": 2},
        "flops": flops,
        "bytes": "5*B*H*S*D + 4*B*H*S + 12",
        "reference": "python",
        "python": {"module": "../mha_fwd_fp8/reference.py", "entry": "run",
                   "precision": "f32"},
        # cuDNN's fp8 SDPA forward on the same tensors (its e4m3 O descaled
        # into a bf16 O; lib/Runtime/Fp8AttentionBaseline.cpp).
        "baseline": "cudnn_sdpa_fp8_fwd",
        "operands": {"q": "Q", "k": "K", "v": "V", "q_scale": "q_scale",
                     "k_scale": "k_scale", "v_scale": "v_scale", "o": "O",
                     "lse": "LSE", "causal": "CAUSAL"},
        "features": FEATURES, "encouraged": ENCOURAGED, "accumulate": "f32",
        "timing": TIMING}


# D = 96 is held out in both directions: no development task has it.
TASKS = [forward(128, False), forward(128, True), forward(64, False), forward(64, True),
         forward(256, False), forward(256, True),
         forward(96, False, heldout=True), forward(96, True, heldout=True),
         backward(128, False), backward(128, True), backward(64, False),
         backward(96, True, heldout=True),
         fp8_forward(128, False), fp8_forward(128, True), fp8_forward(64, False),
         fp8_forward(256, False), fp8_forward(256, True),
         fp8_forward(96, False, heldout=True), fp8_forward(96, True, heldout=True)]


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "tasks")
    stale = 0
    for name, task in TASKS:
        path = os.path.join(root, name, "task.json")
        text = json.dumps(task, indent=2) + "\n"
        if check:
            if not os.path.exists(path) or open(path).read() != text:
                print(f"stale: {path} (run utils/make-attention-tasks.py)")
                stale += 1
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
