#!/usr/bin/env python3
"""Two HPL-MxP runs of the same system (e.g. the CUDA backend against the host's emulation of
the rounding) compared.

hplmxp_compare.py --mpiexec=M --npflag=-n --bin HYBRID --workdir DIR --runs "R:ARGS" "R:ARGS"
    [--ratio 4] [--tol 1e-9] -- COMMON-ARGS

Runs each `M R HYBRID COMMON-ARGS ARGS output.solution=x_i.mtx` and checks that each exits 0
with PASSED, no FP64 fallback and the hpl-mxp rate line (its Gflops parsed, > 0, and equal to
(2/3 n^3 + 3/2 n^2) over the HPL line's Time), then that
  - the first GMRES-IR residual (of the low-precision LU's x: "GMRES-IR step 0: scaled residual
    R") of the second run is within a factor --ratio of the first's: the same rounding of the
    trailing GEMMs' inputs (an unrounded FP32 update gives a residual 10-1000x smaller);
  - the refined solutions agree to --tol (max-norm relative): both reached FP64 accuracy.
Exit 0 pass, 1 fail.
"""
import argparse, os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gauss_driver import read_vec, rel_diff, run, split_argv  # noqa: E402

STEP0 = re.compile(r"^mixed: GMRES-IR step 0: scaled residual ([0-9.e+-]+)", re.M)
RATE = re.compile(r"^hpl-mxp: low (\S+), matrix hplmxp: ([0-9.e+-]+) Gflops as HPL-MxP reports it", re.M)
LINE = re.compile(r"^[NSB][DSM][GH]F?\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+([0-9.]+)\s+([0-9.e+-]+)\s*$", re.M)


def main():
    argv, common = split_argv(sys.argv[1:])
    ap = argparse.ArgumentParser()
    for o in ("--mpiexec", "--npflag", "--bin", "--workdir"):
        ap.add_argument(o, required=True)
    ap.add_argument("--runs", nargs=2, required=True)
    ap.add_argument("--ratio", type=float, default=4.0)
    ap.add_argument("--tol", type=float, default=1e-9)
    a = ap.parse_args(argv)
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    fails, r0, xs = [], [], []
    for i, spec in enumerate(a.runs):
        r, _, extra = spec.partition(":")
        x = os.path.join(a.workdir, "x_%d.mtx" % i)
        rc, out = run([a.mpiexec, a.npflag, r, a.bin] + common + extra.split() +
                      ["output.solution=" + x, "output.record=false"], a.workdir)
        if rc != 0 or not re.search(r"^PASSED", out, re.M) or re.search("fallback|falling back", out):
            fails.append("run %d (%s): exit %d, PASSED %s, fallback %s" % (
                i, spec, rc, bool(re.search(r"^PASSED", out, re.M)), bool(re.search("fallback", out))))
            continue
        s0, rate, line = STEP0.search(out), RATE.search(out), LINE.search(out)
        if not (s0 and rate and line):
            fails.append("run %d (%s): step-0 residual %s, hpl-mxp line %s, HPL line %s" % (
                i, spec, bool(s0), bool(rate), bool(line)))
            continue
        n, t, gf = int(line.group(1)), float(line.group(3)), float(rate.group(2))
        want = (2.0 / 3.0 * n ** 3 + 1.5 * n ** 2) / t / 1e9
        if not (gf > 0 and abs(gf - want) <= 1e-3 * want + 1e-6 * n):
            fails.append("run %d: hpl-mxp %.4e Gflops, (2/3 n^3 + 3/2 n^2) / %.6f s = %.4e" % (i, gf, t, want))
        r0.append(float(s0.group(1)))
        xs.append(read_vec(x))
        print("run %d (%s): step-0 scaled residual %.4e, hpl-mxp %.4e Gflops" % (i, spec, r0[-1], gf))
    if len(r0) == 2:
        q = r0[1] / r0[0] if r0[0] > 0 else float("inf")
        print("step-0 residual ratio %.3f (allowed 1/%g .. %g)" % (q, a.ratio, a.ratio))
        if not (1.0 / a.ratio <= q <= a.ratio):
            fails.append("step-0 residuals %.4e vs %.4e: ratio %.3f outside 1/%g .. %g" % (
                r0[0], r0[1], q, a.ratio, a.ratio))
        d = rel_diff(xs[0], xs[1])
        print("x relative max difference %.3e (tolerance %.1e)" % (d, a.tol))
        if not d <= a.tol:
            fails.append("x differ by %.3e > %.1e" % (d, a.tol))
    for f in fails:
        print("FAIL: " + f)
    print("hplmxp_compare: %s" % ("FAIL" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
