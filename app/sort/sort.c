/* sort.c - workload "sort" (seed 002's bottom-up merge sort): a distributed sample sort.
 * Every rank generates (by global index: the same keys for any rank count) or reads its
 * block of the input, sorts it on its device with the local kernel ([sort] local = merge:
 * the seed's bottom-up merge sort with a merge-path top; radix: CUB DeviceRadixSort / an LSD
 * radix sort on the host; qsort: host), then regular samples give P - 1 splitters, every
 * block is cut at them, the pieces are exchanged (MPI_Alltoallv through pinned memory) and
 * the P runs each rank receives are merged.  Ties are broken by (key, original index), so
 * the result is the same for any rank count and the ranks stay balanced on repeated keys.
 * The run checks itself (blocks sorted, boundaries ordered, multiset preserved, stability)
 * and prints the seed's device and kernel times, beside CUB's on the CUDA backend. */
#include "sort.h"

#include <string.h>

static const cfg_key sort_keys[] = {
  { "sort", "type", CFG_ENUM, "int32", 0, 0, "int32|int64|float|double",
    "key type (distribution = file: the file's dtype; if given it must agree)" },
  { "sort", "payload", CFG_ENUM, "none", 0, 0, "none|index",
    "index: the original global index travels with each key (int64), which makes stability checkable" },
  { "sort", "distribution", CFG_ENUM, "uniform", 0, 0, "uniform|normal|sorted|reverse|few_unique|zipf|file",
    "seeded keys by global index (uniform: all bit patterns of the integer types, [-1,1) for reals; normal: N(0,1), "
    "integers x 2^20; few_unique: 8 values; zipf: ranks 1..2^20 with exponent zipf_s), or a 1-D .npy file" },
  { "sort", "n", CFG_INT, "1000000", 1, 1.7e10, NULL, "number of generated keys" },
  { "sort", "file", CFG_STR, "", 0, 0, NULL, "distribution = file: a 1-D .npy of <i4, <i8, <f4 or <f8 (C order, no NaN)" },
  { "sort", "local", CFG_ENUM, "radix", 0, 0, "merge|radix|qsort",
    "local sort: merge (the seed's bottom-up merge sort, merge path from merge_path_from), radix (CUB DeviceRadixSort "
    "on CUDA, LSD radix in C on the host), qsort (host backend only)" },
  { "sort", "merge_path_from", CFG_INT, "64", 0, 1e12, NULL,
    "local = merge on CUDA: run width from which a level merges by merge path (many threads per merge); 0: the seed's "
    "one merge per thread at every level (the host merges one run at a time either way)" },
  { "sort", "merge_tile", CFG_ENUM, "4096", 0, 0, "2048|4096|8192|16384",
    "local = merge on CUDA, merge_path_from > 0: keys per shared-memory tile (2048: 256 threads x 8, the seed's merges "
    "in the tile below merge_path_from; 4096 / 8192 / 16384: 256 / 512 / 1024 threads x 16 keys sorted in registers, "
    "then merge path; 16384 with 8-byte keys and indices: 8192, the shared memory's limit); the global levels run from "
    "this width on" },
  { "sort", "oversample", CFG_INT, "1024", 1, 1e6, NULL, "regular samples per rank for the splitters (imbalance ~ P / oversample at worst)" },
  { "sort", "vendor", CFG_BOOL, "true", 0, 0, NULL, "time the vendor's sorts on the same keys in the same run (CUDA: CUB radix and merge sort)" },
  { "sort", "exchange", CFG_ENUM, "auto", 0, 0, "auto|nccl|mpi",
    "P > 1: the keys' transport: nccl (device to device; needs a GPU per rank), mpi (MPI_Alltoallv through pinned "
    "memory), auto: nccl when usable, else mpi" },
  { "sort", "zipf_s", CFG_REAL, "1.2", 0.01, 10, NULL, "exponent of the zipf distribution" },
  { "output", "sort_keys", CFG_STR, "", 0, 0, NULL, "sort: write the sorted keys here (1-D .npy, in global order)" },
  { "output", "sort_index", CFG_STR, "", 0, 0, NULL, "sort: with payload = index, the original index of each sorted key (.npy, int64)" },
  { "output", "sort_input", CFG_STR, "", 0, 0, NULL, "sort: write the input keys here (1-D .npy) for hybrid-validate sort" },
  CFG_END
};

