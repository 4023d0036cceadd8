#!/usr/bin/env python3
"""Drivers for gauss tests that run more than one command (no numpy needed).

gauss_driver.py ranks --mpiexec=M --npflag=-n --bin HYBRID --workdir DIR --tol T --runs "R:ARGS" ... -- COMMON-ARGS
    [--expect REGEX]... [--reject REGEX]...
    Runs `M R HYBRID COMMON-ARGS ARGS output.solution=x_i.mtx` for every run, checks that each
    exits 0 with PASSED (and, for every run, that each --expect regex is found and no --reject
    regex is, multiline), then that every x agrees with the first to T (max-norm relative).
gauss_driver.py validate --mpiexec=M --npflag=-n --bin HYBRID --validator V --workdir DIR --ranks R
    [--ext .petsc] -- ARGS
    Runs the workload writing A, b and x, then `V solve -A A -b b -x x` (no mpiexec: singleton).
gauss_driver.py compare FILE1 FILE2 --tol T      compare two vector files.
gauss_driver.py profile --mpiexec=M --npflag=-n --bin HYBRID --workdir DIR --ranks R -- ARGS
    Runs the workload once (ARGS with gauss.profile=true, repeat 1) and parses the profile line:
    every part >= 0, the printed sum = the parts' sum, and the sum within [0.5, 1.05] x the
    factor time of the "Gflops per" line (+ 2 ms): the split accounts for the factorization.
Exit 0 pass, 1 fail.
"""
import argparse, os, re, shutil, subprocess, sys


def read_vec(path):
    """Matrix Market array or coordinate n x 1 vector -> list of floats."""
    with open(path) as f:
        head = f.readline()
        if not head.startswith("%%MatrixMarket"):
            raise ValueError("%s: not a Matrix Market file" % path)
        coord = "coordinate" in head.lower()
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        dims = [int(t) for t in line.split()]
        n = dims[0] * dims[1] if not coord else max(dims[0], dims[1])
        v = [0.0] * n
        k = 0
        for line in f:
            t = line.split()
            if not t or t[0].startswith("%"):
                continue
            if coord:
                i, j, x = int(t[0]), int(t[1]), float(t[2])
                v[max(i, j) - 1] = x
            else:
                v[k] = float(t[0])
                k += 1
        return v


def rel_diff(a, b):
    if len(a) != len(b):
        return float("inf")
    num = max(abs(x - y) for x, y in zip(a, b))
    den = max(abs(x) for x in a) or 1.0
    return num / den


def run(cmd, wd):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=600)
    out = p.stdout.decode(errors="replace")
    print(out, flush=True)
    return p.returncode, out


def cmd_ranks(a, common):
    fails = []
    xs = []
    for i, spec in enumerate(a.runs):
        r, _, extra = spec.partition(":")
        x = os.path.join(a.workdir, "x_%d.mtx" % i)
        cmd = a.mpiexec + [r, a.bin] + common + extra.split() + ["output.solution=" + x,
                                                                  "output.record=false"]
        rc, out = run(cmd, a.workdir)
        if rc != 0 or "PASSED" not in out:
            fails.append("run %d (%s) exit %d" % (i, spec, rc))
            continue
        bad = [e for e in a.expect if not re.search(e, out, re.M)]
        bad += ["not " + e for e in a.reject if re.search(e, out, re.M)]
        if bad:
            fails.append("run %d (%s): output %s" % (i, spec, ", ".join(
                ("matches " + b[4:]) if b.startswith("not ") else ("lacks " + b) for b in bad)))
            continue
        xs.append((spec, read_vec(x)))
    for spec, v in xs[1:]:
        d = rel_diff(xs[0][1], v)
        print("x(%s) vs x(%s): relative max difference %.3e (tolerance %.1e)" % (spec, xs[0][0], d, a.tol))
        if not d <= a.tol:
            fails.append("x of %s differs from %s by %.3e" % (spec, xs[0][0], d))
    return fails


