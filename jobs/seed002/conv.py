"""Seed 002, image convolution: the seed ran its naive SYCL kernel (one work-item per pixel, all
four channels, the sharpen filter, taps outside the image skipped and the sum divided by the
inside weight) and timed device time and kernel time; its figures were a screenshot that did
not survive.  Tables (every number from the runs' JSON records):
  conv-seed    the seed's experiment (sharpen 3x3, RGBA float, renormalise) over image sizes:
               the seed's figures (lost), its naive kernel, ours tiled, the vendor (cuDNN,
               CUDA only), device and kernel time;
  conv-ksize   a gaussian of ksize 3 .. 31 (boundary zero, cuDNN's rule) in one run per ksize:
               naive / tiled / separable / fft / vendor kernel times, best of ours against the
               vendor, and the fft-vs-direct crossover;
  conv-ranks   passes = 10 at 1, 2, 3 ranks (host, or ranks sharing the GPU): device and halo
               time, and whether the pixels are identical to 1 rank's (the result files compared)."""
import hashlib, os

TITLE = "seed 002: image convolution (device and kernel time, ms)"


def _m(rec, key):
    v = rec["metrics"].get(key)
    return v if isinstance(v, (int, float)) else None


def _seed_table(h):
    sizes = [(256, 256), (512, 384), (1031, 769)] if h.small else [(1024, 1024), (4096, 4096), (16384, 16384)]
    cols = ["image (RGBA float)", "seed device (lost)", "seed kernel (lost)", "naive (seed's kernel): device", "kernel",
            "tiled: device", "kernel", "vendor: device", "kernel"]
    rows, xs = [], []
    series = {"naive": [], "tiled": [], "vendor (cuDNN)": []}
    for W, H in sizes:
        try:
            rec = h.run("seed_%dx%d" % (W, H), ["run.workload=conv", "conv.width=%d" % W, "conv.height=%d" % H,
                                                "conv.channels=4", "conv.kernel=sharpen", "conv.ksize=3",
                                                "conv.boundary=renormalise", "conv.algorithm=tiled",
                                                "conv.compare=naive,vendor", "conv.passes=1"])
        except Exception:
            rows.append(("%d x %d" % (W, H), [h.LOST, h.LOST] + ["FAILED"] * 6))
            for s in series.values():
                s.append(None)
            xs.append(W * H)
            continue
        cuda = rec.get("backend") == "cuda"
        vend = [h.ms(_m(rec, "vendor_device_s")), h.ms(_m(rec, "vendor_kernel_s"))] if cuda else \
               ["n/a (host: no vendor library)"] * 2
        rows.append(("%d x %d" % (W, H), [h.LOST, h.LOST, h.ms(_m(rec, "naive_device_s")), h.ms(_m(rec, "naive_kernel_s")),
                                          h.ms(_m(rec, "tiled_device_s")), h.ms(_m(rec, "tiled_kernel_s"))] + vend))
        xs.append(W * H)
        series["naive"].append((_m(rec, "naive_kernel_s") or 0) * 1e3 or None)
        series["tiled"].append((_m(rec, "tiled_kernel_s") or 0) * 1e3 or None)
        series["vendor (cuDNN)"].append((_m(rec, "vendor_kernel_s") or 0) * 1e3 if cuda else None)
    backend = "CUDA" if h.gpu else "host backend (no GPU: the device columns ran on the CPU)"
    return {"name": "conv-seed", "title": TITLE + ", the seed's sharpen 3x3 on " + backend, "columns": cols, "rows": rows,
            "plot": {"xlabel": "pixels", "ylabel": "kernel time (ms)", "x": xs, "series": series},
            "notes": ["device time: upload .. download (halo exchange included); kernel time: the filter kernels alone "
                      "(cudaEvent on CUDA, the compute's wall time on the host). The seed's figures were a screenshot "
                      "that did not survive."]}


