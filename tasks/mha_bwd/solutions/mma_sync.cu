// Attention backward, FlashAttention-2 style with Ampere tensor cores:
// cp.async tiles, ldmatrix, mma.sync.m16n8k16 bf16 with fp32 accumulation.
// The fallback a model typically writes for Hopper: correct, but warp-level
// mma.sync reaches only a fraction of what wgmma does. Three kernels:
//
//   1. mha_bwd_prep: per query row, Delta = sum_d dO*O and LSE*log2(e), into
//      workspaces padded to a multiple of 64 rows per head; padding rows get
//      LSE = +inf (so P = exp2(s - inf) = 0) and Delta = 0.
//   2. mha_bwd_mma: one block (8 warps) per (64-key tile, b*h). K and V stay
//      in shared memory; for each 64-query tile (causal: from the diagonal
//      on) it computes S^T = K Q^T and dP^T = V dO^T (keys as rows, so P^T
//      and dS^T come out with keys as rows), writes P^T and dS^T to shared
//      memory as bf16, accumulates dV += P^T dO and dK += dS^T Q in
//      registers and adds dS K into the fp32 dQ workspace with atomicAdd.
//   3. mha_bwd_dq_convert: dQ = bf16(scale * dq_acc).
//
// Warp w's tiles: phase 1 keys 16*(w%4).., queries 32*(w/4)..; phases 2 and
// 3 rows 16*(w%4).. (keys for dV/dK, queries for dQ), head-dimension
// columns 64*(w/4)... Operands whose reduction index is not contiguous in
// shared memory (dO, Q and K as B; dS as the A of dQ) are read with
// ldmatrix.trans. D = 128 is compiled in; the scale is 1/sqrt(128).
//
// @ptxbench kernel mha_bwd_prep grid=B*H*ceildiv(S,64)*8 block=256
// @ptxbench   args O, dO, LSE, lse2, delta, S, B*H*ceildiv(S,64)*64
// @ptxbench kernel mha_bwd_mma grid=(ceildiv(S,64), B*H) block=256 smem=88576
// @ptxbench   args Q, K, V, dO, lse2, delta, dq_acc, dK, dV, S, CAUSAL
// @ptxbench kernel mha_bwd_dq_convert grid=ceildiv(B*H*S*32, 256) block=256
// @ptxbench   args dq_acc, dQ, B*H*S*32
// @ptxbench workspace lse2 bytes=4*B*H*ceildiv(S,64)*64
// @ptxbench workspace delta bytes=4*B*H*ceildiv(S,64)*64
// @ptxbench workspace dq_acc bytes=4*B*H*S*D zero
#include <cuda_bf16.h>

#define HEAD_DIM 128
#define TILE 64              // keys per block, queries per iteration
#define LDH (HEAD_DIM + 8)   // padded bf16 row (272 B): ldmatrix conflict-free
#define LDT (TILE + 8)       // padded bf16 row (144 B) of the P^T / dS^T tiles
#define THREADS 256
#define SOFTMAX_SCALE 0.08838834764831845f // 1/sqrt(HEAD_DIM)
#define LOG2E 1.4426950408889634f

// Shared memory: K, V, Q, dO tiles [TILE][LDH] bf16, P^T and dS^T [TILE][LDT]
// bf16, then the current query tile's LSE*log2(e) and Delta (fp32).
#define SMEM_BYTES (4 * TILE * LDH * 2 + 2 * TILE * LDT * 2 + 2 * TILE * 4)
static_assert(SMEM_BYTES == 88576, "update smem= in the launch plan");

