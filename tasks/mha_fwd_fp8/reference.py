"""fp8 (e4m3) attention forward with the log-sum-exp, per-tensor descales.

Q, K, V [B, H, S, D] hold e4m3 values (widened exactly); q_scale, k_scale
and v_scale are one-element fp32 tensors, and a tensor's real value is its
e4m3 value times its scale. s = q_scale * k_scale * Q K^T / sqrt(D), masked
to keys j <= i when CAUSAL; O = softmax(s) (v_scale * V) and LSE is the
natural-log log-sum-exp of each row of s. One (batch, head) at a time, so
a score matrix is S x S at most.
"""
import math

import torch


def run(Q, K, V, q_scale, k_scale, v_scale, CAUSAL, D):
    B, H, S, _ = Q.shape
    score_scale = q_scale[0] * k_scale[0] / math.sqrt(D)
    masked = torch.ones(S, S, dtype=torch.bool).triu(1) if CAUSAL else None
    o = torch.empty(B, H, S, D)
    lse = torch.empty(B, H, S)
    for b in range(B):
        for h in range(H):
            s = (Q[b, h] @ K[b, h].T) * score_scale
            if masked is not None:
                s = s.masked_fill(masked, -math.inf)
            lse[b, h] = torch.logsumexp(s, dim=1)
            o[b, h] = torch.softmax(s, dim=1) @ (V[b, h] * v_scale[0])
    return o, lse
