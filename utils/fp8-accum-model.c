// A CPU model of Hopper's reduced-precision fp8 accumulation, checked against the task's
// tolerances: why the tensor-core solutions of gemm_fp8_e4m3 promote partial sums into fp32.
//
// Model: every `chunk` products (32: one k32 wgmma or mma.sync) are summed exactly and added to
// the tensor-core accumulator, whose result is truncated to `frac` mantissa bits (13 per public
// measurements of the H100; 23 = plain fp32). With `promote` > 0 the accumulator is added into an
// exact fp32 sum and restarted every `promote` values of K. Inputs follow task.json: A ~ N(0,1),
// B ~ N(0,1) with 1e-4 spikes of x16, both rounded to e4m3; scale_a, scale_b ~ U(SCALE_LO, 2);
// K = 5120; the output rounded to bf16. Each sample is one output element.
// Prints the fraction of elements outside atol ATOL + rtol RTOL * |ref|, the relative L2 error and
// the worst element's error as a fraction of its allowance (> 1 fails). The defaults (ATOL 0.1,
// RTOL 0.02, SCALE_LO 0.25) are the task's first tolerance and scales; task.json now has atol 0.5
// and scales ~ U(0.5, 2), i.e. `... SAMPLES 0.5 0.02 0.5`.
//
//   cc -O2 -o accum_model utils/fp8-accum-model.c -lm
//   ./accum_model 32 13 0    # plain wgmma accumulation: 2.3% of elements out of tolerance
//   ./accum_model 8 13 0     # the same if the hardware truncated every 8 products: 21%
//   ./accum_model 32 13 128  # promotion every 128 (wgmma_tma*.cu): worst element at 0.24
//   ./accum_model 32 13 256  # promotion every 256: worst element at 0.76 with 100000 samples
//   ./accum_model 32 23 0    # exact fp32 accumulation: worst element at 0.19
// With the task's present tolerance and scales:
//   ./accum_model 32 13 256 100000 0.5 0.02 0.5   # worst element 0.185 of its allowance
//   ./accum_model 32 12 256 100000 0.5 0.02 0.5   # one mantissa bit fewer: 0.318
//   ./accum_model 32 13 0 100000 0.5 0.02 0.5     # no promotion: 0.22% out (H200: 0.002-0.07%)
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double gauss(void) {
  double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = (rand() + 1.0) / (RAND_MAX + 2.0);
  return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

// Round to nearest even with 3 mantissa bits, saturating at 448; subnormal step 2^-9.
static float to_e4m3(float x) {
  float a = fabsf(x);
  if (a > 448)
    a = 448;
  int e;
  frexpf(a, &e);
  int ue = e - 1 < -6 ? -6 : e - 1;
  float step = ldexpf(1.f, ue - 3);
  float r = nearbyintf(a / step) * step;
  return copysignf(r > 448 ? 448 : r, x);
}

static float truncate_mantissa(float x, int frac) {
  uint32_t u;
  memcpy(&u, &x, 4);
  u &= ~((1u << (23 - frac)) - 1);
  memcpy(&x, &u, 4);
  return x;
}

static float to_bf16(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
  memcpy(&x, &u, 4);
  return x;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s CHUNK FRAC_BITS PROMOTE [SAMPLES [ATOL [RTOL [SCALE_LO]]]]\n",
            argv[0]);
    return 2;
  }
  const int K = 5120, chunk = atoi(argv[1]), frac = atoi(argv[2]), promote = atoi(argv[3]);
  const int samples = argc > 4 ? atoi(argv[4]) : 20000;
  const double atol = argc > 5 ? atof(argv[5]) : 0.1, rtol = argc > 6 ? atof(argv[6]) : 0.02;
  const double scale_lo = argc > 7 ? atof(argv[7]) : 0.25; // scale_a, scale_b ~ U(scale_lo, 2)
  float *a = malloc(K * sizeof(float)), *b = malloc(K * sizeof(float));
  long fails = 0;
  double errSq = 0, refSq = 0, worst = 0;
  srand(1);
  for (int t = 0; t < samples; ++t) {
    for (int k = 0; k < K; ++k) {
      a[k] = to_e4m3(gauss());
      double v = gauss();
      if (rand() < RAND_MAX * 1e-4)
        v *= 16;
      b[k] = to_e4m3(v);
    }
    double scale = (scale_lo + (2 - scale_lo) * rand() / (double)RAND_MAX) *
                   (scale_lo + (2 - scale_lo) * rand() / (double)RAND_MAX);
    float ref = 0;
    for (int k = 0; k < K; ++k)
      ref = fmaf(a[k], b[k], ref);
    float tc = 0, sum = 0;
    for (int k0 = 0; k0 < K; k0 += chunk) {
      double part = 0;
      for (int k = k0; k < k0 + chunk; ++k)
        part += (double)a[k] * b[k];
      tc = truncate_mantissa((float)(tc + part), frac);
      if (promote && (k0 + chunk) % promote == 0) {
        sum += tc;
        tc = 0;
      }
    }
    sum += tc;
    double out = to_bf16((float)(scale * sum)), r = scale * ref;
    double err = fabs(out - r), allowed = atol + rtol * fabs(r);
    fails += err > allowed;
    worst = fmax(worst, err / allowed);
    errSq += err * err;
    refSq += r * r;
  }
  printf("chunk %d, %d mantissa bits, promote every %d: %ld/%d out of tolerance (%.2f%%), "
         "rel_l2 %.5f, worst element %.3f of its allowance\n",
         chunk, frac, promote, fails, samples, 100.0 * fails / samples, sqrt(errSq / refSq), worst);
  free(a);
  free(b);
  return 0;
}
