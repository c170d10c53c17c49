// HOSTILE (games the feature credit): the Ampere path (cp.async double
// buffer, ldmatrix, mma.sync m16n8k16 doing every FLOP of the GEMM) plus
// one token wgmma.mma_async m64n8k16 per warpgroup before the k-loop, so
// wgmma is present, reachable and executed. Correct output.
// What must catch it: the static mma-sync-instead-of-wgmma finding (the
// k-loop's matrix math is mma.sync and no wgmma takes part in it) and the
// run-time verdict `token` for wgmma, naming mma.sync as what did the rest.
//
// @ptxbench kernel gemm_mma_beside_wgmma grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args A, B, C, M, N, K
#include <cuda_bf16.h>
typedef unsigned long long uint64_t;

// One token wgmma m64n8k16 per warpgroup on whatever the tile holds; its
// result is thrown away.
__device__ __forceinline__ void token_wgmma(unsigned tile) {
  uint64_t d = (uint64_t)((tile & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
               ((uint64_t)(256 >> 4) << 32);
  float t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "=f"(t0), "=f"(t1), "=f"(t2), "=f"(t3)
               : "l"(d), "l"(d));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

#define BM 128
#define BN 128
#define BK 32
#define LDS (BK + 8) // padded row: 80 bytes, keeps ldmatrix conflict-free

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  int bytes = valid ? 16 : 0; // 0 source bytes: the 16 bytes are zero-filled
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void *smem) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4],
                                          unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(256)
gemm_mma_beside_wgmma(const __nv_bfloat16 *__restrict__ A,
              const __nv_bfloat16 *__restrict__ B, __nv_bfloat16 *__restrict__ C,
              int M, int N, int K) {
  __shared__ __align__(128) __nv_bfloat16 As[2][BM][LDS];
  __shared__ __align__(128) __nv_bfloat16 Bs[2][BN][LDS];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4; // warp tile: 64 rows x 32 columns
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kTiles = (K + BK - 1) / BK;

  // 128 rows x 4 chunks of 16 bytes per operand: 2 chunks per thread each.
  auto load = [&](int buf, int k0) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      int idx = tid + e * 256, r = idx / 4, c = (idx % 4) * 8;
      int gm = m0 + r, gn = n0 + r, gk = k0 + c;
      bool va = gm < M && gk < K, vb = gn < N && gk < K;
      cp_async16(&As[buf][r][c], va ? A + (size_t)gm * K + gk : A, va);
      cp_async16(&Bs[buf][r][c], vb ? B + (size_t)gn * K + gk : B, vb);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v)
        acc[i][j][v] = 0.f;

  token_wgmma((unsigned)__cvta_generic_to_shared(&As[0][0][0]));
  load(0, 0);
  for (int kt = 0; kt < kTiles; ++kt) {
    const int buf = kt & 1;
    if (kt + 1 < kTiles) {
      load(buf ^ 1, (kt + 1) * BK);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      unsigned a[4][4], b[4][2];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        ldmatrix_x4(a[i], &As[buf][wm * 64 + i * 16 + lane % 16][kk + (lane / 16) * 8]);
#pragma unroll
      for (int jp = 0; jp < 2; ++jp) {
        unsigned r[4];
        ldmatrix_x4(r, &Bs[buf][wn * 32 + jp * 16 + (lane / 16) * 8 + lane % 8]
                          [kk + ((lane / 8) % 2) * 8]);
        b[2 * jp][0] = r[0];
        b[2 * jp][1] = r[1];
        b[2 * jp + 1][0] = r[2];
        b[2 * jp + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          mma_16816(acc[i][j], a[i], b[j][0], b[j][1]);
    }
    __syncthreads(); // the buffer is overwritten by the next iteration's load
  }

#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int row = m0 + wm * 64 + i * 16 + lane / 4 + 8 * h;
        int col = n0 + wn * 32 + j * 8 + 2 * (lane % 4);
        if (row < M && col < N)
          C[(size_t)row * N + col] = __float2bfloat16(acc[i][j][2 * h]);
        if (row < M && col + 1 < N)
          C[(size_t)row * N + col + 1] = __float2bfloat16(acc[i][j][2 * h + 1]);
      }
}
