"""Block-scaled fp8 GEMM, NT layout, as DeepSeek-V3 quantizes linear layers.

a [M, K] e4m3 with a_scale [M, ceildiv(K, 128)]: one scale per token and
group of 128 consecutive k (1x128); b [N, K] e4m3 with b_scale
[ceildiv(N, 128), ceildiv(K, 128)]: one scale per 128x128 block.
c[m, n] = sum_k a[m, k] a_scale[m, k / 128] b[n, k] b_scale[n / 128, k / 128].
"""
import torch


def run(a, a_scale, b, b_scale, M, N, K):
    sa = a_scale.repeat_interleave(128, dim=1)[:, :K]
    sb = b_scale.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)
    return (a * sa) @ (b * sb[:N, :K]).T
