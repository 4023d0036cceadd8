#!/usr/bin/env python3
"""Tests of the gemm workload against an independent reference (numpy, FP64).

gemm_check.py ranks --bin HYBRID --mpiexec MPIEXEC --npflag -n --workdir DIR
                    [--identical] --runs "NP:key=value key=value" ... -- COMMON-ARGS...
  Runs hybrid once per --runs entry (NP ranks, extra overrides) with output.a/b/c (and c0 when
  beta != 0) written as Matrix Market; for every run: exit 0, last line PASSED, the Freivalds
  ratio printed and <= 1; A and B hold values of the precision's input format (rounded once);
  every element of C within its rounding-error bound ((k + 4) u + (2 k + 8) eps_64) (|alpha| |A|
  |B| + |beta| |C0|) of alpha A B + beta C0 computed here; A, B, C0 identical in every run (the
  inputs do not depend on the rank count); --identical: C identical bit for bit in every run;
  --agree: every run's C within twice the bound of run 0's (CUDA against host); --need-gpus N:
  exit 77 (skipped) when nvidia-smi lists fewer than N GPUs.

gemm_check.py file --bin ... --workdir DIR --np N -- COMMON-ARGS...
  Runs once with random inputs writing A, B (C0), then with gemm.source = file on those files:
  the second C must equal the first bit for bit.
Exit 0 pass, 1 fail; prints what it checked.
"""
import argparse, os, re, subprocess, sys

import numpy as np
import scipy.io

UNIT = {"float": 2.0 ** -24, "tf32": 2.0 ** -24, "bf16": 2.0 ** -24, "fp16": 2.0 ** -24,
        "double": 2.0 ** -53}


def arg_value(args, key, default):
    for a in args:
        if a.startswith(key + "="):
            return a.split("=", 1)[1]
    return default


def representable(a, prec):
    """True when every value of a is exactly a value of the precision's input format."""
    if prec == "double":
        return True
    f = a.astype(np.float32)
    if not np.array_equal(f.astype(np.float64), a):
        return False
    bits = f.view(np.uint32)
    if prec == "tf32":
        return not np.any(bits & 0x1FFF)
    if prec == "bf16":
        return not np.any(bits & 0xFFFF)
    if prec == "fp16":
        return np.array_equal(a.astype(np.float16).astype(np.float64), a)
    return True


def run(cmd, wd):
    os.makedirs(wd, exist_ok=True)
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    return p.returncode, out


def load(path):
    return np.asarray(scipy.io.mmread(path), dtype=np.float64)


def one_run(a, np_, extra, wd, common, ext=".mtx"):
    args = common + extra.split()
    beta = float(arg_value(args, "gemm.beta", "0"))
    outs = ["output.a=A" + ext, "output.b=B" + ext, "output.c=C.mtx"] + (["output.c0=C0" + ext] if beta else [])
    cmd = [a.mpiexec, a.npflag, str(np_), a.bin] + args + outs + ["output.record=false"]
    rc, out = run(cmd, wd)
    fails = []
    last = out.strip().splitlines()[-1] if out.strip() else ""
    if rc != 0 or not last.startswith("PASSED"):
        print(out)
        return None, ["%s: exit %d, last line %r" % (" ".join(cmd), rc, last)]
    m = re.search(r"Freivalds \(2 vectors\) ratio ([0-9.eE+-]+|nan|inf)", out)
    if not m or not float(m.group(1)) <= 1.0:
        fails.append("run %s: Freivalds ratio missing or > 1: %r" % (wd, m.group(1) if m else None))
    res = {k: load(os.path.join(wd, k + ".mtx")) for k in ["C"]}
    if ext == ".mtx":
        res.update({k: load(os.path.join(wd, k + ".mtx")) for k in ["A", "B"] + (["C0"] if beta else [])})
    res["alpha"] = float(arg_value(args, "gemm.alpha", "1"))
    res["beta"] = beta
    res["prec"] = arg_value(args, "gemm.precision", "float")
    return res, fails


def bound_of(r):
    """The rounding-error bound of every element of C (the in-run check's formula)."""
    A, B = r["A"], r["B"]
    k = A.shape[1]
    bnd = abs(r["alpha"]) * (np.abs(A) @ np.abs(B))
    if r["beta"]:
        bnd = bnd + abs(r["beta"]) * np.abs(r["C0"])
    return ((k + 4) * UNIT[r["prec"]] + (2 * k + 8) * 2.0 ** -53) * bnd


def gpus():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    except OSError:
        return 0
    return sum(1 for l in out.splitlines() if l.startswith("GPU "))


