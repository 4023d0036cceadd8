/* test_rand.h - the unit programs' own deterministic values, independent of the library's
 * generator: a splitmix64 finaliser of (stream, index) (tests/runtime/test_kernels_host.c,
 * tests/gauss/test_gauss_host.c, test_gauss_small_gpu.c, test_gauss_small_time.c).  Header
 * only (one static function). */
#ifndef HY_TEST_RAND_H
#define HY_TEST_RAND_H

#include <stdint.h>

/* A deterministic value in [0, 1) for index i of stream s (53 bits: 2 u - 1 and u - 0.5 are
 * exact).  Local. */
static inline double test_u01(uint64_t s, uint64_t i) {
  uint64_t z = (s * 0x9E3779B97F4A7C15ull) ^ (i + 0x632BE59BD9B4E5ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

#endif
