"""GQA decode over a paged KV cache: one query token per sequence.

Sequence b holds L tokens; token t lives in page kv_indices[b, t // PS] at
slot t % PS of k_cache and v_cache ([pages, PS, HKV, D]). Query head h reads
KV head h // (HQ // HKV). O[b, h] = softmax(s) @ V with s = Q[b, h] . K^T / sqrt(D)
over the sequence's L tokens; LSE[b, h] is the natural-log log-sum-exp of s.
"""
import math

import torch


def run(Q, k_cache, v_cache, kv_indices, L, PS, HQ, HKV, D):
    B = Q.shape[0]
    group = HQ // HKV
    t = torch.arange(L)
    o = torch.empty(B, HQ, D)
    lse = torch.empty(B, HQ)
    for b in range(B):
        pages = kv_indices[b].long()[t // PS]
        k = k_cache[pages, t % PS]  # [L, HKV, D]
        v = v_cache[pages, t % PS]
        k = k.repeat_interleave(group, dim=1)  # [L, HQ, D]
        v = v.repeat_interleave(group, dim=1)
        s = torch.einsum("hd,lhd->hl", Q[b], k) / math.sqrt(D)
        lse[b] = torch.logsumexp(s, dim=1)
        p = torch.softmax(s, dim=1)
        o[b] = torch.einsum("hl,lhd->hd", p, v)
    return o, lse
