"""Seed 002, merge sort: the seed timed its bottom-up SYCL merge sort (device time and kernel
time) against a hand-written merge sort and std::stable_sort on the host; the figures were a
screenshot that did not survive.  Rows: sizes (powers of two as in the seed, whose code only
sorted those, and one that is not); columns: the seed's figures (lost), the seed's kernel (one
merge per thread per level: sort.local=merge, merge_path_from=0), ours (merge path from width
64), the radix path, the vendor (CUB DeviceMergeSort / DeviceRadixSort on the same keys, same
run; CUDA only), and the host's library sort (qsort) and hand-written merge sort in C.
A second table: the distributed sample sort at 1..3 ranks, every distribution (imbalance)."""

TITLE = "seed 002: bottom-up merge sort (device and kernel time, ms)"
DISTS = ["uniform", "normal", "sorted", "reverse", "few_unique", "zipf"]


def _cells(h, rec):
    m = rec["metrics"]
    return m["device_seconds"], m["kernel_seconds"], m


def _sizes_table(h):
    sizes = [65536, 262144, 1048576 + 7] if h.small else [1 << 20, 1 << 22, 1 << 24, 1 << 26, (1 << 26) + 1]
    cols = ["n (int32, uniform)", "seed device (lost)", "seed kernel (lost)",
            "seed kernel: device", "kernel", "merge path: device", "kernel", "radix: device", "kernel",
            "CUB merge sort kernel", "CUB radix kernel", "host merge (C): kernel", "host qsort: kernel"]
    rows, xs = [], []
    series = {k: [] for k in ("seed kernel", "merge path", "radix", "CUB merge sort", "CUB radix", "host merge", "host qsort")}
    for n in sizes:
        base = ["run.workload=sort", "sort.type=int32", "sort.distribution=uniform", "sort.n=%d" % n]
        runs = [("seed", ["sort.local=merge", "sort.merge_path_from=0", "sort.vendor=false"]),
                ("path", ["sort.local=merge", "sort.merge_path_from=64"]),
                ("radix", ["sort.local=radix"]),
                ("hmerge", ["run.backend=host", "sort.local=merge"]),
                ("hqsort", ["run.backend=host", "sort.local=qsort"])]
        got = {}
        for tag, extra in runs:
            try:
                got[tag] = _cells(h, h.run("sizes_%d_%s" % (n, tag), base + extra))
            except Exception:
                got[tag] = None
        def dk(tag, which):
            g = got[tag]
            return "FAILED" if g is None else h.ms(g[which])
        def vend(key):
            for tag in ("path", "radix"):
                g = got[tag]
                if g is not None and g[2].get(key) is not None:
                    return h.ms(g[2][key])
            return "n/a (host backend)" if not h.gpu else "FAILED"
        cub_m = vend("vendor_merge_kernel_seconds")
        cub_r = vend("vendor_radix_kernel_seconds")
        rows.append(("%d" % n, [h.LOST, h.LOST, dk("seed", 0), dk("seed", 1), dk("path", 0), dk("path", 1),
                                dk("radix", 0), dk("radix", 1), cub_m, cub_r, dk("hmerge", 1), dk("hqsort", 1)]))
        xs.append(n)
        def val(tag, which=1):
            g = got[tag]
            return None if g is None else g[which] * 1e3
        def vval(key):
            for tag in ("path", "radix"):
                g = got[tag]
                if g is not None and g[2].get(key) is not None:
                    return g[2][key] * 1e3
            return None
        series["seed kernel"].append(val("seed"))
        series["merge path"].append(val("path"))
        series["radix"].append(val("radix"))
        series["CUB merge sort"].append(vval("vendor_merge_kernel_seconds"))
        series["CUB radix"].append(vval("vendor_radix_kernel_seconds"))
        series["host merge"].append(val("hmerge"))
        series["host qsort"].append(val("hqsort"))
    backend = "CUDA" if h.gpu else "host backend (no GPU: the device columns ran on the CPU, no CUB)"
    return {"name": "sort-sizes", "title": TITLE + " on " + backend, "columns": cols, "rows": rows,
            "plot": {"xlabel": "n keys", "ylabel": "kernel time (ms)", "x": xs, "series": series},
            "notes": ["device time: upload .. download (transfers included); kernel time: the sort kernels alone "
                      "(cudaEvent on CUDA, wall clock of the compute on the host). The seed's columns were a "
                      "screenshot that did not survive."]}


def _ranks_table(h):
    n = 200003 if h.small else (1 << 28) + 3
    cols = ["distribution"] + ["%d rank(s): device ms / imbalance" % p for p in (1, 2, 3)]
    rows = []
    for d in DISTS:
        cells = []
        for p in (1, 2, 3):
            try:
                rec = h.run("ranks_%s_%d" % (d, p), ["run.workload=sort", "sort.n=%d" % n, "sort.distribution=" + d,
                                                    "sort.payload=index", "sort.vendor=false"], ranks=p)
                m = rec["metrics"]
                cells.append("%s / %.4f" % (h.ms(m["device_seconds"]), m["imbalance"]))
            except Exception:
                cells.append("FAILED")
        rows.append((d, cells))
    return {"name": "sort-ranks", "title": "sort: sample sort of %d int32 keys + index, 1..3 ranks (target imbalance <= 1.05)" % n,
            "columns": cols, "rows": rows,
            "notes": ["Not in the seed (a single-device homework): the distributed workload built from it."]}


def tables(h):
    return [_sizes_table(h), _ranks_table(h)]
