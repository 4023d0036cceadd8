/* test_lle_kf.c - the error bound of CUDA's FP32 KNN filter (k_lle_kf_bounds in kernels/k_lle.h)
 * on the host: points centred on their bounding box and rounded to FP32 as kf_to_float does,
 * FP32 squared distances computed as kf_dist does (float4 groups, two fused multiply-add
 * chains, zero padding to a multiple of 4), and for every pair lo(d) <= s <= hi(d), s the true
 * distance of the double points (in long double).  Data that stress each term: uniform, close
 * pairs far from the centre (beta), antipodal points whose sum rounds one way (gam), subnormal
 * scales (eta), a lattice with exact ties, an offset of 1e6.  Also the bound is useful: on uniform D = 32 data hi/lo - 1 <
 * 1e-4 at the typical neighbour distance.  Exit 0 pass, 1 fail. */
#include "k_lle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* xorshift64* in [0, 1).  Local. */
static double urand(uint64_t *s) {
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * 0x1p-53;
}

/* kf_dist on the host: the same operation order (float4 groups, two chains).  Local. */
static float kf_dist_host(const float *a, const float *b, int DP) {
  float a0 = 0.0f, a1 = 0.0f;
  for (int c = 0; c < DP; c += 4) {
    float t0 = a[c] - b[c], t1 = a[c + 1] - b[c + 1], t2 = a[c + 2] - b[c + 2], t3 = a[c + 3] - b[c + 3];
    a0 = fmaf(t0, t0, a0);
    a1 = fmaf(t1, t1, a1);
    a0 = fmaf(t2, t2, a0);
    a1 = fmaf(t3, t3, a1);
  }
  return a0 + a1;
}

/* Check every pair of the n x dim points x; returns the number of violations, prints the
 * worst relative slack and (for the usefulness check) the median hi/lo - 1.  Local. */
static int check_set(const char *name, const double *x, int n, int dim, double *spread) {
  int DP = (dim + 3) / 4 * 4, bad = 0;
  double ctr[64], half2 = 0, worst = INFINITY;
  for (int c = 0; c < dim; c++) {   /* kf_bbox_*: centre and radius */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) { lo = fmin(lo, x[i * dim + c]); hi = fmax(hi, x[i * dim + c]); }
    ctr[c] = 0.5 * (lo + hi);
    double h = fmax(hi - ctr[c], ctr[c] - lo) * (1 + 0x1p-50);
    half2 += h * h;
  }
  k_lle_kf_bound b = k_lle_kf_bounds(dim, sqrt(half2) * (1 + 1e-14));
  float *xf = calloc((size_t)n * DP, sizeof *xf);
  double *ratio = malloc((size_t)n * n * sizeof *ratio);
  int nr = 0;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < dim; c++) xf[i * DP + c] = (float)(x[i * dim + c] - ctr[c]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (i == j) continue;
      long double s2 = 0;
      for (int c = 0; c < dim; c++) {
        long double t = (long double)x[i * dim + c] - (long double)x[j * dim + c];
        s2 += t * t;
      }
      double s = (double)sqrtl(s2), d = kf_dist_host(xf + i * DP, xf + j * DP, DP);
      double hi = k_lle_kf_hi(&b, d), lo = sqrt(fmax(d - b.eta, 0) / (1 + b.gam)) - b.beta;
      /* reach(s) is the largest d that lo allows for a true distance s: d <= reach(s) */
      if (!(lo <= s && s <= hi && d <= k_lle_kf_reach(&b, s))) {
        if (bad < 3) printf("FAIL %s: pair (%d, %d): true %.17g outside [%.17g, %.17g] (FP32 d %.9g)\n", name, i, j, s, lo, hi, d);
        bad++;
      }
      if (s > 0) {
        double slack = fmin(s - lo, hi - s) / s;
        if (slack < worst) worst = slack;
        ratio[nr++] = hi / fmax(lo, 1e-300) - 1;
      }
    }
  double med = 0;
  if (nr) {   /* the median by a partial selection sort would be slow: the mean of a sample is enough */
    double sum = 0;
    int cnt = 0;
    for (int t = 0; t < nr; t += 97) { sum += ratio[t]; cnt++; }
    med = sum / cnt;
  }
  if (spread) *spread = med;
  printf("%s %s: n = %d, D = %d: %d of %d pairs outside the bound; least relative slack %.3g, mean hi/lo - 1 %.3g\n",
         bad ? "FAIL" : "ok  ", name, n, dim, bad, n * (n - 1), worst, med);
  free(xf);
  free(ratio);
  return bad;
}

int main(void) {
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  static double x[600 * 64];
  int fails = 0, n;
  double spread = 0;
  const int dims[] = { 1, 2, 3, 5, 8, 16, 32, 64 };
  for (size_t t = 0; t < sizeof dims / sizeof *dims; t++) {
    int dim = dims[t];
    char name[64];
    n = 400;
    for (int i = 0; i < n * dim; i++) x[i] = urand(&seed);
    snprintf(name, sizeof name, "uniform D=%d", dim);
    fails += check_set(name, x, n, dim, dim == 32 ? &spread : NULL);
    if (dim == 32 && !(spread < 1e-4)) {
      printf("FAIL uniform D=32: the bound is too loose to filter (mean hi/lo - 1 = %.3g)\n", spread);
      fails++;
    }
    /* close pairs at the far corner: two extreme points keep the box, the rest within 1e-7 */
    for (int i = 0; i < n; i++)
      for (int c = 0; c < dim; c++)
        x[i * dim + c] = i == 0 ? -1.0 : i == 1 ? 1.0 : 0.999 + 1e-7 * urand(&seed);
    snprintf(name, sizeof name, "close far D=%d", dim);
    fails += check_set(name, x, n, dim, NULL);
    for (int i = 0; i < n * dim; i++) x[i] = 1e-41 * urand(&seed);   /* FP32 subnormals */
    snprintf(name, sizeof name, "subnormal D=%d", dim);
    fails += check_set(name, x, n, dim, NULL);
    for (int i = 0; i < n * dim; i++) x[i] = 1e6 + (double)(int)(3 * urand(&seed)) * 0.1;   /* ties at an offset */
    snprintf(name, sizeof name, "lattice 1e6 D=%d", dim);
    fails += check_set(name, x, n, dim, NULL);
  }
  n = 600;   /* a sum of many nearly equal terms: the summation's rounding at its worst */
  for (int i = 0; i < n * 64; i++) x[i] = (i % 64 < 63 ? 0.5 : 0.0) + 0.01 * urand(&seed) * (i / 64 % 2 ? 1 : -1);
  fails += check_set("alternating D=64", x, n, 64, NULL);
  /* two antipodal points (s = 2 rho) whose FP32 sum rounds the same way 64 times: 8.5 u in d,
   * more than beta covers (2 u of s there): the gam term must */
  n = 50;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 64; c++) x[i * 64 + c] = i < 2 ? (i ? -0.686065912 : 0.686065912) : 0.6 * (2 * urand(&seed) - 1);
  for (int c = 0; c < 64; c++) x[c] = (float)x[c], x[64 + c] = -x[c];
  fails += check_set("antipodal D=64", x, n, 64, NULL);
  printf("%s: lle FP32 filter bound, %d violation(s)\n", fails ? "FAILED" : "PASSED", fails);
  return fails ? 1 : 0;
}
