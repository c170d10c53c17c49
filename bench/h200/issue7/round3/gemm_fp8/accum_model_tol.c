// The task's accuracy model (tasks/gemm_fp8_e4m3/accum_model.c) with the tolerance as parameters,
// for round 3 of issue 7: the task now checks atol 0.5 + rtol 0.02 * |ref|, and scale_a, scale_b
// ~ U(0.5, 2) as in task.json. Model unchanged otherwise: every `chunk` products summed exactly,
// added to an accumulator truncated to FRAC_BITS mantissa bits, promoted into fp32 every PROMOTE
// values of K (0: never); K = 5120; output rounded to bf16.
//
//   cc -O2 -o accum_model_tol accum_model_tol.c -lm
//   ./accum_model_tol 32 13 256 100000          # v7: worst element 0.185 of its allowance
//   ./accum_model_tol 32 12 256 100000          # one bit worse than the model: 0.318
//   ./accum_model_tol 32 13 0 100000            # no promotion: 0.22% out (H200: 0.002-0.07%)
//   ./accum_model_tol 32 13 128 100000 0.1 0.02 # the task's old tolerance
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
    fprintf(stderr, "usage: %s CHUNK FRAC_BITS PROMOTE [SAMPLES [ATOL [RTOL]]]\n", argv[0]);
    return 2;
  }
  const int K = 5120, chunk = atoi(argv[1]), frac = atoi(argv[2]), promote = atoi(argv[3]);
  const int samples = argc > 4 ? atoi(argv[4]) : 20000;
  const double atol = argc > 5 ? atof(argv[5]) : 0.5, rtol = argc > 6 ? atof(argv[6]) : 0.02;
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
    double scale = (0.5 + 1.5 * rand() / (double)RAND_MAX) * (0.5 + 1.5 * rand() / (double)RAND_MAX);
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