def _ksize_table(h):
    W, H = (512, 512) if h.small else (16384, 16384)
    ks_list = [3, 7, 15, 31] if h.small else [3, 5, 7, 9, 15, 31]
    names = ["naive", "tiled", "separable", "fft", "vendor"]
    cols = ["ksize"] + ["%s kernel" % n for n in names] + ["best of ours / vendor speed", "fft / best direct"]
    rows = []
    series = {n: [] for n in names}
    crossover = None
    for ks in ks_list:
        try:
            rec = h.run("ksize_%d" % ks, ["run.workload=conv", "conv.width=%d" % W, "conv.height=%d" % H,
                                          "conv.channels=4", "conv.kernel=gaussian", "conv.ksize=%d" % ks,
                                          "conv.boundary=zero", "conv.algorithm=tiled",
                                          "conv.compare=" + ("naive,separable,fft,vendor" if h.gpu or not h.small else "naive,separable"),
                                          "conv.check_samples=1024"])
        except Exception:
            rows.append(("%d" % ks, ["FAILED"] * (len(names) + 2)))
            for s in series.values():
                s.append(None)
            continue
        cuda = rec.get("backend") == "cuda"
        cells, t = [], {}
        for n in names:
            v = _m(rec, "%s_kernel_s" % n)
            t[n] = v
            cells.append(h.ms(v) if v is not None else ("n/a (host)" if not cuda else "FAILED"))
            series[n].append(v * 1e3 if v is not None else None)
        best_ratio = _m(rec, "best_vs_vendor")
        cells.append("%.2f" % best_ratio if best_ratio is not None else "n/a (no vendor library)")
        direct = min(x for x in (t["naive"], t["tiled"], t["separable"]) if x is not None)
        if t["fft"] is not None:
            cells.append("%.2f" % (t["fft"] / direct))
            if crossover is None and t["fft"] < direct:
                crossover = ks
        else:
            cells.append("n/a (no fft)")
        rows.append(("%d" % ks, cells))
    note = ("fft vs direct crossover: fft is faster from ksize %d" % crossover) if crossover else \
           ("fft vs direct crossover: fft slower than the best direct kernel at every ksize measured" if h.gpu
            else "fft vs direct crossover: not measured (no cuFFT on the host backend)")
    return {"name": "conv-ksize", "title": "conv: %d x %d RGBA float, gaussian, boundary zero: kernel time (ms) by ksize" % (W, H),
            "columns": cols, "rows": rows,
            "plot": {"xlabel": "ksize", "ylabel": "kernel time (ms)", "x": ks_list, "series": series, "xscale": "linear"},
            "notes": [note, "best of ours / vendor speed: cuDNN's kernel time over the fastest of ours (target >= 1.0 "
                      "at ksize 15 and 31)."]}


def _ranks_table(h):
    W, H = (1031, 769) if h.small else (16384, 16384)
    cols = ["ranks", "grid", "device ms", "halo ms", "pixels identical to 1 rank"]
    rows, first = [], None
    for p in (1, 2, 3):
        tag = "ranks_%d" % p
        try:
            rec = h.run(tag, ["run.workload=conv", "conv.width=%d" % W, "conv.height=%d" % H, "conv.passes=10",
                              "conv.algorithm=tiled", "conv.compare=none", "output.npy=out.npy"], ranks=p)
        except Exception:
            rows.append(("%d" % p, ["FAILED"] * 4))
            continue
        with open(os.path.join(h.out, tag, "out.npy"), "rb") as f:
            dig = hashlib.sha256(f.read()).hexdigest()
        if first is None:
            first = dig
        same = "yes" if dig == first else "NO"
        if dig != first:
            h.failed += 1
        rows.append(("%d" % p, ["%dx%d" % (_m(rec, "grid_P"), _m(rec, "grid_Q")), h.ms(_m(rec, "device_s")),
                                h.ms(_m(rec, "halo_s")), same]))
    return {"name": "conv-ranks", "title": "conv: %d x %d RGBA, sharpen 3x3, 10 passes over 1..3 ranks (tiles, halo exchange)" % (W, H),
            "columns": cols, "rows": rows,
            "notes": ["Not in the seed (a single-device homework): the distributed workload built from it. "
                      "A result differing from 1 rank's counts as a failed run."]}


def tables(h):
    return [_seed_table(h), _ksize_table(h), _ranks_table(h)]
