//===- gqa-prefill-check.cpp - the GQA prefill corpora on a GPU, without ptxbench ---===//
//
// Runs one kernel of tasks/gqa_paged_prefill/solutions or
// tasks/gqa_ragged_prefill/solutions (their shared launch plan: grid
// (ceildiv(S, 16), HQ, B), 128 threads, (80*D+32)*4 bytes of shared memory,
// the tasks' arguments in order), compiled to a cubin, through the driver API
// on bf16 normal(0, 1) inputs and a shuffled page table, and checks O and LSE
// against an fp64 computation on the CPU under the tasks' tolerances
// (0.008 + 0.01|ref| for O, 1e-4 + 1e-4|ref| for LSE). Prints the kernel's
// time (one launch after a warm-up) and PASSED or INCORRECT. A quick check
// of the kernels' arithmetic, not a replacement for `ptxbench run`.
// bench/h200/gqa-prefill-check.sh builds it and runs the corpus.
//
// Usage: gqa-prefill-check CUBIN PAGED(0|1) B S P HQ HKV PS CHECK(0|1)
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>
#include <chrono>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char *s; cuGetErrorString(r, &s); printf("CUDA error %s at %s:%d\n", s, __FILE__, __LINE__); exit(2); } } while (0)
static unsigned short tobf(float f) { unsigned u; memcpy(&u, &f, 4); u += 0x7fff + ((u >> 16) & 1); return u >> 16; }
static float frombf(unsigned short b) { unsigned u = (unsigned)b << 16; float f; memcpy(&f, &u, 4); return f; }
int main(int argc, char **argv) {
  // argv: cubin paged(0/1) B S P HQ HKV PS reference(0/1)
  const char *cubin = argv[1]; int paged = atoi(argv[2]);
  int B = atoi(argv[3]), S = atoi(argv[4]), P = atoi(argv[5]), HQ = atoi(argv[6]), HKV = atoi(argv[7]), PS = atoi(argv[8]);
  int doref = atoi(argv[9]);
  const int D = 128, L = P + S, NP = (L + PS - 1) / PS;
  std::mt19937_64 rng(1234); std::normal_distribution<float> nd(0.f, 1.f);
  size_t nq = (size_t)B * S * HQ * D;
  size_t nkv = paged ? (size_t)B * NP * PS * HKV * D : (size_t)B * L * HKV * D;
  std::vector<unsigned short> q(nq), k(nkv), v(nkv);
  for (auto &x : q) x = tobf(nd(rng));
  for (auto &x : k) x = tobf(nd(rng));
  for (auto &x : v) x = tobf(nd(rng));
  std::vector<int> idx((size_t)B * NP);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = (int)i;
  std::shuffle(idx.begin(), idx.end(), rng);
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUmodule mod; CK(cuModuleLoad(&mod, cubin)); CUfunction fn; CK(cuModuleGetFunction(&fn, mod, "gqa_prefill_ffma"));
  int smem = (80 * D + 32) * 4;
  CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  CUdeviceptr dq, dk, dv, di, dO, dL;
  CK(cuMemAlloc(&dq, nq * 2)); CK(cuMemAlloc(&dk, nkv * 2)); CK(cuMemAlloc(&dv, nkv * 2)); CK(cuMemAlloc(&di, idx.size() * 4 + 4));
  CK(cuMemAlloc(&dO, nq * 2)); CK(cuMemAlloc(&dL, (size_t)B * S * HQ * 4));
  CK(cuMemcpyHtoD(dq, q.data(), nq * 2)); CK(cuMemcpyHtoD(dk, k.data(), nkv * 2)); CK(cuMemcpyHtoD(dv, v.data(), nkv * 2)); CK(cuMemcpyHtoD(di, idx.data(), idx.size() * 4));
  CK(cuMemsetD8(dO, 0xff, nq * 2)); CK(cuMemsetD8(dL, 0xff, (size_t)B * S * HQ * 4));
  void *pargs[11]; void *rargs[9];
  pargs[0] = &dq; pargs[1] = &dk; pargs[2] = &dv; pargs[3] = &di; pargs[4] = &dO; pargs[5] = &dL; pargs[6] = &S; pargs[7] = &P; pargs[8] = &HQ; pargs[9] = &HKV; pargs[10] = &PS;
  rargs[0] = &dq; rargs[1] = &dk; rargs[2] = &dv; rargs[3] = &dO; rargs[4] = &dL; rargs[5] = &S; rargs[6] = &P; rargs[7] = &HQ; rargs[8] = &HKV;
  auto launch = [&]() { CK(cuLaunchKernel(fn, (S + 15) / 16, HQ, B, 128, 1, 1, smem, 0, paged ? pargs : rargs, nullptr)); };
  launch(); CK(cuCtxSynchronize());
  auto t0 = std::chrono::steady_clock::now(); launch(); CK(cuCtxSynchronize());
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<unsigned short> o(nq); std::vector<float> lse((size_t)B * S * HQ);
  CK(cuMemcpyDtoH(o.data(), dO, nq * 2)); CK(cuMemcpyDtoH(lse.data(), dL, lse.size() * 4));
  printf("paged=%d B=%d S=%d P=%d HQ=%d HKV=%d PS=%d: %.2f ms\n", paged, B, S, P, HQ, HKV, PS, ms);
  if (!doref) return 0;
  int G = HQ / HKV; long bad = 0; double worst = 0, wlse = 0;
  std::vector<double> s(L), acc(D);
  for (int b = 0; b < B; ++b) for (int h = 0; h < HQ; ++h) for (int i = 0; i < S; ++i) {
    int g = h / G, seen = P + i + 1; double m = -1e300;
    auto row = [&](int t) -> size_t { return paged ? (((size_t)idx[(size_t)b * NP + t / PS] * PS + t % PS) * HKV + g) * D : (((size_t)b * L + t) * HKV + g) * D; };
    const unsigned short *qr = &q[(((size_t)b * S + i) * HQ + h) * D];
    for (int t = 0; t < seen; ++t) { double d = 0; size_t r = row(t); for (int e = 0; e < D; ++e) d += (double)frombf(qr[e]) * frombf(k[r + e]); s[t] = d / std::sqrt((double)D); m = std::max(m, s[t]); }
    double sum = 0; std::fill(acc.begin(), acc.end(), 0.0);
    for (int t = 0; t < seen; ++t) { double w = std::exp(s[t] - m); sum += w; size_t r = row(t); for (int e = 0; e < D; ++e) acc[e] += w * frombf(v[r + e]); }
    size_t out = ((size_t)b * S + i) * HQ + h;
    for (int e = 0; e < D; ++e) { double ref = acc[e] / sum, got = frombf(o[out * D + e]); double err = std::fabs(got - ref); double ratio = err / (0.008 + 0.01 * std::fabs(ref)); if (!(ratio <= 1)) ++bad; if (!(ratio <= worst)) worst = ratio; }
    double rl = m + std::log(sum); double el = std::fabs(lse[out] - rl) / (1e-4 + 1e-4 * std::fabs(rl)); if (!(el <= 1)) ++bad; if (!(el <= wlse)) wlse = el;
  }
  printf("  %s: %ld elements outside the tolerance; worst O error / allowance %.3g, LSE %.3g\n", bad ? "INCORRECT" : "PASSED", bad, worst, wlse);
  return 0;
}
