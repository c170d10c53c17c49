"""Gated delta net, recurrent form: T tokens of each sequence in order.

Per value head h (query/key head h // (HV // HQK)) the state S is [D, D]
(key dimension first). For each token, with alpha in (0, 1] the decay and
beta in [0, 1] the write strength:
    S <- alpha * S
    S <- S + beta * k (v - S^T k)^T     (the delta rule: S^T k moves towards v)
    o  = S^T q / sqrt(D)
Decode is T = 1 (one step of the state update); a multi-token step is T > 1.
"""
import math

import torch


def run(q, k, v, alpha, beta, state, HQK, HV, D):
    B, T = q.shape[0], q.shape[1]
    group = HV // HQK
    S = state.clone()  # [B, HV, D, D]
    o = torch.empty(B, T, HV, D)
    qh = q.repeat_interleave(group, dim=2)  # [B, T, HV, D]
    kh = k.repeat_interleave(group, dim=2)
    for t in range(T):
        a = alpha[:, t].reshape(B, HV, 1, 1)
        S = S * a
        kt = kh[:, t]  # [B, HV, D]
        pred = torch.einsum("bhkv,bhk->bhv", S, kt)
        delta = beta[:, t].unsqueeze(-1) * (v[:, t] - pred)
        S = S + torch.einsum("bhk,bhv->bhkv", kt, delta)
        o[:, t] = torch.einsum("bhkv,bhk->bhv", S, qh[:, t]) / math.sqrt(D)
    return o, S
