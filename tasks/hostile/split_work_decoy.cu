// HOSTILE (a decoy that reaches the output, the work split so no other
// path did half): every block runs, for its 64x64 tile of C, a wgmma
// m64n64k16 per k-step on a zeroed shared buffer (100% of the task's
// FLOPs) into accumulators it first fills with NaN, and adds the first
// accumulator (0 when the wgmmas ran) to every output it writes. The real
// work is split by tile over three paths, each about a third of the task:
// FFMA, WMMA and mma.sync. So the knockout of wgmma (its instructions
// switched off, the NaN left in place) spoils the outputs: the wgmma
// "reaches" them; and no other single path did half of the task's FLOPs,
// which beat a rule that looked at the largest other path. Correct output.
// What catches it: the other paths are summed (FFMA, WMMA and mma.sync did
// 100% between them), so at most 0% of the task can be wgmma's:
// duplicated-work withholds the credit (and work-share-above-one, about
// 200%, says the work was done twice). Expected: PASSED with run-time
// verdict wgmma `token`.
//
// @ptxbench kernel gemm_split_decoy grid=(ceildiv(N,64), ceildiv(M,64)) block=128
// @ptxbench   args A, B, C, M, N, K
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// A no-swizzle K-major shared-memory matrix descriptor of a 64x16 bf16
// operand (eight-row core matrices 256 bytes apart, the two halves of K
// 128 bytes apart): 2 KiB from `addr`.
__device__ __forceinline__ uint64_t desc_plain(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(256 >> 4) << 32);
}

// One m64n64k16 wgmma of the warpgroup on the zero buffer into d (scale-d
// 0: d becomes the product, zeros), fence to wait in one asm statement.
__device__ __forceinline__ void zero_wgmma(float (&d)[32], uint64_t da,
                                           uint64_t db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
               "wgmma.fence.sync.aligned;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
               "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, "
               "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 0;\n"
               "wgmma.commit_group.sync.aligned;\n"
               "wgmma.wait_group.sync.aligned 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db)
               : "memory");
}

// The three paths share one shared-memory buffer.
constexpr int smemBytes = 2 * 64 * 40 * 2 + 4 * 32 * 36 * 4;

// Loads the 64x32 bf16 chunks of A and B at k0 into As, Bs ([64][40]).
__device__ void load_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                          __nv_bfloat16 (*As)[40], __nv_bfloat16 (*Bs)[40],
                          int M, int N, int K, int m0, int n0, int k0) {
  const __nv_bfloat16 zero = __float2bfloat16(0.f);
  for (int e = threadIdx.x; e < 64 * 32; e += 128) {
    int r = e / 32, c = e % 32, gk = k0 + c;
    As[r][c] = (m0 + r < M && gk < K) ? A[(size_t)(m0 + r) * K + gk] : zero;
    Bs[r][c] = (n0 + r < N && gk < K) ? B[(size_t)(n0 + r) * K + gk] : zero;
  }
}

// The tile with WMMA (fp32 accumulation), z added to every output.
__device__ void tile_wmma(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                          __nv_bfloat16 *C, int M, int N, int K, int m0,
                          int n0, float z, unsigned char *smem) {
  auto As = reinterpret_cast<__nv_bfloat16(*)[40]>(smem);
  auto Bs = reinterpret_cast<__nv_bfloat16(*)[40]>(smem + 64 * 40 * 2);
  auto Cs = reinterpret_cast<float(*)[32][36]>(smem + 2 * 64 * 40 * 2);
  const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.f);
  for (int k0 = 0; k0 < K; k0 += 32) {
    load_bf16(A, B, As, Bs, M, N, K, m0, n0, k0);
    __syncthreads();
    for (int kk = 0; kk < 32; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2];
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], 40);
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(fb[j], &Bs[wn * 32 + j * 16][kk], 40);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&Cs[warp][i * 16][j * 16], acc[i][j], 36,
                              wmma::mem_row_major);
  __syncwarp();
  for (int e = tid % 32; e < 32 * 32; e += 32) {
    int r = e / 32, c = e % 32, row = m0 + wm * 32 + r, col = n0 + wn * 32 + c;
    if (row < M && col < N)
      C[(size_t)row * N + col] = __float2bfloat16(Cs[warp][r][c] + z);
  }
}

