#!/usr/bin/env python3
"""Multi-run checks of the spai workload (each run is `mpiexec -n R hybrid ARGS`).

spai_check.py MODE --mpiexec "mpiexec -n" --bin HYBRID --workdir DIR [--need FILE]... -- ARGS...

modes:
  same-m      M written at 1, 2 and 3 ranks (--ranks) is the same matrix: same pattern, values
              within --rtol (default 1e-13) relative to the column's largest entry
  fewer-iters BiCGSTAB with SPAI takes fewer iterations than without preconditioner
  verdict     one run ends with a clear verdict and no NaN: exit 0 (converged), 4 (not converged
              after N iterations with the residual reached) or 3 (breakdown naming the iteration)
  validate    a run writes A, b and M; hybrid-validate spai (--validator) runs PETSc BiCGSTAB
              with that M and checks the iteration count (and prints the Table 5 comparison)
  gpu-backends the cuda backend's M and iterations against the host backend's, at --ranks
              (M within --rtol, default 1e-9; iterations within 10% + 2, or equal with
              --same-iters)
  solver-backends the BiCGSTAB of the cuda backend against the host backend's, at --ranks: both
              converge with the true residual check passed, iterations within 2
  repeat      spai.repeat = 3 against one run at --ranks: the "spai: repeat 3:" line (cold,
              warm mean, fastest), the same iterations and the same M (exactly) as the single run,
              the target and floor lines on the fastest warm run, the warm metrics in the record
Exit 0 pass, 1 fail, 77 skip (a --need file is absent).
"""
import argparse, glob, json, os, re, shlex, shutil, subprocess, sys


def run(a, ranks, extra, tag):
    wd = os.path.join(a.workdir, tag)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    cmd = shlex.split(a.mpiexec) + [str(ranks), a.bin] + a.args + extra
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    out = p.stdout.decode(errors="replace")
    print("---- %s (exit %d)\n%s" % (" ".join(cmd), p.returncode, out[-3000:]))
    recs = sorted(glob.glob(os.path.join(wd, "results", "*.json")))
    rec = json.load(open(recs[-1])) if recs else None
    return p.returncode, out, rec, wd


def read_mm(path):
    """Coordinate real general Matrix Market -> dict (i, j) -> value."""
    ent = {}
    with open(path) as f:
        line = f.readline()
        assert line.startswith("%%MatrixMarket"), path
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        m, n, nz = map(int, line.split())
        for _ in range(nz):
            i, j, v = f.readline().split()
            ent[(int(i), int(j))] = float(v)
    return (m, n), ent


