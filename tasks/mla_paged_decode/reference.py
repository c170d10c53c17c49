"""Multi-head latent attention decode (DeepSeek-V3) over a paged cache.

Every head attends to the same compressed KV: ckv (the 512-wide latent, used
as both key and value) and kpe (the 64 rope dimensions of the key). Token t
of sequence b is at slot t % PS of page kv_indices[b, t // PS]. For head h:
s_t = (q_nope[b, h] . ckv_t + q_pe[b, h] . kpe_t) * sm_scale, o[b, h] =
softmax(s) @ ckv, lse[b, h] = log(sum_t exp(s_t)) (natural log).
"""
import torch


def run(q_nope, q_pe, ckv_cache, kpe_cache, kv_indices, L, PS, sm_scale):
    B, H = q_nope.shape[0], q_nope.shape[1]
    t = torch.arange(L)
    o = torch.empty(B, H, ckv_cache.shape[-1])
    lse = torch.empty(B, H)
    for b in range(B):
        pages = kv_indices[b].long()[t // PS]
        ckv = ckv_cache[pages, t % PS]  # [L, 512]
        kpe = kpe_cache[pages, t % PS]  # [L, 64]
        s = (q_nope[b] @ ckv.T + q_pe[b] @ kpe.T) * sm_scale  # [H, L]
        lse[b] = torch.logsumexp(s, dim=1)
        o[b] = torch.softmax(s, dim=1) @ ckv
    return o, lse
