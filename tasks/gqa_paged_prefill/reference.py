"""GQA prefill over a paged KV cache, causal, the mask bottom-right aligned.

B sequences of L = P + S tokens each: P tokens already in the cache, then the
S new ones whose queries Q holds ([B * S, HQ, D]: sequence b's queries are rows
b * S .. b * S + S - 1). The cache holds all L tokens of each sequence: token
t is at slot t % PS of page kv_indices[b, t // PS] of k_cache and v_cache
([pages, PS, HKV, D]). Query head h reads KV head h // (HQ // HKV). New query
i (0 <= i < S) sees keys t <= P + i: O = softmax(s) @ V with
s = Q . K^T / sqrt(D) over those keys; LSE is the natural-log log-sum-exp of s.
One (sequence, query head) at a time, so a score matrix is S x L at most.
"""
import math

import torch


def run(Q, k_cache, v_cache, kv_indices, S, P, PS, HQ, HKV, D):
    B = kv_indices.shape[0]
    L = P + S
    group = HQ // HKV
    t = torch.arange(L)
    i = torch.arange(S)
    masked = t[None, :] > (P + i)[:, None]  # [S, L]: key t after query i
    o = torch.empty(B * S, HQ, D)
    lse = torch.empty(B * S, HQ)
    for b in range(B):
        pages = kv_indices[b].long()[t // PS]
        k = k_cache[pages, t % PS]  # [L, HKV, D]
        v = v_cache[pages, t % PS]
        q = Q[b * S:(b + 1) * S]  # [S, HQ, D]
        for h in range(HQ):
            s = (q[:, h] @ k[:, h // group].T) / math.sqrt(D)
            s = s.masked_fill(masked, -math.inf)
            lse[b * S:(b + 1) * S, h] = torch.logsumexp(s, dim=1)
            o[b * S:(b + 1) * S, h] = torch.softmax(s, dim=1) @ v[:, h // group]
    return o, lse
