"""Seed 002, matrix multiplication: the seed timed a serial triple loop, its naive SYCL kernel (one
work-item per element of C) and its tiled kernel (work-group tiles in local memory), each with the
"device time" (submission to completion, transfers included) and the "kernel time" (profiling
events), and said the tiled kernel saves ~50% of the naive one's time; the figures were a
screenshot that did not survive.  Rows: square sizes (powers of two, as the seed's tiled kernel
needed, and a prime it could not do); columns: the seed's (lost), the serial loop (the host
backend's naive kernel), naive, tiled and the vendor's GEMM (cuBLAS on a GPU, BLAS on the host),
device and kernel time each, and tiled / naive.  A second table: the SUMMA driver at 1..3 ranks."""

TITLE = "seed 002: matrix multiplication C = A B in FP32 (device and kernel time, ms)"


def _run(h, tag, args, ranks=1):
    try:
        m = h.run(tag, args, ranks=ranks)["metrics"]
        return m["device_seconds"], m["kernel_seconds"]
    except Exception:
        return None


def _sizes_table(h):
    sizes = [64, 128, 256, 131] if h.small else [256, 512, 1024, 2048, 4096, 8192, 1031]
    serial_max = 256 if h.small else 1024
    cols = ["n (m = n = k, float)", "seed serial (lost)", "seed naive (lost)", "seed tiled (lost)",
            "serial loop: kernel", "naive: device", "kernel", "tiled: device", "kernel",
            "vendor: device", "kernel", "tiled / naive (kernel)"]
    rows, xs = [], []
    series = {k: [] for k in ("serial loop (host)", "naive", "tiled", "vendor")}
    for n in sizes:
        base = ["run.workload=gemm", "gemm.m=%d" % n, "gemm.n=%d" % n, "gemm.k=%d" % n,
                "gemm.precision=float", "gemm.full_check_max=%g" % (1e9 if h.small else 0)]
        got = {}
        for kern in ("naive", "tiled", "vendor"):
            got[kern] = _run(h, "n%d_%s" % (n, kern), base + ["gemm.kernel=" + kern])
        got["serial"] = (_run(h, "n%d_serial" % n, base + ["gemm.kernel=naive", "run.backend=host"])
                         if n <= serial_max else "skip")

        def cell(k, which):
            g = got[k]
            if g == "skip":
                return "n/a (n > %d: too slow)" % serial_max
            return "FAILED" if g is None else h.ms(g[which])

        ratio = "FAILED"
        if got["naive"] and got["tiled"]:
            ratio = "%.1f%%" % (100.0 * got["tiled"][1] / got["naive"][1])
        rows.append(("%d" % n, [h.LOST, h.LOST, h.LOST, cell("serial", 1), cell("naive", 0), cell("naive", 1),
                                cell("tiled", 0), cell("tiled", 1), cell("vendor", 0), cell("vendor", 1), ratio]))
        xs.append(n)
        for name, k in (("serial loop (host)", "serial"), ("naive", "naive"), ("tiled", "tiled"), ("vendor", "vendor")):
            g = got[k]
            series[name].append(None if g in (None, "skip") else g[1] * 1e3)
    backend = "CUDA (vendor: cuBLAS SGEMM, no TF32)" if h.gpu else "the host backend (no GPU: every column ran on the CPU, vendor = BLAS)"
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    plot = {"xlabel": "n", "ylabel": "kernel time (ms)", "x": [xs[i] for i in order],
            "series": {k: [v[i] for i in order] for k, v in series.items()}}
    return {"name": "gemm-sizes", "title": TITLE + " on " + backend, "columns": cols, "rows": rows, "plot": plot,
            "notes": ["device time: upload of A, B, C .. download of C (transfers included); kernel time: the "
                      "local GEMM alone (cudaEvent on CUDA, wall clock of the compute on the host). The seed's "
                      "figures were a screenshot that did not survive; it claimed tiled saves ~50% of naive's time. "
                      "The prime size is one the seed's tiled kernel could not do (it assumed the tile divides n)."]}


def _ranks_table(h):
    m, n, k = (131, 127, 137) if h.small else (8192, 8192, 8192)
    cols = ["grid (ranks)", "device ms", "kernel ms", "SUMMA steps"]
    rows = []
    for ranks, grid in ((1, "1x1"), (2, "1x2"), (2, "2x1"), (3, "1x3")):
        try:
            rec = h.run("ranks_%s" % grid, ["run.workload=gemm", "gemm.m=%d" % m, "gemm.n=%d" % n, "gemm.k=%d" % k,
                                             "gemm.nb=%d" % (32 if h.small else 512), "gemm.grid=" + grid,
                                             "gemm.kernel=vendor", "gemm.precision=double", "gemm.whole_k=false"],
                        ranks=ranks)
            mt = rec["metrics"]
            rows.append(("%s (%d)" % (grid, ranks), [h.ms(mt["device_seconds"]), h.ms(mt["kernel_seconds"]),
                                                     "%d" % mt["steps"]]))
        except Exception:
            rows.append(("%s (%d)" % (grid, ranks), ["FAILED", "FAILED", "FAILED"]))
    return {"name": "gemm-ranks", "title": "gemm: SUMMA, %d x %d x %d in FP64 (vendor kernel), 1..3 ranks" % (m, n, k),
            "columns": cols, "rows": rows,
            "notes": ["Not in the seed (a single-device homework): the distributed workload built from it. Ranks "
                      "beyond the GPUs share one; the multi-GPU figures belong to the scaling study."]}


def tables(h):
    return [_sizes_table(h), _ranks_table(h)]
