/* sort_report.c - every line the sort workload prints, its metrics and the verdict, from a
 * sort_info.  The vendor's figures and the floor print only where the backend's table has
 * them (the CUDA backend). */
#include "sort.h"

#include <stdio.h>

/* The vendor lines and metrics (CUDA): CUB's times on the same keys, ours against them, the
 * bytes of the radix passes at the floor rate.  Local. */
static void sort_report_vendor(hy_ctx *ctx, const sort_info *f) {
  if (f->floor_rate > 0) {
    hy_printf0(ctx, "sort: floor: the radix passes move %.3f GB per rank (%d passes of %s keys%s): %.3f ms at %.2f TB/s; "
               "kernel time %.2fx the floor\n", f->floor_bytes / 1e9, f->floor_passes,
               f->type_name, f->carry ? " + int64 indices" : "", f->floor_s * 1e3, f->floor_rate / 1e12,
               f->floor_s > 0 ? f->kernel_s / f->floor_s : 0);
    hy_metric_num(ctx, "floor_bytes", f->floor_bytes);
    hy_metric_num(ctx, "floor_seconds", f->floor_s);
  }
  if (f->vendor_radix_s < 0) return;
  hy_printf0(ctx, "sort: vendor (same keys, same run): CUB DeviceRadixSort::SortKeys %.3f ms, "
             "DeviceMergeSort::StableSortKeys %.3f ms (kernel time, slowest rank)%s\n",
             f->vendor_radix_s * 1e3, f->vendor_merge_s * 1e3, f->vendor_ok ? "" : "; CUB's output NOT sorted");
  double rr = f->kernel_s > 0 ? f->vendor_radix_s / f->kernel_s : 0, rm = f->kernel_s > 0 ? f->vendor_merge_s / f->kernel_s : 0;
  hy_printf0(ctx, "sort: ours (local %s%s) kernel time %.3f ms: CUB radix alone / ours = %.2f%s, CUB merge sort / ours = %.2f%s\n",
             f->local_name, f->P > 1 ? " + merge of runs" : "", f->kernel_s * 1e3, rr,
             f->local_name[0] == 'r' ? " (target >= 0.8)" : "", rm, f->local_name[0] == 'm' ? " (target >= 0.5)" : "");
  hy_metric_num(ctx, "vendor_radix_kernel_seconds", f->vendor_radix_s);
  hy_metric_num(ctx, "vendor_merge_kernel_seconds", f->vendor_merge_s);
  hy_metric_num(ctx, "vendor_radix_over_ours", rr);
  hy_metric_num(ctx, "vendor_merge_over_ours", rm);
  if (f->vendor_pairs_s < 0) return;
  double rp = f->kernel_s > 0 ? f->vendor_pairs_s / f->kernel_s : 0;
  hy_printf0(ctx, "sort: vendor pairs (keys + int64 index, as payload = index): CUB DeviceMergeSort::StableSortPairs "
             "%.3f ms; CUB merge sort of pairs / ours = %.2f\n", f->vendor_pairs_s * 1e3, rp);
  hy_metric_num(ctx, "vendor_merge_pairs_kernel_seconds", f->vendor_pairs_s);
  hy_metric_num(ctx, "vendor_merge_pairs_over_ours", rp);
}