// Per query row of the [B*H, Spad] padded layout (Spad = S rounded up to 64):
// Delta = dot(dO, O) and LSE * log2(e); padding rows: +inf and 0. One warp
// per row, 4 columns per lane.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_prep(const __nv_bfloat16 *__restrict__ O,
             const __nv_bfloat16 *__restrict__ dO,
             const float *__restrict__ LSE, float *__restrict__ lse2,
             float *__restrict__ delta, int S, int paddedRows) {
  const int row = blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= paddedRows)
    return;
  const int Spad = (S + TILE - 1) / TILE * TILE;
  const int bh = row / Spad, i = row % Spad;
  if (i >= S) {
    if (lane == 0) {
      lse2[row] = __int_as_float(0x7f800000); // +inf: P = 0 for this row
      delta[row] = 0.f;
    }
    return;
  }
  const size_t src = ((size_t)bh * S + i) * HEAD_DIM + 4 * lane;
  const uint2 o = *reinterpret_cast<const uint2 *>(O + src);
  const uint2 g = *reinterpret_cast<const uint2 *>(dO + src);
  const float2 o0 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&o.x));
  const float2 o1 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&o.y));
  const float2 g0 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&g.x));
  const float2 g1 = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&g.y));
  float sum = o0.x * g0.x + o0.y * g0.y + o1.x * g1.x + o1.y * g1.y;
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) {
    delta[row] = sum;
    lse2[row] = LSE[(size_t)bh * S + i] * LOG2E;
  }
}

// dQ = bf16(scale * acc), four elements per thread.
extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_dq_convert(const float *__restrict__ acc, __nv_bfloat16 *__restrict__ dQ,
                   int quads) {
  const int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= quads)
    return;
  const float4 v = reinterpret_cast<const float4 *>(acc)[i];
  __nv_bfloat162 *out = reinterpret_cast<__nv_bfloat162 *>(dQ) + 2 * i;
  out[0] = __floats2bfloat162_rn(SOFTMAX_SCALE * v.x, SOFTMAX_SCALE * v.y);
  out[1] = __floats2bfloat162_rn(SOFTMAX_SCALE * v.z, SOFTMAX_SCALE * v.w);
}

__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// 16 bytes global -> shared; valid == false zero-fills them (source size 0).
__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)),
               "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

__device__ __forceinline__ void ldsm_x4_trans(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

// c[4] += a (16x16, row) * b (16x8, col), bf16 in, fp32 accumulate.
__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4],
                                          unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Rows [row0, row0 + TILE) of one head's [S, D] matrix into a padded tile,
// 16-byte cp.async pieces, rows past S zero-filled. Not committed here.
__device__ __forceinline__ void load_tile_async(__nv_bfloat16 *dst,
                                                const __nv_bfloat16 *__restrict__ src,
                                                int row0, int S) {
#pragma unroll
  for (int e = 0; e < TILE * HEAD_DIM / 8 / THREADS; ++e) {
    const int idx = threadIdx.x + e * THREADS;
    const int r = idx / (HEAD_DIM / 8), c = (idx % (HEAD_DIM / 8)) * 8;
    const bool valid = row0 + r < S;
    cp_async16(dst + r * LDH + c, valid ? src + (size_t)(row0 + r) * HEAD_DIM + c : src,
               valid);
  }
}