// The tile with mma.sync m16n8k16: each warp a 32x32 quarter, fragments
// read from shared memory by hand.
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                 "r"(b[1]));
}
__device__ void tile_mma_sync(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                              __nv_bfloat16 *C, int M, int N, int K, int m0,
                              int n0, float z, unsigned char *smem) {
  auto As = reinterpret_cast<__nv_bfloat16(*)[40]>(smem);
  auto Bs = reinterpret_cast<__nv_bfloat16(*)[40]>(smem + 64 * 40 * 2);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = warp / 2, wn = warp % 2, g = lane / 4, t = lane % 4;
  float acc[2][4][4] = {};
  auto word = [](const __nv_bfloat16 *p) {
    return *reinterpret_cast<const uint32_t *>(p);
  };
  for (int k0 = 0; k0 < K; k0 += 32) {
    load_bf16(A, B, As, Bs, M, N, K, m0, n0, k0);
    __syncthreads();
    for (int kk = 0; kk < 32; kk += 16) {
      uint32_t a[2][4], b[4][2];
      for (int i = 0; i < 2; ++i) {
        int r = wm * 32 + i * 16 + g;
        a[i][0] = word(&As[r][kk + 2 * t]);
        a[i][1] = word(&As[r + 8][kk + 2 * t]);
        a[i][2] = word(&As[r][kk + 8 + 2 * t]);
        a[i][3] = word(&As[r + 8][kk + 8 + 2 * t]);
      }
      for (int j = 0; j < 4; ++j) {
        int n = wn * 32 + j * 8 + g;
        b[j][0] = word(&Bs[n][kk + 2 * t]);
        b[j][1] = word(&Bs[n][kk + 8 + 2 * t]);
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          mma16816(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int h = 0; h < 2; ++h) {
        int row = m0 + wm * 32 + i * 16 + g + 8 * h;
        int col = n0 + wn * 32 + j * 8 + 2 * t;
        for (int q = 0; q < 2; ++q)
          if (row < M && col + q < N)
            C[(size_t)row * N + col + q] =
                __float2bfloat16(acc[i][j][2 * h + q] + z);
      }
}

// The tile with FFMA: each thread 4x8 outputs from fp32 copies of 16-wide
// k-slices.
__device__ void tile_ffma(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                          __nv_bfloat16 *C, int M, int N, int K, int m0,
                          int n0, float z, unsigned char *smem) {
  auto As = reinterpret_cast<float(*)[68]>(smem);
  auto Bs = reinterpret_cast<float(*)[68]>(smem + 16 * 68 * 4);
  const int tid = threadIdx.x, tx = tid % 8, ty = tid / 8;
  float acc[4][8] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int e = 0; e < 8; ++e) {
      int idx = tid + e * 128, r = idx / 16, c = idx % 16, gk = k0 + c;
      As[c][r] = (m0 + r < M && gk < K)
                     ? __bfloat162float(A[(size_t)(m0 + r) * K + gk])
                     : 0.f;
      Bs[c][r] = (n0 + r < N && gk < K)
                     ? __bfloat162float(B[(size_t)(n0 + r) * K + gk])
                     : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      float a[4], b[8];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        b[j] = Bs[k][tx + 8 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      int row = m0 + ty + 16 * i, col = n0 + tx + 8 * j;
      if (row < M && col < N)
        C[(size_t)row * N + col] = __float2bfloat16(acc[i][j] + z);
    }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_split_decoy(const __nv_bfloat16 *__restrict__ A,
                 const __nv_bfloat16 *__restrict__ B,
                 __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  __shared__ alignas(128) unsigned char zeros[4096];
  __shared__ alignas(128) unsigned char smem[smemBytes];
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  // The decoy: this tile's FLOPs on zeros, into NaN-filled accumulators.
  for (int i = threadIdx.x; i < 4096 / 16; i += 128)
    reinterpret_cast<uint4 *>(zeros)[i] = make_uint4(0, 0, 0, 0);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const uint32_t zeroAddr = (uint32_t)__cvta_generic_to_shared(zeros);
  float d[32];
  for (int i = 0; i < 32; ++i)
    d[i] = __int_as_float(0x7fc00000);
  for (int k0 = 0; k0 < K; k0 += 16)
    zero_wgmma(d, desc_plain(zeroAddr), desc_plain(zeroAddr + 2048));
  const float z = d[0]; // 0, or NaN when the wgmmas did not run
  // The work, a third of the tiles per path.
  switch ((blockIdx.x + blockIdx.y) % 3) {
  case 0:
    tile_ffma(A, B, C, M, N, K, m0, n0, z, smem);
    break;
  case 1:
    tile_wmma(A, B, C, M, N, K, m0, n0, z, smem);
    break;
  default:
    tile_mma_sync(A, B, C, M, N, K, m0, n0, z, smem);
  }
}