/* Names of the options' values.  Local. */
const char *sort_type_name(k_sort_type t) {
  static const char *n[] = { "int32", "int64", "float", "double" };
  return n[t];
}
const char *sort_dist_name(int d) {
  static const char *n[] = { "uniform", "normal", "sorted", "reverse", "few_unique", "zipf", "file" };
  return n[d];
}
const char *sort_local_name(int l) {
  static const char *n[] = { "merge", "radix", "qsort" };
  return n[l];
}

/* Cross-key rules.  Local (rank 0). */
static int sort_cfg_check(hy_cfg *c) {
  if (cfg_is(c, "sort.distribution", "file") && !cfg_str(c, "sort.file")[0])
    return cfg_err(c, "sort.file", "is required when sort.distribution = file");
  if (!cfg_is(c, "sort.distribution", "file") && cfg_str(c, "sort.file")[0])
    return cfg_err(c, "sort.file", "is given but sort.distribution is not file");
  if (cfg_str(c, "output.sort_index")[0] && !cfg_is(c, "sort.payload", "index"))
    return cfg_err(c, "output.sort_index", "needs sort.payload = index");
  if (cfg_is(c, "sort.type", "int32") && (cfg_is(c, "sort.distribution", "sorted") || cfg_is(c, "sort.distribution", "reverse")) &&
      cfg_int(c, "sort.n") > 4294967296LL)
    return cfg_err(c, "sort.n", "= %lld exceeds the 2^32 distinct int32 keys of distribution sorted/reverse", (long long)cfg_int(c, "sort.n"));
  return HY_OK;
}

/* The typed options (the only place that reads [sort]).  Local. */
static void sort_opts_from_cfg(const hy_ctx *ctx, sort_opts *o) {
  const hy_cfg *c = ctx->cfg;
  memset(o, 0, sizeof *o);
  o->type = (k_sort_type)cfg_enum(c, "sort.type");
  o->type_given = cfg_given(c, "sort.type");
  o->payload = cfg_is(c, "sort.payload", "index");
  o->dist = cfg_enum(c, "sort.distribution");
  o->n = cfg_int(c, "sort.n");
  snprintf(o->file, sizeof o->file, "%s", cfg_str(c, "sort.file"));
  o->local = cfg_enum(c, "sort.local");
  o->merge_path_from = cfg_int(c, "sort.merge_path_from");
  o->merge_tile = 2048 << cfg_enum(c, "sort.merge_tile");
  o->oversample = (int)cfg_int(c, "sort.oversample");
  o->vendor = cfg_bool(c, "sort.vendor");
  o->zipf_s = cfg_real(c, "sort.zipf_s");
  o->xchg = cfg_enum(c, "sort.exchange");   /* 0 auto, 1 nccl, 2 mpi: as HY_BCAST_* */
  o->seed = (uint64_t)cfg_int(c, "run.seed");
  snprintf(o->out_keys, sizeof o->out_keys, "%s", cfg_str(c, "output.sort_keys"));
  snprintf(o->out_index, sizeof o->out_index, "%s", cfg_str(c, "output.sort_index"));
  snprintf(o->out_input, sizeof o->out_input, "%s", cfg_str(c, "output.sort_input"));
  o->host_coll = ctx->debug.host_coll;
}

