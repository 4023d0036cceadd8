#!/usr/bin/env python3
"""Brute-force KNN benchmark: hybrid's CUDA kernel against torch.cdist + topk in the same call.

    python3 jobs/lle_knn_bench.py --hybrid build-gpu/hybrid [--n 100000] [--dim 32] [--k 10]
                                  [--precision fp64|fp32] [--reps 3] [--out DIR]

Writes N x D uniform random points (numpy seed 0, float32 values) as .npy, times torch.cdist(X, X) +
topk(k + 1) on the GPU (best of --reps after a warm-up; chunked over queries when the N x N
matrix does not fit), then runs `hybrid lle.stage=knn lle.knn=brute run.backend=cuda` on the
same file --reps times (lle.knn_warmup = true unless --cold: torch too is timed after a
warm-up; lle.precision = --precision: fp64, the default, is the exact FP64
brute force through the FP32 filter) and takes its best knn phase (device upload, kernel and
download included, process start-up excluded).  Prints both times, the ratio (target <= 0.25,
issue 15) and the agreement of the neighbour sets with an exact FP64 check on a sample of
queries (fp64 must agree on all: exit 4 otherwise).
"""
import argparse, os, re, subprocess, sys, time
import numpy as np


def torch_knn(X, k, reps):
    import torch
    dev = torch.device("cuda")
    Xt = torch.from_numpy(X).to(dev)
    n = Xt.shape[0]
    free = torch.cuda.mem_get_info()[0]
    chunk = n
    while chunk * n * Xt.element_size() * 3 > free * 0.8:
        chunk //= 2

    def once():
        idx = []
        for s in range(0, n, chunk):
            d = torch.cdist(Xt[s:s + chunk], Xt)
            idx.append(d.topk(k + 1, dim=1, largest=False).indices)
            del d
        return torch.cat(idx)

    once()
    torch.cuda.synchronize()
    best = 1e30
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = once()
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best, out.cpu().numpy(), chunk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hybrid", required=True)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--precision", default="fp64")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cold", dest="warm", action="store_false",
                    help="time hybrid's first search in the process (default: lle.knn_warmup = true, one untimed "
                         "search first, as torch is timed after its warm-up)")
    ap.add_argument("--out", default="lle-knn-bench")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    X = np.random.RandomState(0).rand(a.n, a.dim).astype(np.float32)   # torch's input, exact in FP64 too
    path = os.path.abspath(os.path.join(a.out, "points.npy"))
    np.save(path, X)
    try:
        tt, tidx, chunk = torch_knn(X, a.k, a.reps)
    except Exception as e:  # no torch / no GPU: report and go on with ours
        print("torch: not available (%s)" % e)
        tt, tidx, chunk = float("nan"), None, 0
    best, nb = 1e30, None
    for r in range(a.reps):
        cmd = [a.hybrid, "run.workload=lle", "lle.dataset=file", "lle.file=" + path, "lle.k=%d" % a.k,
               "lle.stage=knn", "lle.knn=brute", "lle.precision=" + a.precision, "run.backend=cuda",
               "lle.knn_warmup=" + ("true" if a.warm else "false"),
               "output.record=false", "output.neighbors=" + os.path.join(a.out, "nb.npy")]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        m = re.search(r"stage knn: knn ([0-9.eE+-]+) s", out)
        if p.returncode != 0 or not m:
            print(out)
            print("FAILED: hybrid exited %d" % p.returncode)
            return 1
        best = min(best, float(m.group(1)))
    nb = np.load(os.path.join(a.out, "nb.npy"))
    # exact check on a sample of queries (FP64, ties by index)
    rs = np.random.RandomState(1).choice(a.n, 200, replace=False)
    X64 = X.astype(np.float64)
    exact_ok = 0
    torch_ok = 0
    for q in rs:
        d = ((X64 - X64[q]) ** 2).sum(1)
        d[q] = np.inf
        order = np.lexsort((np.arange(a.n), d))[:a.k]
        exact_ok += set(order) == set(nb[q])
        if tidx is not None:
            torch_ok += set(order) == set(x for x in tidx[q] if x != q) or set(order) <= set(tidx[q])
    print("KNN N=%d D=%d K=%d (%s): hybrid CUDA %.2f ms (best of %d, incl. transfers, %s), torch.cdist+topk %.2f ms%s"
          % (a.n, a.dim, a.k, a.precision, best * 1e3, a.reps, "after a warm-up search" if a.warm else "cold",
             tt * 1e3, " (chunk %d)" % chunk if chunk and chunk < a.n else ""))
    print("ratio hybrid / torch = %.3f (target <= 0.25)" % (best / tt))
    print("exact neighbour sets (FP64 check, 200 sampled queries): hybrid %d/200, torch %d/200" % (exact_ok, torch_ok))
    ok = best / tt <= 0.25 if tt == tt else True
    if a.precision == "fp64" and exact_ok != len(rs):
        print("FAILED: %d of %d sampled FP64 lists differ from the exact check" % (len(rs) - exact_ok, len(rs)))
        return 4
    print("%s: lle KNN benchmark, ratio %.3f" % ("PASSED" if ok else "FAILED", best / tt))
    return 0 if ok else 4


if __name__ == "__main__":
    sys.exit(main())
