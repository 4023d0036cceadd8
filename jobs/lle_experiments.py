#!/usr/bin/env python3
"""The seed's (004) experiments for the lle workload: tables + PNG.

    python3 jobs/lle_experiments.py --hybrid build/hybrid [--mode ci|full] [--out DIR]
                                    [--backends auto|host|host,cuda] [--mpiexec "mpiexec -n 1"]

1. KNN time against the dimension D (N = 2048; seed table 1): brute force per backend, and
   the host KD-tree.
2. KNN time against N (D = 16; seed table 2).
3. LLE time, GPU against CPU, against N with K = 9 on the Swiss roll and the S-curve lifted to
   D = 32 (seed figure 7), end to end = sum of the phases data..eigen (slowest rank).
4. Embedding plots at several N for both data sets (seed figures 8 and 9), written by hybrid
   itself ([output] plot, libpng).
5. scikit-learn's methods (lle.method = standard | ltsa | hessian | modified) on the Swiss roll,
   the S-curve and a noisy Swiss roll: time, trustworthiness, Procrustes disparity to
   scikit-learn's LocallyLinearEmbedding (dense eigensolver, same data) and scikit-learn's own
   time in the same run ("-" without scikit-learn).
--backends auto (the default): host, and cuda too when a small probe run on the CUDA backend
passes (a usable GPU).  --mode ci uses small sizes (minutes on 2 CPU cores, host backend); --mode full the seed's sizes
and more, on the GPU machine.  Writes DIR/tables.md, DIR/*.png (matplotlib, when importable),
DIR/embed_*.png and prints the tables.  Exit 0 when every run passed.
"""
import argparse, os, re, shutil, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hyplot  # noqa: E402  (jobs/hyplot.py: records and plots)

import numpy as np

# The host KNN runs on one core per rank: above this N a brute-force (or, in D = 16, kd-tree)
# host run takes minutes, and the tables show "-" (not run) there.
HOST_MAX_N = 32768



RECS = {}   # run name -> its JSON record (phases, metrics): the tables read the records


def run(a, args, name, quiet=False):
    """One hybrid run in DIR/runs, its record in DIR/runs/NAME/; returns the phases (slowest
    rank's seconds, from the record), or None when it failed."""
    wd = os.path.join(a.out, "runs")
    rd = os.path.join(wd, name)
    shutil.rmtree(rd, ignore_errors=True)
    os.makedirs(rd)
    cmd = a.mpiexec.split() + [a.hybrid, "run.workload=lle", "output.dir=" + rd] + args
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1200)
    out = p.stdout.decode(errors="replace")
    with open(os.path.join(wd, name + ".log"), "w") as f:
        f.write(" ".join(cmd) + "\n" + out)
    recs = hyplot.load_records(rd)
    if p.returncode != 0 or len(recs) != 1 or recs[0].get("status") != "passed":
        if quiet:
            return None
        print("run %s failed (exit %d, %d record(s)): %s" % (name, p.returncode, len(recs),
                                                            out.strip().splitlines()[-1] if out.strip() else ""))
        return None
    RECS[name] = recs[0]
    return {k: v["max"] for k, v in recs[0]["phases"].items()}


def trust(name):
    """The run's trustworthiness from its record ("-" when it has none)."""
    v = hyplot.value(RECS.get(name, {}), "metrics.trustworthiness")
    return "%.6f" % v if isinstance(v, (int, float)) else "-"


def table(title, head, rows):
    s = "### %s\n\n| %s |\n|%s|\n" % (title, " | ".join(head), "|".join("---" for _ in head))
    for r in rows:
        s += "| " + " | ".join(r) + " |\n"
    print(s)
    return s + "\n"


def fmt(x):
    return "-" if x is None else "%.4f" % x


def plot(path, title, xlabel, xs, series, logy=True):
    """Time against xs for each series (through jobs/hyplot.py); False without matplotlib."""
    return hyplot.line_plot(path, title, xlabel, "time (s, slowest rank)",
                            [(name, xs, ys) for name, ys in series.items()], logx=2, logy=logy) is not None


def procrustes(a, b):
    """Procrustes disparity of two n x d embeddings (scipy.spatial.procrustes's figure)."""
    a = a - a.mean(0); b = b - b.mean(0)
    a = a / np.linalg.norm(a); b = b / np.linalg.norm(b)
    return 1.0 - np.linalg.svd(b.T @ a)[1].sum() ** 2


