// corpus-archs: sm_80
// Texture and surface objects: tex.1d/2d/3d fetches, tex with explicit LOD and
// gradients, tld4 (tex2Dgather), integer textures, surface loads and stores
// (suld/sust) with boundary modes, and txq/suq queries via inline asm.
#include <cstdint>

extern "C" __global__ void tex_fetch(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                                     cudaTextureObject_t ti, float4* out, int* iout) {
  int x = threadIdx.x, y = blockIdx.x;
  float u = (x + 0.5f) / 32.0f, v = (y + 0.5f) / 32.0f;
  float a = tex1Dfetch<float>(t1, x);
  float b = tex1D<float>(t1, u);
  float4 c = tex2D<float4>(t2, u, v);
  float4 d = tex2DLod<float4>(t2, u, v, 1.5f);
  float4 e = tex2DGrad<float4>(t2, u, v, make_float2(0.01f, 0.0f), make_float2(0.0f, 0.01f));
  float4 g = tex2Dgather<float4>(t2, u, v, 1);
  float h = tex3D<float>(t3, u, v, 0.5f);
  int4 iv = tex2D<int4>(ti, x, y);
  float4 r;
  r.x = a + b + c.x + d.x + e.x + g.x + h;
  r.y = c.y * d.y + e.y * g.y;
  r.z = c.z - d.z;
  r.w = c.w + g.w;
  out[y * blockDim.x + x] = r;
  int w;
  asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t2));
  iout[y * blockDim.x + x] = iv.x + iv.y + iv.z + iv.w + w;
}

extern "C" __global__ void surf_rw(cudaSurfaceObject_t s, cudaSurfaceObject_t s3, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float4 v = surf2Dread<float4>(s, x * (int)sizeof(float4), y, cudaBoundaryModeClamp);
  v.x += 1.0f;
  surf2Dwrite(v, s, x * (int)sizeof(float4), y, cudaBoundaryModeZero);
  uchar4 c = surf3Dread<uchar4>(s3, x * 4, y, 0, cudaBoundaryModeTrap);
  c.x ^= 0xff;
  surf3Dwrite(c, s3, x * 4, y, 1);
  int sw;
  asm("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(s));
  if (sw != w) surf2Dwrite(0.0f, s, 0, 0);
}
