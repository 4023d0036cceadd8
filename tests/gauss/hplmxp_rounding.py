#!/usr/bin/env python3
"""hplmxp_rounding.py MPIEXEC NPFLAG HYBRID WORKDIR [PREFLAGS...] - the host's HPL-MxP runs round
the trailing GEMMs' inputs to gauss.low: the first GMRES-IR residual (of the low-precision LU's
x) of each rounded format, at the grid of its test, is at least RATIO times that of plain fp32
at the same grid (fp16 / tf32: 11 / 10 mantissa bits, ~1.7-2x fp32's; bf16: 8 bits, ~9-14x).
The ratio holds for any BLAS (reference BLAS: fp32 2.7e6, fp16 5.2e6; OpenBLAS, whose FP32 GEMM
rounds less: fp32 1.8e6, fp16 3.0e6), where a fixed bound pinned one BLAS's figures; skipping the
rounding gives a ratio of 1.  Numbers are parsed and compared.  Exit 0 pass, 1 fail."""
import os, re, subprocess, sys

mpiexec, npflag, exe, work = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3]), sys.argv[4]
pre = sys.argv[5:]
os.makedirs(work, exist_ok=True)
STEP0 = re.compile(r"^mixed: GMRES-IR step 0: scaled residual ([0-9.e+]+)", re.M)
# low, ranks, grid, the least ratio to fp32 at that grid
SPECS = [("fp16", 1, "1x1", 1.4), ("bf16", 2, "2x1", 4.0), ("tf32", 3, "1x3", 1.4)]
fails = []


def step0(low, np_, grid):
    cmd = [mpiexec, npflag, str(np_)] + pre + [exe, "run.workload=gauss", "run.backend=host", "gauss.matrix=hplmxp",
           "gauss.precision=mixed", "gauss.low=" + low, "gauss.grid=" + grid, "gauss.refine=gmres",
           "gauss.n=400", "gauss.nb=32", "output.record=false"]
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=120)
    m = STEP0.findall(p.stdout)
    if p.returncode != 0 or len(m) != 1:
        fails.append("%s %s: exit %d, %d step-0 line(s): %s" % (low, grid, p.returncode, len(m), (p.stdout + p.stderr)[-400:]))
        return None
    return float(m[0])


for low, np_, grid, least in SPECS:
    ref, got = step0("fp32", np_, grid), step0(low, np_, grid)
    if ref is None or got is None:
        continue
    ratio = got / ref
    ok = ratio >= least and ref < 4e6
    print("%s %s %s: first residual %.4g, fp32 %.4g: ratio %.2f (want >= %.1f; fp32 < 4e6)" %
          ("ok  " if ok else "FAIL", low, grid, got, ref, ratio, least))
    if not ok:
        fails.append("%s at %s: ratio %.2f to fp32 (want >= %.1f), fp32 %.4g (want < 4e6)" % (low, grid, ratio, least, ref))
for f in fails:
    print("FAIL: " + f)
print("ok: the rounded formats' first residuals stand out from fp32's" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