def compare_m(pa, pb, rtol):
    (sa, ea), (sb, eb) = read_mm(pa), read_mm(pb)
    if sa != sb:
        return "sizes differ: %r vs %r" % (sa, sb)
    if set(ea) != set(eb):
        return "patterns differ: %d vs %d entries, %d in one only" % (
            len(ea), len(eb), len(set(ea) ^ set(eb)))
    colmax = {}
    for (i, j), v in ea.items():
        colmax[j] = max(colmax.get(j, 0.0), abs(v))
    worst = 0.0
    for k, v in ea.items():
        d = abs(v - eb[k]) / max(colmax[k[1]], 1e-300)
        worst = max(worst, d)
    print("compare %s %s: %d entries, max difference %.3e of the column's largest (<= %.1e)" % (
        os.path.basename(pa), os.path.basename(pb), len(ea), worst, rtol))
    return None if worst <= rtol else "values differ by %.3e > %.1e" % (worst, rtol)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["same-m", "fewer-iters", "verdict", "validate", "gpu-backends",
                                     "solver-backends", "repeat"])
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--need", action="append", default=[])
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rtol", type=float, default=None)
    ap.add_argument("--validator", default=None)
    ap.add_argument("--same-iters", action="store_true")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.args = argv[cut + 1:]
    for f in a.need:
        if not os.path.exists(f):
            print("SKIP: %s is absent" % f)
            return 77
    fails = []
    if a.mode == "same-m":
        rtol = a.rtol if a.rtol is not None else 1e-13
        paths = []
        for r in a.ranks:
            rc, out, rec, wd = run(a, r, ["solver.solve=false", "output.preconditioner=M.mtx"], "r%d" % r)
            if rc != 0:
                fails.append("run at %d ranks exited %d" % (r, rc))
            paths.append(os.path.join(wd, "M.mtx"))
        if not fails:
            for p in paths[1:]:
                e = compare_m(paths[0], p, rtol)
                if e:
                    fails.append("%s vs %s: %s" % (paths[0], p, e))
    elif a.mode == "verdict":
        rc, out, rec, wd = run(a, a.ranks[0], [], "run")
        pats = {0: r"^PASSED: BiCGSTAB \(\w+\) converged in \d+ iterations",
                4: r"^FAILED: BiCGSTAB \(\w+\) not converged after \d+ iterations: residual [0-9.e+-]+",
                3: r"^FAILED: numerical failure .*BiCGSTAB breakdown: .* at iteration \d+"}
        if rc not in pats:
            fails.append("exit %d is none of 0, 3, 4" % rc)
        elif not re.search(pats[rc], out, re.M):
            fails.append("exit %d without its verdict line %r" % (rc, pats[rc]))
        else:
            print("verdict (exit %d): %s" % (rc, re.search(pats[rc] + ".*", out, re.M).group(0)))
        m = re.search(r"(?i)\bnan\b", out)
        if m:
            fails.append("output contains %r" % m.group(0))
        if rec is None or not all(isinstance(v, (int, float, str)) and str(v).lower() != "nan"
                                  for v in rec["metrics"].values()):
            fails.append("record missing or with a NaN metric")
    elif a.mode == "validate":
        rc, out, rec, wd = run(a, a.ranks[0], ["output.matrix=A.petsc", "output.rhs=b.petsc",
                                               "output.preconditioner=M.mtx"], "run")
        if rc != 0 or not rec:
            fails.append("hybrid exited %d" % rc)
        else:
            its = rec["metrics"]["iterations"]
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            cmd = [a.validator, "spai", "-A", "A.petsc", "-b", "b.petsc", "-M", "M.mtx",
                   "-iters", str(its)]
            p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=600, env=env)
            vout = p.stdout.decode(errors="replace")
            print("---- %s (exit %d)\n%s" % (" ".join(cmd), p.returncode, vout))
            if p.returncode != 0 or not re.search(r"^PASSED: iterations with our M", vout, re.M):
                fails.append("hybrid-validate spai exited %d" % p.returncode)
    elif a.mode == "fewer-iters":
        its = {}
        for pc in ["none", "spai"]:
            rc, out, rec, wd = run(a, a.ranks[0], ["solver.precond=" + pc], pc)
            if rc != 0 or not rec:
                fails.append("precond %s exited %d" % (pc, rc))
            else:
                its[pc] = rec["metrics"]["iterations"]
        if not fails:
            print("iterations: none %d, spai %d" % (its["none"], its["spai"]))
            if not its["spai"] < its["none"]:
                fails.append("SPAI took %d iterations, not fewer than %d without" % (its["spai"], its["none"]))
    elif a.mode == "gpu-backends":
        rtol = a.rtol if a.rtol is not None else 1e-9
        res, codes = {}, {}
        for be in ["host", "cuda"]:
            rc, out, rec, wd = run(a, a.ranks[0], ["run.backend=" + be, "output.preconditioner=M.mtx"], be)
            codes[be] = rc
            # converged (0) or not converged (4) are both comparable outcomes; others are not
            if rc not in (0, 4) or not rec:
                fails.append("backend %s exited %d" % (be, rc))
            else:
                res[be] = (rec["metrics"], os.path.join(wd, "M.mtx"))
        if not fails and codes["host"] != codes["cuda"]:
            fails.append("exit codes differ: host %d, cuda %d" % (codes["host"], codes["cuda"]))
        if not fails:
            e = compare_m(res["host"][1], res["cuda"][1], rtol)
            if e:
                fails.append("M host vs cuda: " + e)
            ih, ic = res["host"][0]["iterations"], res["cuda"][0]["iterations"]
            print("iterations: host %d, cuda %d" % (ih, ic))
            if (ih != ic) if a.same_iters else (abs(ih - ic) > 0.1 * ih + 2):
                fails.append("iterations host %d vs cuda %d" % (ih, ic))
            for k in ["nnz_M", "AM_I_frobenius", "rank_deficient_columns"]:
                h, c = res["host"][0][k], res["cuda"][0][k]
                print("%s: host %r, cuda %r" % (k, h, c))
                if abs(h - c) > 1e-8 * max(abs(h), 1):
                    fails.append("%s host %r vs cuda %r" % (k, h, c))
    elif a.mode == "solver-backends":
        res = {}
        for be in ["host", "cuda"]:
            rc, out, rec, wd = run(a, a.ranks[0], ["run.backend=" + be], be)
            if rc != 0 or not rec or not re.search(r"^PASSED: BiCGSTAB", out, re.M):
                fails.append("backend %s exited %d without a converged BiCGSTAB" % (be, rc))
                continue
            m = rec["metrics"]
            res[be] = m
            print("%s: %d iterations, true relative residual %r, relres %r, %.2f us per iteration"
                  % (be, m["iterations"], m["true_relres"], m["relres"], m.get("iter_us", 0)))
            # exit 0 and PASSED mean the true residual check passed; the record says so too
            if m.get("verdict") != "converged":
                fails.append("backend %s: verdict %r (true residual %r)"
                             % (be, m.get("verdict"), m["true_relres"]))
        if not fails:
            ih, ic = res["host"]["iterations"], res["cuda"]["iterations"]
            if abs(ih - ic) > 2:
                fails.append("iterations host %d vs cuda %d (more than 2 apart)" % (ih, ic))
    elif a.mode == "repeat":
        res = {}
        for n in [1, 3]:
            rc, out, rec, wd = run(a, a.ranks[0], ["spai.repeat=%d" % n, "output.preconditioner=M.mtx"],
                                   "repeat%d" % n)
            if rc != 0 or not rec or not re.search(r"^PASSED: BiCGSTAB", out, re.M):
                fails.append("repeat %d exited %d without a converged BiCGSTAB" % (n, rc))
                continue
            res[n] = (out, rec["metrics"], os.path.join(wd, "M.mtx"))
        if not fails:
            (o1, m1, p1), (o3, m3, p3) = res[1], res[3]
            num = r"([0-9]+\.[0-9]+)"
            # one run: no repeat line, no warm figures
            if re.search(r"^spai: repeat|\(warm, fastest", o1, re.M):
                fails.append("repeat 1 printed repeat or warm figures")
            if m1.get("repeat") != 1 or any(k in m1 for k in ["setup_warm_s", "iter_us_warm"]):
                fails.append("repeat 1: record has repeat %r or warm metrics" % m1.get("repeat"))
            spai = not [x for x in a.args if x.startswith("solver.precond=") and x != "solver.precond=spai"]
            pat = (r"^spai: repeat 3: " + (r"setup cold %s ms, warm mean %s ms, fastest %s ms; " % (num, num, num)
                                          if spai else "") +
                   r"bicgstab cold %s us/it, warm mean %s us/it, fastest %s us/it \(([0-9]+) iterations in "
                   r"every run\)$" % (num, num, num))
            # on the GPU the SpMV (cuSPARSE CSR_ALG1) does not fix its summation order, so the
            # count may move by a few between runs: "(iterations K1..K2 over the runs)"; M must
            # still be identical (checked below), the counts within 10% + 2 of the single run's
            varied = re.search(r"\(iterations ([0-9]+)\.\.([0-9]+) over the runs\)$", o3, re.M)
            cuda = "run.backend=cuda" in a.args
            if varied and cuda:
                lo, hi = int(varied.group(1)), int(varied.group(2))
                print("iterations varied over the repeats: %d..%d" % (lo, hi))
                if not (lo <= m3.get("iterations", -1) <= hi) or abs(hi - m1.get("iterations", 0)) > 0.1 * hi + 2 \
                        or abs(lo - m1.get("iterations", 0)) > 0.1 * lo + 2:
                    fails.append("iterations %d..%d over the repeats, record %r, single run %r"
                                 % (lo, hi, m3.get("iterations"), m1.get("iterations")))
                m1 = dict(m1, iterations=m3.get("iterations"))
                o3 = o3[:varied.start()] + "(%d iterations in every run)" % m3.get("iterations") + o3[varied.end():]
            lm = re.search(pat, o3, re.M)
            if not lm:
                fails.append("repeat 3: no line matching %r" % pat)
            else:
                print("repeat line: " + lm.group(0))
                g = [float(v) for v in lm.groups()]
                its = int(g[-1])
                if its != m3["iterations"] or its != m1["iterations"]:
                    fails.append("iterations: repeat line %d, record %d, single run %d"
                                 % (its, m3["iterations"], m1["iterations"]))
                if m3.get("repeat") != 3:
                    fails.append("record: repeat %r" % m3.get("repeat"))
                keys = ["iter_us_cold", "iter_us_warm_mean", "iter_us_warm"]
                if spai:
                    keys = ["setup_cold_s", "setup_warm_mean_s", "setup_warm_s"] + keys
                for k, v in zip(keys, g[:-1]):
                    x = m3.get(k)
                    if not isinstance(x, (int, float)) or not x > 0:
                        fails.append("record: %s = %r (want > 0)" % (k, x))
                        continue
                    f = 1e3 if k.endswith("_s") else 1.0
                    if abs(x * f - v) > 0.006 + 1e-6 * v:
                        fails.append("%s: record %r, line %.2f" % (k, x, v))
                for w, mean in [("setup_warm_s", "setup_warm_mean_s"), ("iter_us_warm", "iter_us_warm_mean")]:
                    if w in m3 and m3[w] > m3[mean] * (1 + 1e-12):
                        fails.append("%s %r > %s %r" % (w, m3[w], mean, m3[mean]))
                # the floor line (and the target line) on the fastest warm run
                fl = re.search(r"^bicgstab: %s us per iteration \(warm, fastest of 2\); floor %s us" % (num, num),
                               o3, re.M)
                if not fl or abs(float(fl.group(1)) - m3.get("iter_us_warm", -1)) > 0.006:
                    fails.append("floor line not on the fastest warm run: %r" % (fl and fl.group(0)))
                elif abs(m3["iter_floor_ratio"] - m3["iter_us_warm"] / m3["iter_floor_us"]) > 1e-9 * m3["iter_floor_ratio"]:
                    fails.append("iter_floor_ratio %r is not iter_us_warm / iter_floor_us" % m3["iter_floor_ratio"])
                if spai:
                    tl = re.search(r"^spai: setup %s ms \(warm, fastest of 2\) against the target" % num, o3, re.M)
                    if not tl or abs(float(tl.group(1)) - 1e3 * m3.get("setup_warm_s", -1)) > 0.006:
                        fails.append("target line not on the fastest warm run: %r" % (tl and tl.group(0)))
            # the last run's M and figures are the single run's
            e = compare_m(p1, p3, 0.0)
            if e:
                fails.append("M repeat 1 vs repeat 3: " + e)
            for k in ["nnz_M", "AM_I_frobenius", "iterations", "true_relres"]:
                if m1.get(k) != m3.get(k):
                    fails.append("%s: repeat 1 %r, repeat 3 %r" % (k, m1.get(k), m3.get(k)))
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("PASS")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
