#!/usr/bin/env python3
"""Check an HPL.dat-style gauss sweep (gauss.n / gauss.nb / gauss.grid lists).

sweep_check.py --mpiexec=M --npflag=-n --ranks R --bin HYBRID --workdir DIR
    --n "97,130" --nb "16,32" --grid "1x1" [--exit 0] [--single I] [--gflops-tol 2e-3]
    -- COMMON-ARGS

Runs `M -n R HYBRID COMMON-ARGS gauss.n=.. gauss.nb=.. gauss.grid=.. output.dir=DIR` and checks:
  - the exit code is --exit;
  - the summary after "sweep: K combination(s)" holds one HPL line per combination, in HPL's
    order (grid outermost, then n, then nb), each N NB P Q as asked (auto grids: P * Q = R),
    Gflops = (2/3 N^3 + 3/2 N^2) / Time / 1e9 (to the printed digits), followed by its
    residual line: PASSED exactly when the parsed residual is < 16;
  - each combination's own block printed the same line and residual before the summary;
  - HPL's closing count (Finished K tests, P passed, F failed) matches the lines;
  - the JSON record's "sweep" list holds the same lines (every field parsed and compared),
    sweep_tests / sweep_passed / sweep_failed, the validation's value is the worst residual
    and passed only when every line passed, and the single-run fields (gflops, n) are absent;
  - with --single I: combination I (0-based) run alone (the scalar keys) prints the same
    scaled residual and HPL line N NB P Q, and its record has the old single-run fields:
    a combination in a sweep solves exactly as it does alone.
Exit 0 pass, 1 fail.
"""
import argparse, glob, json, os, re, shutil, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gauss_driver import run, split_argv  # noqa: E402

LINE = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+e[+-]\d+)\s*$", re.M)
RES = re.compile(r"^\|\|Ax-b\|\|_oo/\(eps\*\(\|\|A\|\|_oo\*\|\|x\|\|_oo\+\|\|b\|\|_oo\)\*N\) = "
                 r"(\S+) \.\.\.\.\.\. (PASSED|FAILED)$", re.M)


def grids(spec, ranks):
    out = []
    for g in spec.split(","):
        g = g.strip().lower()
        out.append(None if g == "auto" else tuple(int(t) for t in g.split("x")))
    return out


def record(d):
    files = sorted(glob.glob(os.path.join(d, "*.json")))
    if len(files) != 1:
        raise RuntimeError("%s: %d records, want 1" % (d, len(files)))
    with open(files[0]) as f:
        return json.load(f)


def pairs(text):
    """Every HPL line with the residual line that follows it (the first after the line)."""
    out = []
    for m in LINE.finditer(text):
        r = RES.search(text, m.end())
        out.append((m, r))
    return out


def check_line(fails, what, m, r, want, ranks, thr):
    tv, n, nb, P, Q, t, gf = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), \
        int(m.group(5)), float(m.group(6)), float(m.group(7))
    wn, wnb, wg = want
    if n != wn or (wnb and nb != wnb) or (wg and (P, Q) != wg) or P * Q != ranks:
        fails.append("%s: N NB P Q = %d %d %d %d, want %d %s %s (P * Q = %d)" % (
            what, n, nb, P, Q, wn, wnb or "auto", "%dx%d" % wg if wg else "auto", ranks))
    flops = 2.0 / 3.0 * n ** 3 + 1.5 * n ** 2
    # Time has 6 decimals: the rate from the printed time agrees to its rounding
    lo, hi = flops / (t + 5e-7) / 1e9, flops / max(t - 5e-7, 1e-12) / 1e9
    if not (lo * (1 - 1e-4) <= gf <= hi * (1 + 1e-4)):
        fails.append("%s: Gflops %.4e is not (2/3 N^3 + 3/2 N^2) / %.6f s / 1e9 (%.4e .. %.4e)" % (
            what, gf, t, lo, hi))
    if r is None:
        fails.append("%s: no residual line after it" % what)
        return None
    s = float(r.group(1))
    if (s < thr) != (r.group(2) == "PASSED"):
        fails.append("%s: residual %g printed %s (threshold %g)" % (what, s, r.group(2), thr))
    return dict(tv=tv, n=n, nb=nb, P=P, Q=Q, t=t, gf=gf, scaled=s, ok=r.group(2) == "PASSED")