def check_product(r, label):
    A, B, C = r["A"], r["B"], r["C"]
    al, be, prec = r["alpha"], r["beta"], r["prec"]
    k = A.shape[1]
    fails = []
    for name in ("A", "B"):
        if not representable(r[name], prec):
            fails.append("%s: %s holds values that are not %s numbers (inputs not rounded once)" % (label, name, prec))
    ref = al * (A @ B)
    bnd = abs(al) * (np.abs(A) @ np.abs(B))
    if be:
        ref = ref + be * r["C0"]
        bnd = bnd + abs(be) * np.abs(r["C0"])
    scale = (k + 4) * UNIT[prec] + (2 * k + 8) * 2.0 ** -53
    err = np.abs(C - ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bnd > 0, err / (scale * bnd), np.where(err == 0, 0.0, np.inf))
    worst = float(np.max(ratio)) if ratio.size else 0.0
    print("%s: C %dx%d, max error / bound = %.3e" % (label, C.shape[0], C.shape[1], worst))
    if not worst <= 1.0:
        i, j = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        fails.append("%s: C(%d,%d) = %.17g, reference %.17g: error / bound %.3e > 1" % (label, i, j, C[i, j], ref[i, j], worst))
    return fails


def cmd_ranks(a, common):
    fails, first = [], None
    for idx, spec in enumerate(a.runs):
        np_, _, extra = spec.partition(":")
        label = "run %d (%s ranks %s)" % (idx, np_, extra)
        r, f = one_run(a, int(np_), extra, os.path.join(a.workdir, "run%d" % idx), common)
        fails += f
        if r is None:
            continue
        fails += check_product(r, label)
        if first is None:
            first = r
            continue
        for name in ("A", "B", "C0"):
            if name in r and not np.array_equal(r[name], first[name]):
                fails.append("%s: %s differs from run 0's (the inputs must not depend on the grid)" % (label, name))
        if a.agree:
            diff = np.abs(r["C"] - first["C"])
            with np.errstate(divide="ignore", invalid="ignore"):
                bnd = bound_of(first)
                q = np.where(bnd > 0, diff / bnd, np.where(diff == 0, 0.0, np.inf))
            worst = float(np.max(q)) if q.size else 0.0
            print("%s: |C - C of run 0| / bound = %.3e" % (label, worst))
            if not worst <= 2.0:
                fails.append("%s: C differs from run 0's by %.3e x the bound (> 2)" % (label, worst))
        if a.identical and not np.array_equal(r["C"], first["C"]):
            d = np.max(np.abs(r["C"] - first["C"]))
            fails.append("%s: C differs from run 0's (max |difference| %.3e), expected identical" % (label, d))
    return fails


def cmd_file(a, common):
    wd1, wd2 = os.path.join(a.workdir, "random"), os.path.join(a.workdir, "file")
    # the inputs written in the format asked (--ext .petsc: PETSc binary), plus Matrix Market
    # copies from a second identical run for the reference
    r1, fails = one_run(a, a.np, "", wd1, common)
    if r1 is None:
        return fails
    src = wd1
    if a.ext != ".mtx":
        src = os.path.join(a.workdir, "random_" + a.ext.strip("."))
        r0, f = one_run(a, a.np, "", src, common, ext=a.ext)
        fails += f
        if r0 is not None and not np.array_equal(r0["C"], r1["C"]):
            fails.append("the run writing %s files computed another C" % a.ext)
    extra = "gemm.source=file gemm.a_file=%s gemm.b_file=%s" % (os.path.join(src, "A" + a.ext), os.path.join(src, "B" + a.ext))
    if r1["beta"]:
        extra += " gemm.c_file=%s" % os.path.join(src, "C0" + a.ext)
    common2 = [x for x in common if not re.match(r"gemm\.(m|n|k)=", x)]
    r2, f = one_run(a, a.np, extra, wd2, common2)
    fails += f
    if r2 is not None:
        fails += check_product(r2, "file run")
        if not np.array_equal(r1["C"], r2["C"]):
            fails.append("C from the files differs from C of the random run (max |difference| %.3e)"
                         % np.max(np.abs(r1["C"] - r2["C"])))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["ranks", "file"])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--npflag", default="-n")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--runs", nargs="+", default=["1:"])
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--ext", default=".mtx", help="file mode: format of the input files (.mtx or .petsc)")
    ap.add_argument("--identical", action="store_true")
    ap.add_argument("--agree", action="store_true")
    ap.add_argument("--need-gpus", type=int, default=0)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    common = argv[cut + 1:]
    if a.need_gpus and gpus() < a.need_gpus:
        print("SKIP: needs %d GPUs, nvidia-smi lists %d" % (a.need_gpus, gpus()))
        return 77
    fails = cmd_ranks(a, common) if a.mode == "ranks" else cmd_file(a, common)
    for f in fails:
        print("FAIL: " + f)
    print("PASS" if not fails else "FAILED: %d check(s)" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