def cmd_validate(a, common):
    ext = a.ext
    A, b, x = [os.path.join(a.workdir, s + ext) for s in ("A", "b", "x")]
    cmd = a.mpiexec + [a.ranks, a.bin] + common + ["output.matrix=" + A, "output.rhs=" + b,
                                                  "output.solution=" + x, "output.record=false"]
    rc, out = run(cmd, a.workdir)
    if rc != 0:
        return ["workload exit %d" % rc]
    rc, out = run([a.validator, "solve", "-A", A, "-b", b, "-x", x, "-tol", a.tol], a.workdir)
    if rc != 0:
        return ["hybrid-validate exit %d" % rc]
    return []


PROF = re.compile(r"^profile \(rank 0, synchronised, last factorization\): panel ([0-9.]+) ms, swaps "
                  r"([0-9.]+) ms, trsm\+U ([0-9.]+) ms, lookahead gemm ([0-9.]+) ms, rest of the trailing "
                  r"update \(swaps, trsm, gemm; before the next panel, not beside it\) ([0-9.]+) ms; sum "
                  r"([0-9.]+) ms$", re.M)


def cmd_profile(a, common):
    cmd = a.mpiexec + [a.ranks, a.bin] + common + ["gauss.profile=true", "gauss.repeat=1",
                                                  "output.record=false"]
    rc, out = run(cmd, a.workdir)
    if rc != 0 or "PASSED" not in out:
        return ["workload exit %d" % rc]
    m = PROF.search(out)
    f = re.search(r"^Gflops per \S+: \S+ +\(time [0-9.]+ s: factor ([0-9.]+) s", out, re.M)
    if not m or not f:
        return ["no profile line (%s) or factor time (%s)" % (bool(m), bool(f))]
    parts = [float(m.group(i)) for i in range(1, 6)]
    total, fac = float(m.group(6)), float(f.group(1)) * 1e3
    print("profile parts %s ms, sum %.3f ms, factor %.3f ms" % (parts, total, fac))
    fails = []
    if min(parts) < 0 or abs(sum(parts) - total) > 0.003:
        fails.append("parts %s do not sum to the printed %.3f ms" % (parts, total))
    if not (0.5 * fac <= total <= 1.05 * fac + 2.0):
        fails.append("the parts' sum %.3f ms is not within [0.5, 1.05] x the factor's %.3f ms" % (total, fac))
    return fails


def main():
    argv = sys.argv[1:]
    common = []
    if "--" in argv:
        k = argv.index("--")
        argv, common = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["ranks", "validate", "compare", "profile"])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--npflag", default="-n")
    ap.add_argument("--bin")
    ap.add_argument("--validator")
    ap.add_argument("--workdir", default=".")
    ap.add_argument("--tol", default="1e-12")
    ap.add_argument("--runs", nargs="+", default=[])
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--reject", action="append", default=[])
    ap.add_argument("--ranks", default="1")
    ap.add_argument("--ext", default=".mtx")
    ap.add_argument("--need-gpus", type=int, default=0)
    a = ap.parse_args(argv)
    if a.need_gpus:
        try:
            smi = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        except OSError:
            smi = b""
        n = sum(1 for l in smi.decode(errors="replace").splitlines() if l.startswith("GPU "))
        if n < a.need_gpus:
            print("SKIP: needs %d GPUs, nvidia-smi lists %d" % (a.need_gpus, n))
            return 77
    a.mpiexec = [a.mpiexec, a.npflag]
    if a.mode == "compare":
        d = rel_diff(read_vec(a.files[0]), read_vec(a.files[1]))
        print("relative max difference %.3e (tolerance %s)" % (d, a.tol))
        return 0 if d <= float(a.tol) else 1
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    if a.mode == "ranks":
        a.tol = float(a.tol)
        fails = cmd_ranks(a, common)
    elif a.mode == "profile":
        fails = cmd_profile(a, common)
    else:
        fails = cmd_validate(a, common)
    for f in fails:
        print("FAIL: " + f)
    print("driver: %s" % ("FAIL" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
