// HOSTILE (games the correctness check): fp8 mma.sync whose per-k-tile
// partial sums accumulate in f16 (mma.sync...m16n8k32.f16.e4m3.e4m3.f16),
// promoted to f32 between tiles. The task asks for fp32 accumulation; the
// f16 rounding stays under its loose fp8 tolerances, so the output check
// alone passes it.
// What must catch it: the static f16-accumulator finding for a task with
// "accumulate": "f32" (ptxbench analyze --accumulate f32), in JSON and
// SARIF; besides mma-sync-instead-of-wgmma and cp-async-instead-of-tma.
//
// @ptxbench kernel gemm_fp8_f16_accumulate grid=(ceildiv(N,128), ceildiv(M,128)) block=256
// @ptxbench   args A, B, scale_a, scale_b, C, M, N, K
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define BM 128
#define BN 128
#define BK 64       // fp8 elements = bytes
#define LDS (BK + 16) // padded row: 80 bytes, keeps ldmatrix conflict-free

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  int bytes = valid ? 16 : 0; // 0 source bytes: the 16 bytes are zero-filled
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void *smem) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

// d = A[16x32] * B[32x8] + c, e4m3 inputs, f16 accumulate (two packed
// f16x2 registers: row r columns c, c+1, then row r+8).
__device__ __forceinline__ void mma_16832(unsigned (&d)[2], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1, const unsigned (&c)[2]) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 "
               "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
               : "=r"(d[0]), "=r"(d[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]),
                 "r"(c[1]));
}

__device__ __forceinline__ float2 unpack_half2(unsigned v) {
  __half2 h = *reinterpret_cast<__half2 *>(&v);
  return __half22float2(h);
}

extern "C" __global__ void __launch_bounds__(256)
gemm_fp8_f16_accumulate(const unsigned char *__restrict__ A, const unsigned char *__restrict__ B,
                  const float *__restrict__ scale_a, const float *__restrict__ scale_b,
                  __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ __align__(128) unsigned char As[2][BM][LDS];
  __shared__ __align__(128) unsigned char Bs[2][BN][LDS];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 4, wn = warp % 4; // warp tile: 64 rows x 32 columns
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int kTiles = (K + BK - 1) / BK;

  // 128 rows x 4 chunks of 16 bytes per operand: 2 chunks per thread each.
  auto load = [&](int buf, int k0) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      int idx = tid + e * 256, r = idx / 4, c = (idx % 4) * 16;
      int gm = m0 + r, gn = n0 + r, gk = k0 + c;
      bool va = gm < M && gk < K, vb = gn < N && gk < K;
      cp_async16(&As[buf][r][c], va ? A + (size_t)gm * K + gk : A, va);
      cp_async16(&Bs[buf][r][c], vb ? B + (size_t)gn * K + gk : B, vb);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  const unsigned zero[2] = {0u, 0u};
  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v)
        acc[i][j][v] = 0.f;

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
    unsigned part[4][4][2]; // this K tile's products in f16, promoted below
#pragma unroll
    for (int kk = 0; kk < BK; kk += 32) {
      unsigned a[4][4], b[4][2];
      // A fragment of rows 16i..16i+15: lanes 0-15 address rows at byte kk, lanes 16-31 the
      // same rows 16 bytes further.
#pragma unroll
      for (int i = 0; i < 4; ++i)
        ldmatrix_x4(a[i], &As[buf][wm * 64 + i * 16 + lane % 16][kk + (lane / 16) * 16]);
      // B fragments of two 8-column groups per ldmatrix: (n 0-7, bytes 0-15), (n 0-7, bytes
      // 16-31), (n 8-15, bytes 0-15), (n 8-15, bytes 16-31).
#pragma unroll
      for (int jp = 0; jp < 2; ++jp) {
        unsigned r[4];
        ldmatrix_x4(r, &Bs[buf][wn * 32 + jp * 16 + (lane / 16) * 8 + lane % 8]
                          [kk + ((lane / 8) % 2) * 16]);
        b[2 * jp][0] = r[0];
        b[2 * jp][1] = r[1];
        b[2 * jp + 1][0] = r[2];
        b[2 * jp + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (kk == 0)
            mma_16832(part[i][j], a[i], b[j][0], b[j][1], zero);
          else
            mma_16832(part[i][j], a[i], b[j][0], b[j][1], part[i][j]);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
      {
        float2 lo = unpack_half2(part[i][j][0]), hi = unpack_half2(part[i][j][1]);
        acc[i][j][0] += lo.x;
        acc[i][j][1] += lo.y;
        acc[i][j][2] += hi.x;
        acc[i][j][3] += hi.y;
      }
    __syncthreads(); // the buffer is overwritten by the next iteration's load
  }

  // Fragment layout: acc[i][j][2h + e] is row 16i + lane/4 + 8h, column 8j + 2*(lane%4) + e of
  // the warp tile.
  const float scale = __ldg(scale_a) * __ldg(scale_b);
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int row = m0 + wm * 64 + i * 16 + lane / 4 + 8 * h;
        int col = n0 + wn * 32 + j * 8 + 2 * (lane % 4);
        if (row < M && col < N)
          C[(size_t)row * N + col] = __float2bfloat16(acc[i][j][2 * h] * scale);
        if (row < M && col + 1 < N)
          C[(size_t)row * N + col + 1] = __float2bfloat16(acc[i][j][2 * h + 1] * scale);
      }
}