/* The check's line and the verdict.  Returns HY_OK or HY_EVALID.  Local. */
static int sort_report_check(hy_ctx *ctx, const sort_info *f) {
  int same = f->before.count == f->after.count && f->before.sum == f->after.sum && f->before.xor_ == f->after.xor_;
  hy_printf0(ctx, "sort: check: %lld key(s) out of order, %lld tie(s) out of index order, %lld rank boundary(ies) "
             "out of order; multiset: count %llu -> %llu, hash %016llx -> %016llx (%s)\n",
             (long long)f->inversions, (long long)f->tie_inversions, (long long)f->boundary_bad,
             (unsigned long long)f->before.count, (unsigned long long)f->after.count,
             (unsigned long long)f->before.sum, (unsigned long long)f->after.sum, same ? "preserved" : "CHANGED");
  hy_metric_int(ctx, "inversions", f->inversions);
  hy_metric_int(ctx, "tie_inversions", f->tie_inversions);
  hy_metric_int(ctx, "boundaries_out_of_order", f->boundary_bad);
  hy_metric_int(ctx, "multiset_preserved", same);
  double bad = (double)(f->inversions + f->tie_inversions + f->boundary_bad) + (same ? 0 : 1);
  hy_validation(ctx, "keys out of order + ties out of index order + boundaries out of order + multiset changed", bad, 0, f->passed);
  if (!f->passed) {
    hy_verdict(ctx, "sort: %lld key(s) out of order, %lld tie(s) out of index order, %lld boundary(ies) out of order, "
               "multiset %s (count %llu -> %llu, hash %016llx -> %016llx)%s",
               (long long)f->inversions, (long long)f->tie_inversions, (long long)f->boundary_bad,
               same ? "preserved" : "changed", (unsigned long long)f->before.count, (unsigned long long)f->after.count,
               (unsigned long long)f->before.sum, (unsigned long long)f->after.sum,
               f->perturbed ? " ([debug] perturb)" : "");
    return HY_EVALID;
  }
  hy_verdict(ctx, "sort: %lld %s keys sorted on %d rank(s), multiset preserved%s, imbalance %.4f",
             (long long)f->n, f->type_name, f->P, f->carry && f->payload ? ", stable" : "", f->imbalance);
  return HY_OK;
}

/* Print, record, decide.  Local (rank 0 prints). */
int sort_report(hy_ctx *ctx, const sort_info *f) {
  hy_printf0(ctx, "sort: n = %lld %s keys%s, distribution %s, %d rank(s), local %s%s on %s\n", (long long)f->n,
             f->type_name, f->payload ? " + int64 index payload" : "", f->dist_name, f->P, f->local_name,
             f->merge_note, f->backend);
  hy_printf0(ctx, "sort: device time %.3f ms (upload .. download, exchange included), kernel time %.3f ms "
             "(local sort %.3f ms, merge of runs %.3f ms), exchange %.3f ms (slowest rank)\n",
             f->device_s * 1e3, f->kernel_s * 1e3, f->kernel_local_s * 1e3, f->kernel_merge_s * 1e3, f->exchange_s * 1e3);
  if (f->xchg[0]) {
    hy_printf0(ctx, "sort: exchange: %s\n", f->xchg);
    hy_metric_str(ctx, "exchange", f->xchg);
  }
  double rate_dev = f->device_s > 0 ? (double)f->n / f->device_s : 0;
  double rate_ker = f->kernel_s > 0 ? (double)f->n / f->kernel_s / f->P : 0;
  hy_printf0(ctx, "sort: rate %.4f Gkeys/s (device time), %.4f Gkeys/s per rank (kernel time)\n", rate_dev / 1e9, rate_ker / 1e9);
  hy_printf0(ctx, "sort: keys per rank %lld .. %lld, imbalance max/mean %.4f (target <= 1.05)\n",
             (long long)f->nmin, (long long)f->nmax, f->imbalance);
  hy_metric_int(ctx, "n", f->n);
  hy_metric_str(ctx, "type", f->type_name);
  hy_metric_str(ctx, "distribution", f->dist_name);
  hy_metric_str(ctx, "local", f->local_name);
  hy_metric_int(ctx, "payload_index", f->payload);
  hy_metric_int(ctx, "merge_path_from", f->merge_path_from);
  hy_metric_int(ctx, "merge_tile", f->merge_tile);
  hy_metric_num(ctx, "device_seconds", f->device_s);
  hy_metric_num(ctx, "kernel_seconds", f->kernel_s);
  hy_metric_num(ctx, "kernel_local_seconds", f->kernel_local_s);
  hy_metric_num(ctx, "kernel_merge_seconds", f->kernel_merge_s);
  hy_metric_num(ctx, "exchange_seconds", f->exchange_s);
  hy_metric_num(ctx, "rate_keys_per_second", rate_dev);
  hy_metric_int(ctx, "keys_per_rank_min", f->nmin);
  hy_metric_int(ctx, "keys_per_rank_max", f->nmax);
  hy_metric_num(ctx, "imbalance", f->imbalance);
  sort_report_vendor(ctx, f);
  return sort_report_check(ctx, f);
}
