/* rng.h - counter-based random numbers: the value at index i depends only on (seed, stream,
 * i), so every rank can generate its own part of the same global data, identical for any
 * rank count.  SplitMix64 finalizer over a mixed counter. */
#ifndef HY_RNG_H
#define HY_RNG_H

#include <stdint.h>

static inline uint64_t hy_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* 64 random bits for element i of stream s under seed.  Local. */
static inline uint64_t hy_rand_u64(uint64_t seed, uint64_t s, uint64_t i) {
  return hy_mix64(hy_mix64(seed * 0x9e3779b97f4a7c15ULL + s) ^ (i * 0xd1b54a32d192ed03ULL + 0x632be59bd9b4e019ULL));
}

/* Uniform double in [0, 1) (53 bits).  Local. */
static inline double hy_rand_u01(uint64_t seed, uint64_t s, uint64_t i) {
  return (double)(hy_rand_u64(seed, s, i) >> 11) * 0x1.0p-53;
}

#endif