extern "C" __global__ void __launch_bounds__(THREADS)
mha_bwd_mma(const __nv_bfloat16 *__restrict__ Q, const __nv_bfloat16 *__restrict__ K,
            const __nv_bfloat16 *__restrict__ V, const __nv_bfloat16 *__restrict__ dO,
            const float *__restrict__ lse2, const float *__restrict__ delta,
            float *__restrict__ dq_acc, __nv_bfloat16 *__restrict__ dK,
            __nv_bfloat16 *__restrict__ dV, int S, int causal) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *Ks = reinterpret_cast<__nv_bfloat16 *>(smem);
  __nv_bfloat16 *Vs = Ks + TILE * LDH;
  __nv_bfloat16 *Qs = Vs + TILE * LDH;
  __nv_bfloat16 *dOs = Qs + TILE * LDH;
  __nv_bfloat16 *Pt = dOs + TILE * LDH; // P^T  [key][query]
  __nv_bfloat16 *dSt = Pt + TILE * LDT; // dS^T [key][query]
  float *lse2s = reinterpret_cast<float *>(dSt + TILE * LDT);
  float *dlts = lse2s + TILE;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int rw = 16 * (warp % 4); // warp's 16 rows within the tile
  const int half = warp / 4;       // phase 1: query half; phases 2-3: column half
  const int Spad = (S + TILE - 1) / TILE * TILE;
  const size_t head = (size_t)blockIdx.y * S;
  const int k0 = blockIdx.x * TILE;
  Q += head * HEAD_DIM;
  K += head * HEAD_DIM;
  V += head * HEAD_DIM;
  dO += head * HEAD_DIM;
  dq_acc += head * HEAD_DIM;
  lse2 += (size_t)blockIdx.y * Spad;
  delta += (size_t)blockIdx.y * Spad;

  load_tile_async(Ks, K, k0, S);
  load_tile_async(Vs, V, k0, S);

  float dv[8][4], dk[8][4];
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      dv[j][e] = dk[j][e] = 0.f;

  const float scaleLog2 = SOFTMAX_SCALE * LOG2E;
  const int firstTile = causal ? blockIdx.x : 0; // causal: queries >= k0 only
  const int numTiles = Spad / TILE;
  for (int t = firstTile; t < numTiles; ++t) {
    const int q0 = t * TILE;
    load_tile_async(Qs, Q, q0, S);
    load_tile_async(dOs, dO, q0, S);
    asm volatile("cp.async.commit_group;" ::: "memory");
    if (tid < TILE)
      lse2s[tid] = lse2[q0 + tid];
    else if (tid < 2 * TILE)
      dlts[tid - TILE] = delta[q0 + tid - TILE];
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();

    // Phase 1: S^T and dP^T for keys rw.. (16) x queries 32*half.. (32).
    float s[4][4], dp[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[j][e] = dp[j][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM; kk += 16) {
      unsigned ak[4], av[4];
      ldsm_x4(ak, Ks + (rw + lane % 16) * LDH + kk + (lane / 16) * 8);
      ldsm_x4(av, Vs + (rw + lane % 16) * LDH + kk + (lane / 16) * 8);
#pragma unroll
      for (int jp = 0; jp < 2; ++jp) {
        // B = Q^T / dO^T: rows of Q are the n index, d the k index.
        const int n = 32 * half + 16 * jp + (lane / 16) * 8 + lane % 8;
        const int k = kk + ((lane / 8) % 2) * 8;
        unsigned bq[4], bo[4];
        ldsm_x4(bq, Qs + n * LDH + k);
        ldsm_x4(bo, dOs + n * LDH + k);
        mma_16816(s[2 * jp], ak, bq[0], bq[1]);
        mma_16816(s[2 * jp + 1], ak, bq[2], bq[3]);
        mma_16816(dp[2 * jp], av, bo[0], bo[1]);
        mma_16816(dp[2 * jp + 1], av, bo[2], bo[3]);
      }
    }

    // P^T = exp2(scale*log2e * s - LSE*log2e), dS^T = P^T * (dP^T - Delta):
    // fragment element e of tile j is key rw + lane/4 + 8*(e/2), query
    // 32*half + 8j + 2*(lane%4) + e%2.
    const bool needMask = (causal && q0 < k0 + TILE) || k0 + TILE > S;
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int key = rw + lane / 4 + 8 * hr;
        const int qc = 32 * half + 8 * j + 2 * (lane % 4);
        float p[2], ds[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          p[e] = exp2f(fmaf(s[j][2 * hr + e], scaleLog2, -lse2s[qc + e]));
          if (needMask) {
            const int kg = k0 + key, qg = q0 + qc + e;
            if (kg >= S || (causal && kg > qg))
              p[e] = 0.f;
          }
          ds[e] = p[e] * (dp[j][2 * hr + e] - dlts[qc + e]);
        }
        *reinterpret_cast<__nv_bfloat162 *>(Pt + key * LDT + qc) =
            __floats2bfloat162_rn(p[0], p[1]);
        *reinterpret_cast<__nv_bfloat162 *>(dSt + key * LDT + qc) =
            __floats2bfloat162_rn(ds[0], ds[1]);
      }
    __syncthreads();

    // Phase 2: dV += P^T dO and dK += dS^T Q for keys rw.. x columns 64*half..
#pragma unroll
    for (int kq = 0; kq < TILE; kq += 16) {
      unsigned ap[4], ads[4];
      ldsm_x4(ap, Pt + (rw + lane % 16) * LDT + kq + (lane / 16) * 8);
      ldsm_x4(ads, dSt + (rw + lane % 16) * LDT + kq + (lane / 16) * 8);
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        // B = dO / Q: rows are the k index (queries), d the n index.
        const int k = kq + ((lane / 8) % 2) * 8 + lane % 8;
        const int n = 64 * half + 16 * np + (lane / 16) * 8;
        unsigned bo[4], bq[4];
        ldsm_x4_trans(bo, dOs + k * LDH + n);
        ldsm_x4_trans(bq, Qs + k * LDH + n);
        mma_16816(dv[2 * np], ap, bo[0], bo[1]);
        mma_16816(dv[2 * np + 1], ap, bo[2], bo[3]);
        mma_16816(dk[2 * np], ads, bq[0], bq[1]);
        mma_16816(dk[2 * np + 1], ads, bq[2], bq[3]);
      }
    }

    // Phase 3: dQ partial = dS K for queries rw.. x columns 64*half.., added
    // to the workspace (other key blocks add to the same rows).
    float dq[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        dq[j][e] = 0.f;
#pragma unroll
    for (int kk = 0; kk < TILE; kk += 16) {
      // A = dS (queries x keys), stored transposed as dS^T[key][query].
      unsigned ads[4];
      ldsm_x4_trans(ads, dSt + (kk + (lane / 16) * 8 + lane % 8) * LDT + rw +
                             ((lane / 8) % 2) * 8);
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        const int k = kk + ((lane / 8) % 2) * 8 + lane % 8;
        const int n = 64 * half + 16 * np + (lane / 16) * 8;
        unsigned bk[4];
        ldsm_x4_trans(bk, Ks + k * LDH + n);
        mma_16816(dq[2 * np], ads, bk[0], bk[1]);
        mma_16816(dq[2 * np + 1], ads, bk[2], bk[3]);
      }
    }
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int query = q0 + rw + lane / 4 + 8 * hr;
      if (query >= S)
        continue;
      float *row = dq_acc + (size_t)query * HEAD_DIM + 64 * half + 2 * (lane % 4);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        atomicAdd(row + 8 * j, dq[j][2 * hr]);
        atomicAdd(row + 8 * j + 1, dq[j][2 * hr + 1]);
      }
    }
    __syncthreads(); // the next tile overwrites Q, dO, P^T, dS^T
  }

  // dK (scaled) and dV for keys rw.. x columns 64*half..
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const int key = k0 + rw + lane / 4 + 8 * hr;
    if (key >= S)
      continue;
    const size_t at = (size_t)key * HEAD_DIM + 64 * half + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      *reinterpret_cast<__nv_bfloat162 *>(dV + head * HEAD_DIM + at + 8 * j) =
          __floats2bfloat162_rn(dv[j][2 * hr], dv[j][2 * hr + 1]);
      *reinterpret_cast<__nv_bfloat162 *>(dK + head * HEAD_DIM + at + 8 * j) =
          __floats2bfloat162_rn(SOFTMAX_SCALE * dk[j][2 * hr],
                                SOFTMAX_SCALE * dk[j][2 * hr + 1]);
    }
  }
}
