// corpus-archs: sm_80
// nvcuda::wmma fragments: f16 and bf16 m16n16k16, tf32 m16n16k8, f64 m8n8k4,
// u8 m16n16k16, row/col layouts, load/store with shared and global memory
// (wmma.load/wmma.mma/wmma.store instructions).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_f16(const half* A, const half* B, float* C, half* Ch) {
  __shared__ __align__(32) half sA[16 * 16];
  for (int i = threadIdx.x; i < 256; i += 32) sA[i] = A[i];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> ch;
  wmma::fill_fragment(c, 0.0f);
  wmma::fill_fragment(ch, __float2half(1.0f));
  wmma::load_matrix_sync(a, sA, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::mma_sync(c, a, b, c);
  wmma::mma_sync(ch, a, b, ch);
  for (int i = 0; i < c.num_elements; ++i) c.x[i] *= 0.5f;
  wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(Ch, ch, 16, wmma::mem_col_major);
}

extern "C" __global__ void wmma_bf16_tf32(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* Af, const float* Bf, float* C) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::mma_sync(c, a, b, c);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> at;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> bt;
  wmma::load_matrix_sync(at, Af, 8);
  wmma::load_matrix_sync(bt, Bf, 16);
  for (int i = 0; i < at.num_elements; ++i) at.x[i] = wmma::__float_to_tf32(at.x[i]);
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> ct;
  wmma::fill_fragment(ct, 0.0f);
  wmma::mma_sync(ct, at, bt, ct);
  wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(C + 256, ct, 16, wmma::mem_col_major);
}

extern "C" __global__ void wmma_f64_u8(const double* A, const double* B, double* C, const unsigned char* Ai, const unsigned char* Bi, int* Ci) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> c;
  wmma::fill_fragment(c, 0.0);
  wmma::load_matrix_sync(a, A, 4);
  wmma::load_matrix_sync(b, B, 4);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(C, c, 8, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> ai;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> bi;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> ci;
  wmma::fill_fragment(ci, 0);
  wmma::load_matrix_sync(ai, Ai, 16);
  wmma::load_matrix_sync(bi, Bi, 16);
  wmma::mma_sync(ci, ai, bi, ci, true);
  wmma::store_matrix_sync(Ci, ci, 16, wmma::mem_row_major);
}