def methods_table(a, backend, n):
    """lle.method x dataset: our time (phases data..eigen, slowest rank), trustworthiness, the
    Procrustes disparity to scikit-learn's LocallyLinearEmbedding (same method, dense
    eigensolver, same data) and scikit-learn's time, measured in this run."""
    try:
        from sklearn.datasets import make_swiss_roll, make_s_curve
        from sklearn.manifold import LocallyLinearEmbedding
    except ImportError:
        LocallyLinearEmbedding = None
    rows, failed = [], 0
    for ds, noise in (("swissroll", 0.0), ("scurve", 0.0), ("swissroll", 0.3)):
        for method in ("standard", "ltsa", "hessian", "modified"):
            name = "method_%s_%g_%s" % (ds, noise, method)
            emb = os.path.join(a.out, "runs", name + ".npy")
            ph = run(a, ["lle.dataset=" + ds, "lle.n=%d" % n, "lle.k=10", "lle.noise=%r" % noise, "run.seed=0",
                         "lle.method=" + method, "run.backend=" + backend, "lle.trust_sample=1000",
                         "output.embedding=" + emb], name)
            failed += ph is None
            t = sum(ph.get(k, 0) for k in ("data", "knn", "weights", "gather", "assemble", "eigen")) if ph else None
            disp = tsk = None
            if ph and LocallyLinearEmbedding is not None:
                f = make_swiss_roll if ds == "swissroll" else make_s_curve
                X, _ = f(n, noise=noise, random_state=0)
                t0 = time.time()
                ref = LocallyLinearEmbedding(n_neighbors=10, n_components=2, method=method,
                                             eigen_solver="dense").fit_transform(X)
                tsk = time.time() - t0
                disp = procrustes(ref, np.load(emb))
                if disp > 1e-6:
                    print("run %s: Procrustes disparity to scikit-learn %.3e > 1e-6" % (name, disp))
                    failed += 1
            rows.append([ds + (" noise %g" % noise if noise else ""), method, fmt(t), trust(name),
                         "%.2e" % disp if disp is not None else "-", fmt(tsk)])
    return table("scikit-learn's methods, N = %d, K = 10, d = 2, backend %s: time (s, data..eigen), trustworthiness "
                 "(k = 5), Procrustes disparity to scikit-learn (dense eigensolver, same data), scikit-learn's time (s)"
                 % (n, backend), ["data", "method", "time", "trustworthiness", "disparity", "scikit-learn time"],
                 rows), failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hybrid", required=True)
    ap.add_argument("--mode", choices=["ci", "full"], default="ci")
    ap.add_argument("--out", default="lle-experiments")
    ap.add_argument("--backends", default="auto")
    ap.add_argument("--mpiexec", default="")
    a = ap.parse_args()
    a.hybrid = os.path.abspath(a.hybrid)
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    if a.backends == "auto":
        probe = run(a, ["lle.dataset=uniform", "lle.n=256", "lle.k=9", "lle.stage=knn", "lle.knn=brute",
                        "run.backend=cuda"], "probe_cuda", quiet=True)
        a.backends = "host,cuda" if probe is not None else "host"
        print("backends: %s (auto: %s)" % (a.backends, "a CUDA probe run passed" if probe is not None else "no usable GPU"))
    bks = a.backends.split(",")
    full = a.mode == "full"
    md = "# lle: the seed's experiments (%s mode)\n\n" % a.mode
    failed = 0

    # 1. KNN time vs D, N = 2048
    n1 = 2048 if full else 1024
    dims = [2, 4, 8, 16, 32, 64, 128, 256] if full else [2, 8, 32]
    res = {}
    for D in dims:
        for b in bks + ["kdtree"]:
            knn = "kdtree" if b == "kdtree" else "brute"
            be = "host" if b == "kdtree" else b
            ph = run(a, ["lle.dataset=uniform", "lle.n=%d" % n1, "lle.ambient_dim=%d" % D, "lle.k=9",
                         "lle.stage=knn", "lle.knn=" + knn, "run.backend=" + be], "knn_dim_%s_%d" % (b, D))
            failed += ph is None
            res[(b, D)] = ph["knn"] if ph else None
    cols = bks + ["kdtree"]
    rows = [[str(D)] + [fmt(res[(b, D)]) for b in cols] for D in dims]
    md += table("KNN time (s) against dimension, N = %d, K = 9 (seed table 1)" % n1, ["D"] + ["brute " + b if b != "kdtree" else "kdtree host" for b in cols], rows)
    plot(os.path.join(a.out, "knn_vs_dim.png"), "KNN, N = %d" % n1, "dimension D", dims, {b: [res[(b, D)] for D in dims] for b in cols})

    # 2. KNN time vs N, D = 16
    ns = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072] if full else [512, 1024, 2048, 4096]
    res = {}
    for n in ns:
        for b in bks + ["kdtree"]:
            knn = "kdtree" if b == "kdtree" else "brute"
            be = "host" if b == "kdtree" else b
            if b in ("host", "kdtree") and n > HOST_MAX_N:
                res[(b, n)] = None  # one host core: minutes per run (kd-tree in D = 16 is no faster)
                continue
            ph = run(a, ["lle.dataset=uniform", "lle.n=%d" % n, "lle.ambient_dim=16", "lle.k=9", "lle.stage=knn",
                         "lle.knn=" + knn, "run.backend=" + be], "knn_n_%s_%d" % (b, n))
            failed += ph is None
            res[(b, n)] = ph["knn"] if ph else None
    rows = [[str(n)] + [fmt(res[(b, n)]) for b in cols] for n in ns]
    md += table("KNN time (s) against N, D = 16, K = 9 (seed table 2; host runs above N = %d not run: -)" % HOST_MAX_N, ["N"] + ["brute " + b if b != "kdtree" else "kdtree host" for b in cols], rows)
    plot(os.path.join(a.out, "knn_vs_n.png"), "KNN, D = 16", "N", ns, {b: [res[(b, n)] for n in ns] for b in cols})

    # 3. LLE time vs N, K = 9, D = 32, GPU vs CPU
    ns3 = [1000, 2000, 4000, 8000, 16000, 32000, 64000] if full else [500, 1000, 2000]
    for ds in ("swissroll", "scurve"):
        res = {}
        for n in ns3:
            for b in bks:
                if b == "host" and n > HOST_MAX_N:
                    res[(b, n)] = res[(b, n, "knn")] = res[(b, n, "eigen")] = None
                    continue
                ph = run(a, ["lle.dataset=" + ds, "lle.n=%d" % n, "lle.k=9", "lle.ambient_dim=32",
                             "lle.knn=brute", "run.backend=" + b, "lle.trust_sample=0"], "lle_%s_%s_%d" % (ds, b, n))
                failed += ph is None
                res[(b, n)] = sum(ph.get(k, 0) for k in ("data", "knn", "weights", "gather", "assemble", "eigen")) if ph else None
                res[(b, n, "knn")] = ph.get("knn") if ph else None
                res[(b, n, "eigen")] = ph.get("eigen") if ph else None
        head = ["N"]
        for b in bks:
            head += ["%s total" % b, "%s knn" % b, "%s eigen" % b]
        if "host" in bks and "cuda" in bks:
            head.append("speed-up cuda/host")
        rows = []
        for n in ns3:
            r = [str(n)]
            for b in bks:
                r += [fmt(res[(b, n)]), fmt(res[(b, n, "knn")]), fmt(res[(b, n, "eigen")])]
            if "host" in bks and "cuda" in bks:
                h, c = res[("host", n)], res[("cuda", n)]
                r.append("%.2fx" % (h / c) if h and c else "-")
            rows.append(r)
        md += table("LLE time (s) against N, %s lifted to D = 32, K = 9, d = 2 (seed figure 7)" % ds, head, rows)
        plot(os.path.join(a.out, "lle_%s_vs_n.png" % ds), "LLE %s, K = 9, D = 32" % ds, "N", ns3, {b: [res[(b, n)] for n in ns3] for b in bks})

    # 4. embedding plots at several N
    ns4 = [500, 1000, 2000, 5000, 20000] if full else [500, 1000]
    lines = []
    for ds in ("swissroll", "scurve"):
        for n in ns4:
            png = os.path.join(a.out, "embed_%s_%d.png" % (ds, n))
            name = "embed_%s_%d" % (ds, n)
            ph = run(a, ["lle.dataset=" + ds, "lle.n=%d" % n, "lle.k=9", "run.backend=" + bks[-1],
                         "output.embedding=%s.csv" % name, "output.points=%s_points.csv" % name,
                         "lle.trust_sample=1000"], name)
            failed += ph is None
            tw = trust(name)
            if ph is not None:
                r = RECS[name]
                wd = os.path.join(a.out, "runs")
                eig = hyplot.value(r, "metrics.eigensolver") or hyplot.value(r, "config.lle.eigensolver")   # auto resolved
                title = "lle %s, N = %d, K = 9, method %s, eigensolver %s, device %s" % (
                    ds, n, hyplot.value(r, "config.lle.method"), eig, r.get("backend"))
                hyplot.embedding_plot(png, hyplot.read_table(os.path.join(wd, name + ".csv")),
                                      hyplot.read_table(os.path.join(wd, name + "_points.csv"))[:, -1], title)
            lines.append([ds, str(n), os.path.basename(png), tw])
    md += table("Embeddings (seed figures 8, 9), K = 9, d = 2", ["data", "N", "plot", "trustworthiness (k = 5)"], lines)
    # 5. scikit-learn's methods (issue 16): method x dataset against scikit-learn in the same run
    md_m, f_m = methods_table(a, bks[-1], 2000 if full else 500)
    md += md_m
    failed += f_m
    with open(os.path.join(a.out, "tables.md"), "w") as f:
        f.write(md)
    print("tables: %s, plots in %s" % (os.path.join(a.out, "tables.md"), a.out))
    print("%s: lle experiments, %d failed run(s)" % ("PASSED" if not failed else "FAILED", failed))
    return 0 if not failed else 4


if __name__ == "__main__":
    sys.exit(main())
