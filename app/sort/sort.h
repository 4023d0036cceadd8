/* sort.h - the sort workload's internal interface (seed 002's bottom-up merge sort made a
 * distributed sample sort): typed options, one rank's block of keys, the stages (data,
 * sort = local sort + sample-sort exchange + merge of the received runs, vendor timing,
 * check, output) and the figures the report prints. */
#ifndef HY_SORT_H
#define HY_SORT_H

#include <stdint.h>
#include "workload.h"
#include "k_sort.h"
#include "comm/comm.h"

enum { SORT_UNIFORM = 0, SORT_NORMAL, SORT_SORTED, SORT_REVERSE, SORT_FEW_UNIQUE, SORT_ZIPF, SORT_FILE };

/* The [sort] options, read once by sort_opts_from_cfg. */
typedef struct {
  k_sort_type type;
  int type_given;           /* sort.type was set (a file's dtype must then agree) */
  int payload;              /* 1: the original global index travels with the key */
  int dist;                 /* SORT_* */
  int64_t n;                /* keys generated (a file gives its own) */
  char file[1024];          /* distribution = file: a 1-D .npy */
  int local;                /* K_SORT_LOCAL_* */
  int64_t merge_path_from;  /* merge: run width from which merge path takes over (0 never) */
  int merge_tile;           /* merge on CUDA: keys per shared-memory tile, 2048 | 4096 | 8192 */
  int oversample;           /* regular samples per rank for the splitters */
  int vendor;               /* time the vendor's sorts on the same keys (where the backend has them) */
  int xchg;                 /* sort.exchange: HY_BCAST_AUTO | HY_BCAST_DEVICE (nccl) | HY_BCAST_MPI */
  int host_coll;            /* [debug] host_coll: the device transport with MPI underneath (host) */
  double zipf_s;            /* exponent of the zipf distribution */
  uint64_t seed;            /* [run] seed */
  char out_keys[1024];      /* [output] sort_keys: the sorted keys, .npy */
  char out_index[1024];     /* [output] sort_index: the original index of each (payload = index) */
  char out_input[1024];     /* [output] sort_input: the input keys, .npy */
} sort_opts;

/* One rank's block: before the sort the input [lo, lo + n) of the global order, after it the
 * rank's key range.  Host memory from the backend's alloc_pinned. */
typedef struct {
  k_sort_type type;
  size_t kb;                /* bytes per key */
  int64_t n_global, lo, n;
  void *keys;
  int64_t *idx;             /* NULL, or the original global index of each key */
} sort_block;

/* Device buffers of a block: keys and (or NULL) indices, room for cap elements. */
typedef struct {
  void *k;
  int64_t *i;
  int64_t cap;
} sort_dev;

/* Make d hold n elements of kb bytes (and indices when idx); a failure ends the job.  Local. */
void sort_dev_reserve(k_backend *be, sort_dev *d, int64_t n, size_t kb, int idx);
/* Free them.  Local. */
void sort_dev_free(k_backend *be, sort_dev *d);

/* Order-independent digest of a multiset of keys (and indices): count, sum and xor of a mixed
 * hash per element.  Combined over ranks by sum / sum / xor. */
typedef struct {
  uint64_t count, sum, xor_;
} sort_digest;

/* Everything the report prints (global figures: the same on every rank after the stages). */
typedef struct {
  int P;
  int64_t n;
  const char *type_name, *dist_name, *local_name, *backend;
  int payload, carry;       /* payload = index; carry: indices travel (payload, or P > 1) */
  int64_t merge_path_from;
  int merge_tile;
  double device_s;          /* slowest rank: upload .. download, the exchange included */
  double kernel_local_s, kernel_merge_s, kernel_s;   /* slowest rank */
  double exchange_s;        /* slowest rank: samples, counts, keys */
  int64_t nmin, nmax;       /* keys per rank after the exchange */
  double imbalance;         /* nmax / mean */
  /* vendor, same keys, same run (negative: not timed) */
  double vendor_radix_s, vendor_merge_s;
  double vendor_pairs_s;    /* payload = index: CUB's merge sort of pairs (negative: not timed) */
  int vendor_ok;
  double floor_bytes, floor_s, floor_rate;
  int floor_passes;
  char merge_note[96];      /* local = merge: where merge path takes over */
  /* check */
  int64_t inversions, tie_inversions, boundary_bad;
  sort_digest before, after;
  int passed;
  int perturbed;
  char xchg[160];           /* the exchange's transport and why ("" with one rank) */
} sort_info;

/* Names of the options' values.  Local. */
const char *sort_type_name(k_sort_type t);
const char *sort_dist_name(int d);
const char *sort_local_name(int l);

/* Digest of n keys (and indices) added into d.  Local. */
void sort_digest_add(sort_digest *d, k_sort_type t, const void *keys, const int64_t *idx, int64_t n);
/* The global digest (sum over ranks).  Collective. */
int sort_digest_reduce(hy_ctx *ctx, const sort_digest *mine, sort_digest *all);

/* Stage data: generate (by global index, identical for any rank count) or read the block of
 * this rank; indices when carry.  Collective. */
int sort_load(hy_ctx *ctx, const sort_opts *o, int carry, sort_block *b, sort_info *inf);
/* Read a 1-D .npy file's header strictly (rank 0): dtype, order, shape, size against the
 * file's length.  HY_EINPUT names the file and what was wrong.  Local. */
int sort_npy_header(const char *path, k_sort_type *t, int64_t *n, long *data_off);
/* Write the blocks of every rank, in rank order, as one 1-D .npy (rank 0 writes, the others
 * send), atomically.  elem: bytes per element; descr: '<i4', '<i8', '<f4', '<f8'.  Collective. */
int sort_npy_write(hy_ctx *ctx, const char *path, const char *descr, size_t elem, const void *a, int64_t n);
void sort_block_free(hy_ctx *ctx, sort_block *b);

/* Stage sort: upload, local sort, (P > 1) regular samples, splitters, counts, keys by
 * MPI_Alltoallv through pinned memory, merge of the P received runs, download.  Collective. */
int sort_solve(hy_ctx *ctx, const sort_opts *o, sort_block *b, sort_info *inf);
/* The sample-sort exchange of the locally sorted device block d (b: its sizes): samples,
 * splitters, cuts on the device, counts, keys and indices through the transport xc; d becomes
 * the P received runs, off[0..P] their offsets, b->n their total.  Collective. */
int sort_exchange(hy_ctx *ctx, const sort_opts *o, hy_bcast *xc, sort_block *b, sort_dev *d, int64_t *off);

/* Stage vendor: the vendor's radix and merge sorts on this rank's input keys (CUDA: CUB),
 * kernel seconds into inf (negative when the backend has none).  Collective. */
int sort_vendor(hy_ctx *ctx, const sort_opts *o, const sort_block *in, sort_info *inf);

/* Stage check: blocks sorted, boundaries across ranks ordered, multiset (count + hash)
 * preserved, ties in index order (stability) with indices.  Collective. */
int sort_check(hy_ctx *ctx, const sort_opts *o, const sort_block *b, sort_info *inf);
/* [debug] perturb: change the middle key of every non-empty block by the relative amount p
 * (after the sort, before the check).  Local. */
void sort_perturb(sort_block *b, double p);

/* Print the figures, set the metrics and the verdict; returns HY_OK or HY_EVALID.  Local
 * (rank 0 prints). */
int sort_report(hy_ctx *ctx, const sort_info *inf);

#endif
