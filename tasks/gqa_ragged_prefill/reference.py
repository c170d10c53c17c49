"""GQA prefill over ragged (packed) K and V, causal, the mask bottom-right aligned.

B sequences of L = P + S tokens each, packed one after another: K and V are
[B * L, HKV, D] (sequence b's keys are rows b * L .. b * L + L - 1), Q is
[B * S, HQ, D] (sequence b's queries, its last S tokens, are rows b * S ..
b * S + S - 1). Query head h reads KV head h // (HQ // HKV). New query i
(0 <= i < S) sees its sequence's keys t <= P + i: O = softmax(s) @ V with
s = Q . K^T / sqrt(D) over those keys; LSE is the natural-log log-sum-exp of s.
One (sequence, query head) at a time, so a score matrix is S x L at most.
"""
import math

import torch


def run(Q, K, V, S, P, HQ, HKV, D):
    L = P + S
    B = K.shape[0] // L
    group = HQ // HKV
    t = torch.arange(L)
    i = torch.arange(S)
    masked = t[None, :] > (P + i)[:, None]  # [S, L]: key t after query i
    o = torch.empty(B * S, HQ, D)
    lse = torch.empty(B * S, HQ)
    for b in range(B):
        k = K[b * L:(b + 1) * L]  # [L, HKV, D]
        v = V[b * L:(b + 1) * L]
        q = Q[b * S:(b + 1) * S]  # [S, HQ, D]
        for h in range(HQ):
            s = (q[:, h] @ k[:, h // group].T) / math.sqrt(D)
            s = s.masked_fill(masked, -math.inf)
            lse[b * S:(b + 1) * S, h] = torch.logsumexp(s, dim=1)
            o[b * S:(b + 1) * S, h] = torch.softmax(s, dim=1) @ v[:, h // group]
    return o, lse