/* The figures that follow from the options and the table (floor of the radix passes).  Local. */
static void sort_info_init(hy_ctx *ctx, const sort_opts *o, const sort_block *b, int carry, sort_info *inf) {
  const k_sort_ops *ops = k_sort_ops_get(&ctx->be);
  inf->P = ctx->size;
  inf->n = b->n_global;
  inf->type_name = sort_type_name(b->type);
  inf->dist_name = sort_dist_name(o->dist);
  inf->local_name = sort_local_name(o->local);
  inf->backend = ops->name;
  inf->payload = o->payload;
  inf->carry = carry;
  inf->merge_path_from = o->merge_path_from;
  inf->merge_tile = k_sort_merge_tile(o->merge_tile, b->type, carry);
  if (o->local == K_SORT_LOCAL_MERGE && o->merge_path_from > 0)
    snprintf(inf->merge_note, sizeof inf->merge_note, " (merge path from width %lld, tiles of %d)",
             (long long)o->merge_path_from, inf->merge_tile);
  else if (o->local == K_SORT_LOCAL_MERGE)
    snprintf(inf->merge_note, sizeof inf->merge_note, " (seed: one merge per thread)");
  /* LSD radix over 8-bit digits: one histogram read of the keys, then per pass one read and
   * one write of keys (and indices) */
  double per = (double)((b->n_global + ctx->size - 1) / ctx->size);
  inf->floor_passes = (int)b->kb;
  inf->floor_bytes = per * (double)b->kb + per * (double)inf->floor_passes * 2.0 * (double)(b->kb + (carry ? 8 : 0));
  inf->floor_rate = ops->floor_rate;
  inf->floor_s = ops->floor_rate > 0 ? inf->floor_bytes / ops->floor_rate : 0;
}

/* Write the sorted keys (and indices).  Collective. */
static int sort_output(hy_ctx *ctx, const sort_opts *o, const sort_block *b) {
  static const char *descr[] = { "<i4", "<i8", "<f4", "<f8" };
  if (o->out_keys[0]) HY_CALL(sort_npy_write(ctx, o->out_keys, descr[b->type], b->kb, b->keys, b->n));
  if (o->out_index[0]) HY_CALL(sort_npy_write(ctx, o->out_index, "<i8", 8, b->idx, b->n));
  return HY_OK;
}

/* The workload: load -> vendor -> sort -> check -> report -> output.  Collective. */
static int sort_run(hy_ctx *ctx) {
  sort_opts o;
  sort_opts_from_cfg(ctx, &o);
  const k_sort_ops *ops = k_sort_ops_get(&ctx->be);
  if (!ops->local[o.local])
    return hy_err(HY_EUSAGE, "sort.local = %s is not available on the %s backend (allowed there: %s%s%s)",
                  sort_local_name(o.local), ops->name, ops->local[0] ? "merge " : "", ops->local[1] ? "radix " : "",
                  ops->local[2] ? "qsort" : "");
  int carry = o.payload || ctx->size > 1;
  sort_block b;
  sort_info inf;
  memset(&inf, 0, sizeof inf);

  hy_phase_begin(ctx, "data");
  HY_CALL(sort_load(ctx, &o, carry, &b, &inf));
  hy_phase_end(ctx, "data");
  sort_info_init(ctx, &o, &b, carry, &inf);

  hy_phase_begin(ctx, "vendor");
  HY_CALL(sort_vendor(ctx, &o, &b, &inf));
  hy_phase_end(ctx, "vendor");

  HY_CALL(sort_solve(ctx, &o, &b, &inf));

  if (ctx->debug.perturb != 0) {
    sort_perturb(&b, ctx->debug.perturb);
    inf.perturbed = 1;
  }
  hy_phase_begin(ctx, "check");
  HY_CALL(sort_check(ctx, &o, &b, &inf));
  hy_phase_end(ctx, "check");

  int rc = sort_report(ctx, &inf);

  hy_phase_begin(ctx, "output");
  int orc = sort_output(ctx, &o, &b);
  hy_phase_end(ctx, "output");
  sort_block_free(ctx, &b);
  HY_CALL(orc);
  return rc;
}

static const char sort_default[] =
  "; embedded default: sort 1M int32 keys\n"
  "[run]\nworkload = sort\nbackend = auto\n"
  "[sort]\nn = 1000000\n";

const hy_workload sort_workload = {
  "sort", "distributed sample sort of int32/int64/float/double keys (seed 002's merge sort beside CUB)",
  sort_keys, sort_cfg_check, sort_run, sort_default,
};
