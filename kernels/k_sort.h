/* k_sort.h - the sort workload's kernels behind one C interface: the local sort of one
 * rank's block (the seed's bottom-up merge sort with a merge-path top, a radix sort, qsort),
 * the merge of the P sorted runs a rank receives in the sample sort, and the vendor's sorts
 * timed on the same keys (CUB DeviceRadixSort / DeviceMergeSort on CUDA).
 *
 * Keys are int32, int64, float or double in "device" memory (host memory on the host
 * backend).  The order is the keys' `<` (so -0.0 and +0.0 are equal; NaN is never given to
 * these functions: the driver rejects it), and every sort and merge here is STABLE: equal
 * keys keep their order, so with the original global index as payload (idx, int64) the
 * result is ordered by (key, index), identical for any kernel and backend.  idx may be NULL
 * (keys only).  Every function reports the seconds its kernels took in *kernel_s (CUDA:
 * cudaEvent-timed on the backend's stream; host: wall clock of the compute).  All functions
 * are local. */
#ifndef HY_K_SORT_H
#define HY_K_SORT_H

#include <stdint.h>
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { K_SORT_I32 = 0, K_SORT_I64 = 1, K_SORT_F32 = 2, K_SORT_F64 = 3 } k_sort_type;

/* Bytes of one key of type t.  Local. */
static inline size_t k_sort_key_bytes(k_sort_type t) { return (t == K_SORT_I32 || t == K_SORT_F32) ? 4 : 8; }

/* The local sort variants ([sort] local = ...), indexes of k_sort_ops.local. */
enum { K_SORT_LOCAL_MERGE = 0, K_SORT_LOCAL_RADIX = 1, K_SORT_LOCAL_QSORT = 2, K_SORT_NLOCAL = 3 };

/* Parameters of a local sort. */
typedef struct {
  k_sort_type type;
  int64_t merge_path_from;  /* merge: run width from which a level merges by merge path (many
                               threads per merge); 0: the seed's one merge per thread at every
                               level */
  int merge_tile;           /* merge on CUDA: keys per shared-memory tile (2048: 8 per thread, the
                               seed's merges in the tile below merge_path_from; 4096 / 8192 /
                               16384: 16 per thread, sorted in registers, then merge path);
                               host: unused */
} k_sort_args;

/* The tile local = merge uses on CUDA for merge_tile = tile: 16384 with 8-byte keys and the
 * index (idx) would need 270 KB of shared memory per block (more than the 227 KB a block may
 * have): 8192 there.  Local. */
static inline int k_sort_merge_tile(int tile, k_sort_type t, int idx) {
  return tile == 16384 && idx && k_sort_key_bytes(t) == 8 ? 8192 : tile;
}

/* Sort n keys (and idx alongside) in place, stably.  Local. */
typedef int (*k_sort_local_fn)(k_backend *be, const k_sort_args *a, void *keys, int64_t *idx,
                               int64_t n, double *kernel_s);

typedef struct {
  const char *name;
  /* local sorts by variant, filled by index name ([K_SORT_LOCAL_RADIX] = ...); NULL where the
   * backend has no such variant */
  k_sort_local_fn local[K_SORT_NLOCAL];
  /* merge nruns consecutive sorted runs (run r is [off[r], off[r+1]), off[nruns] = n) into one
   * sorted sequence in place, stably (an element of an earlier run first on ties) */
  int (*merge_runs)(k_backend *be, k_sort_type t, void *keys, int64_t *idx, int64_t n, int nruns,
                    const int64_t *off, double *kernel_s);
  /* copy the elements at positions pos[0..cnt) (host) of the device arrays keys (and idx) to
   * the host: hk (cnt keys) and hi (cnt indices, or the positions themselves when idx is
   * NULL) */
  int (*pick)(k_backend *be, k_sort_type t, const void *keys, const int64_t *idx, const int64_t *pos,
              int cnt, void *hk, int64_t *hi);
  /* for each of the ns splitters (host: keys sk, indices si) the first position of the sorted
   * device arrays (keys, idx; n elements) whose element is not below the splitter in the
   * (key, index) order, into cut[0..ns) (host); idx NULL: by key alone */
  int (*cuts)(k_backend *be, k_sort_type t, const void *keys, const int64_t *idx, int64_t n,
              const void *sk, const int64_t *si, int ns, int64_t *cut);
  /* the vendor's sorts on a copy of keys (keys are left as they are): the kernel seconds of
   * CUB DeviceRadixSort::SortKeys and DeviceMergeSort::StableSortKeys, and whether the copy
   * came out sorted (*ok); NULL on the host backend */
  int (*vendor_radix)(k_backend *be, k_sort_type t, const void *keys, int64_t n, double *kernel_s, int *ok);
  int (*vendor_merge)(k_backend *be, k_sort_type t, const void *keys, int64_t n, double *kernel_s, int *ok);
  /* the same for CUB DeviceMergeSort::StableSortPairs with the int64 index 0 .. n - 1 as the
   * items (our payload = index's work); NULL on the host backend */
  int (*vendor_merge_pairs)(k_backend *be, k_sort_type t, const void *keys, int64_t n, double *kernel_s, int *ok);
  /* the copy rate the radix floor is priced at (bytes/s); 0 where no floor is printed */
  double floor_rate;
} k_sort_ops;

/* The table of the backend's kind.  Local. */
const k_sort_ops *k_sort_ops_get(const k_backend *be);
extern const k_sort_ops k_sort_host_ops;
#ifdef HYBRID_HAVE_CUDA
extern const k_sort_ops k_sort_cuda_ops;
#endif

#ifdef __cplusplus
}
#endif
#endif