def main():
    argv, common = split_argv(sys.argv[1:])
    ap = argparse.ArgumentParser()
    for o in ("--mpiexec", "--npflag", "--bin", "--workdir", "--n", "--nb", "--grid"):
        ap.add_argument(o, required=True)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--single", type=int, default=-1)
    ap.add_argument("--threshold", type=float, default=16.0)
    a = ap.parse_args(argv)
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    ns = [int(v) for v in a.n.split(",")]
    nbs = [int(v) for v in a.nb.split(",")]
    gs = grids(a.grid, a.ranks)
    want = [(n, nb, g) for g in gs for n in ns for nb in nbs]
    fails = []
    d = os.path.join(a.workdir, "sweep")
    cmd = [a.mpiexec, a.npflag, str(a.ranks), a.bin] + common + [
        "gauss.n=" + a.n, "gauss.nb=" + a.nb, "gauss.grid=" + a.grid, "output.dir=" + d]
    rc, out = run(cmd, a.workdir)
    if rc != a.exit:
        fails.append("sweep exit %d, want %d" % (rc, a.exit))
    k = out.find("sweep: %d combination(s)" % len(want))
    if k < 0:
        fails.append("no 'sweep: %d combination(s)' summary" % len(want))
        k = len(out)
    head, summary = out[:k], out[k:]
    got = []
    sp = pairs(summary)
    if len(sp) != len(want):
        fails.append("summary holds %d HPL lines, want %d" % (len(sp), len(want)))
    for i, (m, r) in enumerate(sp[:len(want)]):
        got.append(check_line(fails, "summary line %d" % (i + 1), m, r, want[i], a.ranks, a.threshold))
    hp = pairs(head)
    if len(hp) != len(want):
        fails.append("the combinations' own blocks hold %d HPL lines, want %d" % (len(hp), len(want)))
    for i, (m, r) in enumerate(hp[:len(want)]):
        own = check_line(fails, "combination %d's own line" % (i + 1), m, r, want[i], a.ranks, a.threshold)
        if own and i < len(got) and got[i] and own != got[i]:
            fails.append("combination %d: own line %s differs from the summary's %s" % (i + 1, own, got[i]))
    npass = sum(1 for g in got if g and g["ok"])
    fin = re.search(r"^Finished +(\d+) tests with the following results:\n +(\d+) tests completed and "
                    r"passed residual checks,\n +(\d+) tests completed and failed residual checks,", summary, re.M)
    if not fin or [int(fin.group(i)) for i in (1, 2, 3)] != [len(got), npass, len(got) - npass]:
        fails.append("closing count %s, want %d tests, %d passed, %d failed" % (
            fin.groups() if fin else None, len(got), npass, len(got) - npass))
    try:
        rec = record(d)
        met = rec["metrics"]
        rs = met.get("sweep", [])
        if len(rs) != len(got):
            fails.append("record: %d sweep entries, want %d" % (len(rs), len(got)))
        for i, (e, g) in enumerate(zip(rs, got)):
            if not g:
                continue
            same = (e["tv"] == g["tv"] and e["n"] == g["n"] and e["nb"] == g["nb"] and e["P"] == g["P"]
                    and e["Q"] == g["Q"] and abs(e["time_seconds"] - g["t"]) <= 6e-7
                    and abs(e["gflops"] - g["gf"]) <= 1e-4 * g["gf"] + 1e-9
                    and abs(e["scaled_residual"] - g["scaled"]) <= 1e-6 * max(1.0, g["scaled"])
                    and e["passed"] == g["ok"] and 0 < e["factor_seconds"] <= e["time_seconds"])
            if not same:
                fails.append("record sweep[%d] = %s does not match the printed line %s" % (i, e, g))
        if [met.get("sweep_tests"), met.get("sweep_passed"), met.get("sweep_failed")] != \
                [len(got), npass, len(got) - npass]:
            fails.append("record counts %s" % [met.get(x) for x in ("sweep_tests", "sweep_passed", "sweep_failed")])
        worst = max([g["scaled"] for g in got if g] or [0])
        v = rec.get("validation") or {}
        if v.get("passed") != (npass == len(want)) or not v.get("value") or \
                abs(v["value"] - worst) > 1e-6 * max(1.0, worst):
            fails.append("record validation %s, want the worst residual %g, passed %s" % (
                v, worst, npass == len(want)))
        if "gflops" in met or "n" in met:
            fails.append("record of a sweep has single-run fields: %s" % sorted(met))
        if rec.get("exit_code") != a.exit:
            fails.append("record exit_code %s, want %d" % (rec.get("exit_code"), a.exit))
    except (RuntimeError, KeyError, ValueError, TypeError) as e:
        fails.append("record: %r" % (e,))
    if 0 <= a.single < len(want) and a.single < len(got) and got[a.single]:
        n, nb, g = want[a.single]
        d1 = os.path.join(a.workdir, "single")
        cmd = [a.mpiexec, a.npflag, str(a.ranks), a.bin] + common + [
            "gauss.n=%d" % n, "gauss.nb=%d" % nb, "gauss.grid=" + ("%dx%d" % g if g else "auto"),
            "output.dir=" + d1]
        rc1, out1 = run(cmd, a.workdir)
        p1 = pairs(out1)
        if len(p1) != 1 or "sweep:" in out1:
            fails.append("the single run printed %d HPL lines (or a sweep)" % len(p1))
        else:
            one = check_line(fails, "single run", p1[0][0], p1[0][1], want[a.single], a.ranks, a.threshold)
            s = got[a.single]
            if one and (one["scaled"], one["n"], one["nb"], one["P"], one["Q"], one["tv"]) != \
                    (s["scaled"], s["n"], s["nb"], s["P"], s["Q"], s["tv"]):
                fails.append("combination %d alone: %s; in the sweep: %s" % (a.single + 1, one, s))
            try:
                met1 = record(d1)["metrics"]
                if met1.get("n") != n or "gflops" not in met1 or "sweep" in met1:
                    fails.append("single run's record lacks the single-run fields: %s" % sorted(met1))
            except (RuntimeError, KeyError, ValueError) as e:
                fails.append("single record: %r" % (e,))
    for f in fails:
        print("FAIL: " + f)
    print("sweep_check: %d line(s), %s" % (len(got), "FAIL" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
