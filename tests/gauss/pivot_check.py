#!/usr/bin/env python3
"""Matrices where partial pivoting decides the answer, solved by hybrid and by LAPACK (numpy).

pivot_check.py --mpiexec M --npflag -n --ranks R --bin HYBRID --workdir DIR -- ARGS...

Writes three systems (Matrix Market, n = 61, b random) and runs `M -n R HYBRID run.workload=gauss
gauss.matrix=file gauss.rhs=file ARGS output.solution=...` on each; every run must exit 0 with
PASSED and its x must agree with numpy.linalg.solve (LAPACK dgesv, partial pivoting) to 1e-10
(max-norm relative).  The systems:
  ptri    A = P^T U, U upper triangular (diagonal in +-[1, 2]), P a random permutation: at every
          step exactly one remaining row has a non-zero in the pivot column, somewhere among
          them (first, last, between): a search over the wrong rows finds a zero pivot;
  negmax  A = P^T L U with L's multipliers tiny and positive (1e-13) and U's diagonal negative:
          at every step the pivot is the one large negative entry; picking the largest value
          instead of the largest magnitude takes a 1e-13 pivot (growth 1e13);
  swaps   A = P^T L U with |l_ij| <= 0.5 and P a product of swaps at known steps (0, 1, 7, 8,
          the last block, every third step): GEPP reproduces P, so the row swaps of the blocked
          LU (within a panel, across panels and process rows) must be applied exactly.
Exit 0 pass, 1 fail."""
import argparse, os, subprocess, sys

import numpy as np

N = 61


def mm_write(path, a):
    """Dense Matrix Market array file (column-major), full precision."""
    a = np.atleast_2d(a.T).T if a.ndim == 1 else a
    m, n = a.shape
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n")
        f.write("%d %d\n" % (m, n))
        for j in range(n):
            for i in range(m):
                f.write("%.17g\n" % a[i, j])


def mm_read_vec(path):
    with open(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("%")]
    dims = [int(t) for t in lines[0].split()]
    if len(dims) == 2:
        return np.array([float(l.split()[0]) for l in lines[1:]])
    v = np.zeros(max(dims[0], dims[1]))
    for l in lines[1:]:
        i, j, x = l.split()
        v[max(int(i), int(j)) - 1] = float(x)
    return v


def systems(rng):
    n = N
    out = {}
    # ptri: a permuted upper triangle
    u = np.triu(rng.uniform(-1, 1, (n, n)), 1)
    u[np.diag_indices(n)] = rng.choice([-1, 1], n) * rng.uniform(1, 2, n)
    p = rng.permutation(n)
    out["ptri"] = u[np.argsort(p)]          # row i of A = row p^-1(i) of U
    # negmax: the pivot is the single large negative entry of its column
    l = np.tril(np.full((n, n), 1e-13), -1) + np.eye(n)
    u2 = np.triu(rng.uniform(0.1, 0.5, (n, n)), 1)
    u2[np.diag_indices(n)] = -rng.uniform(1, 2, n)
    p2 = rng.permutation(n)
    out["negmax"] = (l @ u2)[np.argsort(p2)]
    # swaps: known swap steps, multipliers <= 0.5
    l3 = np.tril(rng.uniform(-0.5, 0.5, (n, n)), -1) + np.eye(n)
    u3 = np.triu(rng.uniform(-1, 1, (n, n)), 1)
    u3[np.diag_indices(n)] = rng.choice([-1, 1], n) * rng.uniform(1, 2, n)
    perm = list(range(n))
    for k in sorted(set([0, 1, 7, 8, n - 3, n - 2] + list(range(2, n - 1, 3)))):
        t = (k * 7 + 5) % (n - k) + k       # a row at or below k, deterministic
        if t == k:
            t = n - 1
        perm[k], perm[t] = perm[t], perm[k]
    out["swaps"] = (l3 @ u3)[np.argsort(np.array(perm))]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--npflag", default="-n")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    rng = np.random.default_rng(20261201)
    bad = 0
    for name, A in systems(rng).items():
        b = rng.uniform(-0.5, 0.5, N)
        fa, fb, fx = (os.path.join(a.workdir, "%s_%s.mtx" % (name, t)) for t in ("A", "b", "x"))
        mm_write(fa, A)
        mm_write(fb, b.reshape(-1, 1))
        if os.path.exists(fx):
            os.remove(fx)
        cmd = [a.mpiexec, a.npflag, str(a.ranks), a.bin, "run.workload=gauss", "gauss.matrix=file",
               "gauss.file=" + fa, "gauss.rhs=file", "gauss.rhs_file=" + fb, "output.record=false",
               "output.solution=" + fx] + a.args
        p = subprocess.run(cmd, cwd=a.workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=120)
        out = p.stdout.decode(errors="replace")
        ref = np.linalg.solve(A, b)
        if p.returncode != 0 or "\nPASSED" not in "\n" + out:
            print(out)
            print("pivot_check: %s: exit %d, no PASSED line" % (name, p.returncode))
            bad += 1
            continue
        x = mm_read_vec(fx)
        err = np.max(np.abs(x - ref)) / np.max(np.abs(ref))
        ok = x.shape == ref.shape and err <= 1e-10
        print("pivot_check: %s: ||x - x_lapack||_inf / ||x_lapack||_inf = %.3e (tolerance 1e-10) %s"
              % (name, err, "ok" if ok else "FAILED"))
        bad += 0 if ok else 1
    print("pivot_check: %s" % ("FAILED" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
