#!/usr/bin/env python3
"""Tests of the device-machine scaling mode: jobs/scaling.sh --launcher mpiexec, jobs/gpu-scaling.sh
and jobs/scaling_summary.py (no Slurm).

test_scaling.py SRC BIN MPIEXEC WORKDIR quick|table [--plots] [--gpus 1,2] [--backend B] [--need-gpus N]

quick (no hybrid run but the stand-in's): scaling.sh --plan prints every run with the estimate of
  its header's model, computed here, and creates nothing; --deadline skips a run whose estimate does
  not fit (exit 1, "skipped" in jobs.txt and the report's notes); a failing run (the stand-in
  tests/report/failing_hybrid.sh, exit 4) is listed and makes scaling.sh exit 1; scaling_summary.py
  on a hand-made study: a target met, one missed with the phase that grew most, a skipped study.
table: gpu-scaling.sh --small at 1 and 2 ranks (the host backend here): every study's records
  (ranks, run.name, the weak sizes size(P) = N P^e), the report's total / speedup / efficiency
  recomputed here from the records' phase times (strong: efficiency = T1 / (P TP); weak: T1 / TP;
  gauss weak: HPL's rate per GPU), the summary's figures equal to the report's, the tar holding
  every report; with --plots the PNGs.  --gpus: the GPU counts (default 1,2); --backend: every
  record's backend must be B (cuda: the GPU tests); --need-gpus N: skip (exit 77) where fewer than
  N GPUs are visible (nvidia-smi -L), else each run's ranks must have driven P distinct devices.
  Exit 0 pass, 1 fail, 77 skipped.
"""
import csv, glob, json, math, os, re, shutil, subprocess, sys, tarfile, time

SRC, BIN, MPIEXEC, WORK, WHAT = sys.argv[1:6]
PLOTS = "--plots" in sys.argv[6:]


def opt(name, default):
    rest = sys.argv[6:]
    return rest[rest.index(name) + 1] if name in rest[:-1] else default


GPUS = tuple(int(p) for p in opt("--gpus", "1,2").split(","))
BACKEND = opt("--backend", "")
NEED = int(opt("--need-gpus", "0"))
SCALING = os.path.join(SRC, "jobs", "scaling.sh")
DRIVER = os.path.join(SRC, "jobs", "gpu-scaling.sh")
SUMMARY = os.path.join(SRC, "jobs", "scaling_summary.py")
failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def close(a, b, rtol=1e-9):
    return a is not None and b is not None and abs(a - b) <= rtol * max(abs(a), abs(b), 1e-300)


def run(cmd, timeout=300):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=SRC, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, universal_newlines=True, timeout=timeout)
    print("$ %s\n  exit %d after %.1f s" % (" ".join(cmd), p.returncode, time.time() - t0))
    return p.returncode, p.stdout


def model(est, startup, w, f, p, p0, n, n0):
    """The estimate of scaling.sh's header, independently."""
    s = min(startup, est)
    return s + (est - s) * (n / n0) ** w * (f + (1 - f) * p0 / p)


def quick():
    # --plan: every run with its estimate, nothing created
    out = os.path.join(WORK, "plan")
    rc, txt = run([SCALING, "gauss", "--launcher", "mpiexec", "--plan", "--gpus", "1,2,4", "--mode", "weak",
                   "--size", "1000", "--est", "40", "--startup", "4", "--serial", "0.25", "--bin", BIN,
                   "--out", out, "--", "run.backend=host"])
    check(rc == 0, "--plan exits 0")
    check(not os.path.exists(out), "--plan creates nothing")
    got = {int(m.group(1)): (float(m.group(2)), m.group(3)) for m in
           re.finditer(r"^plan: gauss weak P=([0-9]+) run 1: est ([0-9.]+) s: (.*)$", txt, re.M)}
    check(sorted(got) == [1, 2, 4], "--plan lists P = 1, 2, 4 (got %s)" % sorted(got))
    total = 0.0
    for p in (1, 2, 4):
        n = int(1000 * math.sqrt(p) + 0.5)
        want = model(40, 4, 3, 0.25, p, 1, n, 1000)
        total += want
        e, line = got.get(p, (None, ""))
        check(e is not None and abs(e - want) <= 0.05 + 1e-9,
              "P=%d: est %s s, the model gives %.2f (n = %d, work n^3)" % (p, e, want, n))
        check(re.search(r"-n %d .*gauss\.n=%d .*run\.backend=host output\.dir=%s/records/%d$" % (
            p, n, re.escape(out), p), line) is not None, "P=%d: the mpiexec line: %s" % (p, line))
    m = re.search(r"^plan: gauss weak: 3 run\(s\), est total ([0-9.]+) s$", txt, re.M)
    check(m is not None and abs(float(m.group(1)) - total) <= 0.15, "--plan total %s s vs %.2f" % (
        m and m.group(1), total))

    # the driver's --plan: each study's estimate, packed into calls of --budget - 20 s, nothing run
    out = os.path.join(WORK, "driver-plan")
    rc, txt = run([DRIVER, "--small", "--plan", "--budget", "30", "--bin", BIN, "--out", out])
    check(rc == 0 and not os.path.exists(out), "gpu-scaling.sh --plan exits 0 and creates nothing")
    est = {m.group(1): float(m.group(2)) for m in re.finditer(r"^plan: study (\S+): est ([0-9.]+) s", txt, re.M)}
    calls = [(m.group(1).split("|"), float(m.group(2))) for m in
             re.finditer(r"^plan: call [0-9]+: --only '\^\((\S+)\)\$' \(est ([0-9]+) s\)$", txt, re.M)]
    packed = [n for c, _ in calls for n in c]
    check(len(est) == 8 and sorted(packed) == sorted(est), "every study in exactly one call: %s" % calls)
    check(all(len(c) == 1 or sum(est[n] for n in c) <= 10 + 1e-9 for c, _ in calls) and len(calls) > 1,
          "each call's studies fit into --budget 30 - 20 s (%s)" % [(c, sum(est.get(n, 0) for n in c)) for c, _ in calls])
    m = re.search(r"^plan: issue 22, GPUs 1,2: est total ([0-9.]+) s", txt, re.M)
    check(m is not None and abs(float(m.group(1)) - sum(est.values())) <= 0.05, "the plan's total is the studies' sum")

    # issue 23's paper step alone (--only '^$' --paper): jobs/paper-tables.sh 001 --full --ranks "1 2 4 8"
    # run, its failure (the stand-in is no build folder) in the exit code and in the summary
    out = os.path.join(WORK, "paper")
    shutil.rmtree(out, ignore_errors=True)
    rc, txt = run([DRIVER, "--small", "--only", "^$", "--paper", "--bin",
                   os.path.join(SRC, "tests", "report", "failing_hybrid.sh"), "--out", out, "--tar", out + ".tgz"])
    log = open(os.path.join(out, "paper-001.log")).read() if os.path.exists(os.path.join(out, "paper-001.log")) else ""
    check(rc == 1, "the paper step failing: exit 1 (got %d)" % rc)
    check(re.search(r"spai-tables\.sh --full .*--ranks 1 2 4 8 --out %s/paper-001" % re.escape(out), log) is not None,
          "paper-tables.sh 001 --full --ranks '1 2 4 8' into DIR/paper-001")
    check(re.search(r"^- paper-001: jobs/paper-tables\.sh 001 --full: rc=1 ", txt, re.M) is not None,
          "the summary lists the failed paper step")

    # --deadline: a run whose estimate does not fit is skipped, and the command fails
    out = os.path.join(WORK, "deadline")
    shutil.rmtree(out, ignore_errors=True)
    rc, txt = run([SCALING, "gauss", "--launcher", "mpiexec", "--gpus", "1", "--mode", "strong",
                   "--size", "64", "--est", "100", "--deadline", str(int(time.time()) + 30), "--bin", BIN,
                   "--mpiexec", MPIEXEC, "--out", out, "--", "run.backend=host"])
    check(rc == 1, "--deadline with a run that cannot fit: exit 1 (got %d)" % rc)
    jobs = open(os.path.join(out, "jobs.txt")).read() if os.path.exists(os.path.join(out, "jobs.txt")) else ""
    check(re.search(r"^1 1 skipped ", jobs, re.M) is not None, "jobs.txt says skipped: %r" % jobs)
    check(not glob.glob(os.path.join(out, "records", "*", "*.json")), "the skipped run wrote no record")
    check("run 1: skipped (est 100.0 s, " in txt, "the skip is said with its estimate")
    md = open(os.path.join(out, "report.md")).read() if os.path.exists(os.path.join(out, "report.md")) else ""
    check("- 1 GPU(s), run 1: skipped: est 100.0 s" in md, "report.md lists the skipped run")

    # a failing run: listed, exit 1, its exit code in jobs.txt and in the report's notes
    out = os.path.join(WORK, "failed")
    shutil.rmtree(out, ignore_errors=True)
    stand_in = os.path.join(SRC, "tests", "report", "failing_hybrid.sh")
    rc, txt = run([SCALING, "gauss", "--launcher", "mpiexec", "--gpus", "1,2", "--mode", "strong",
                   "--size", "64", "--bin", stand_in, "--mpiexec", MPIEXEC, "--run-timeout", "60",
                   "--out", out, "--", "run.backend=host"])
    check(rc == 1, "failing runs: scaling.sh exits 1 (got %d)" % rc)
    jobs = open(os.path.join(out, "jobs.txt")).read() if os.path.exists(os.path.join(out, "jobs.txt")) else ""
    check(re.search(r"^1 1 4 [0-9.]+ 64$", jobs, re.M) and re.search(r"^2 1 4 [0-9.]+ 64$", jobs, re.M),
          "jobs.txt holds exit 4 of both runs: %r" % jobs)
    check(re.search(r"scaling: 2 GPU\(s\), run 1: exit 4, ", txt) is not None, "the failed run is said")

    # the summary: a met and a missed target (the phase that grew most named), a skipped study
    d = os.path.join(WORK, "summary")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "st"))
    with open(os.path.join(d, "studies.txt"), "w") as f:
        f.write("st gauss strong rc=0 speedup@2>=1.5,efficiency@4>=0.8,efficiency@8>=0.7\n"
                "sk spai strong skipped speedup@2>=1.8 est=99\n")
    rows = [(1, {"a": 6.0, "b": 2.0}), (2, {"a": 3.0, "b": 1.5}), (4, {"a": 1.5, "b": 2.5})]
    with open(os.path.join(d, "st", "report.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "name", "mode", "gpus", "nodes", "backend", "status", "phase_a_s", "phase_b_s",
                    "total_s", "wall_s", "speedup", "efficiency", "runs", "passed", "record", "petsc"])
        for p, ph in rows:
            t = ph["a"] + ph["b"]
            w.writerow(["gauss", "x", "strong", p, 1, "host", "passed", ph["a"], ph["b"], t, t + 0.1,
                        8.0 / t, 8.0 / t / p, 1, 1, "", "-"])
    rc, txt = run([sys.executable, SUMMARY, d])
    check(rc == 0, "scaling_summary.py exits 0")
    check(re.search(r"^\| st \| 2 \|.*\| 1\.778 \| 0\.889 \|.*speedup 1\.78 >= 1\.5: met \|$", txt, re.M) is not None,
          "P=2: speedup 8/4.5 = 1.778 met")
    check(re.search(r"^\| st \| 4 \|.*\| 2\.000 \| 0\.500 \|.*efficiency 0\.5 >= 0\.8: MISSED \|$", txt, re.M) is not None,
          "P=4: efficiency 8/4/4 = 0.5 missed")
    check(re.search(r"^- st at 4 GPUs: efficiency 0\.5 < 0\.8: phase b: 2\.5 s at 4 vs ideal 0\.5 s \(\+2 s\)$",
                    txt, re.M) is not None, "the missed target names phase b (2.5 s vs ideal 2.0 * 1 / 4)")
    check(re.search(r"^\| sk \|.*skipped \(budget\) \|$", txt, re.M) is not None, "the skipped study has its row")
    check(re.search(r"^- st at 8 GPUs: efficiency >= 0\.7 not measured \(no passed run at 8 GPUs; rc=0\)$", txt, re.M)
          is not None, "a target at a GPU count without a run is said not measured")


def study_numbers(d, wl, mode, gpus):
    """(total, speedup, efficiency) per P from the records alone, as report.py defines them."""
    tot, n = {}, {}
    for p in gpus:
        recs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "records", str(p), "*.json")))]
        check(len(recs) >= 1, "%s %s: a record at P=%d" % (wl, mode, p))
        if not recs:
            continue
        check(all(r["ranks"] == p for r in recs), "%s %s P=%d: the records' ranks = %d" % (wl, mode, p, p))
        check(all(r["status"] == "passed" for r in recs), "%s %s P=%d: passed" % (wl, mode, p))
        check(all(r["config"]["run"]["name"] == "%s-%s-scaling" % (wl, mode) for r in recs),
              "%s %s P=%d: run.name" % (wl, mode, p))
        if BACKEND:
            check(all(r["backend"] == BACKEND for r in recs), "%s %s P=%d: backend %s (%s)" % (
                wl, mode, p, BACKEND, [r["backend"] for r in recs]))
        best = min(recs, key=lambda r: sum(float(v["max"]) for v in r["phases"].values()))
        tot[p] = sum(float(v["max"]) for v in best["phases"].values())
        n[p] = best["config"].get(wl, {})
    out = {}
    p0 = min(tot) if tot else None
    for p in tot:
        t0, t = tot[p0], tot[p]
        if mode == "strong":
            out[p] = (t, t0 / t, t0 / (p / p0 * t))
        elif wl == "gauss":
            rate = lambda q: (2.0 / 3 * float(n[q]["n"]) ** 3 + 1.5 * float(n[q]["n"]) ** 2) / tot[q] / q
            out[p] = (t, rate(p) / rate(p0) * p / p0, rate(p) / rate(p0))
        else:
            out[p] = (t, t0 / t * p / p0, t0 / t)
    return out, n


def table():
    out = os.path.join(WORK, "table")
    shutil.rmtree(out, ignore_errors=True)
    tar = out + ".tar.gz"
    before = set(os.listdir(SRC))
    rc, txt = run([DRIVER, "--small", "--gpus", ",".join(map(str, GPUS)), "--bin", BIN, "--mpiexec", MPIEXEC, "--out", out,
                   "--tar", tar], timeout=600)
    check(rc == 0, "gpu-scaling.sh --small exits 0 (got %d)" % rc)
    studies = [ln.split() for ln in open(os.path.join(out, "studies.txt"))] if os.path.exists(
        os.path.join(out, "studies.txt")) else []
    names = [s[0] for s in studies]
    check(names == ["gauss-strong", "gauss-weak", "spai-strong", "lle-strong", "lle-weak", "gemm-strong",
                    "sort-strong", "conv-strong"], "the table's studies: %s" % names)
    summ = {}
    if os.path.exists(os.path.join(out, "summary.csv")):
        for r in csv.DictReader(open(os.path.join(out, "summary.csv"))):
            summ[(r["study"], r["gpus"])] = r
    weak_size = {"gauss": lambda p: int(256 * math.sqrt(p) + 0.5), "lle": lambda p: 2000 * p}
    for name, wl, mode, state in (s[:4] for s in studies):
        d = os.path.join(out, name)
        check(state == "rc=0", "%s: scaling.sh exit 0 (%s)" % (name, state))
        want, cfg = study_numbers(d, wl, mode, GPUS)
        rows = {int(r["gpus"]): r for r in csv.DictReader(open(os.path.join(d, "report.csv")))} if \
            os.path.exists(os.path.join(d, "report.csv")) else {}
        for p in GPUS:
            r = rows.get(p)
            check(r is not None, "%s: report.csv row P=%d" % (name, p))
            if r is None or p not in want:
                continue
            t, sp, ef = want[p]
            check(close(float(r["total_s"]), t), "%s P=%d: total %s = the records' %.9g" % (name, p, r["total_s"], t))
            check(close(float(r["speedup"]), sp), "%s P=%d: speedup %s = %.9g" % (name, p, r["speedup"], sp))
            check(close(float(r["efficiency"]), ef), "%s P=%d: efficiency %s = %.9g%s" % (
                name, p, r["efficiency"], ef, " (T1 / (P TP))" if mode == "strong" else ""))
            s = summ.get((name, str(p)))
            check(s is not None and close(float(s["efficiency"]), ef) and close(float(s["speedup"]), sp),
                  "%s P=%d: the summary's speedup / efficiency are the report's" % (name, p))
            if NEED:
                check(s is not None and s["devices"] == str(p), "%s P=%d: the ranks drove %s distinct device(s)" % (
                    name, p, s and s["devices"]))
            if mode == "weak":
                key = "n"
                check(int(cfg[p][key]) == weak_size[wl](p), "%s P=%d: %s.%s = %s, size(P) = %d" % (
                    name, p, wl, key, cfg[p][key], weak_size[wl](p)))
        check(os.path.getsize(os.path.join(d, "report.md")) > 0 if os.path.exists(os.path.join(d, "report.md"))
              else False, "%s: report.md" % name)
        if PLOTS:
            for f in ("report-time.png", "report-efficiency.png"):
                fp = os.path.join(d, f)
                check(os.path.exists(fp) and open(fp, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "%s: %s" % (name, f))
    try:
        members = set(tarfile.open(tar).getnames())
    except (OSError, tarfile.TarError) as e:
        members = set()
        check(False, "the tar %s: %s" % (tar, e))
    base = os.path.basename(out)
    check(all("%s/%s/report.md" % (base, n) in members for n in names) and "%s/summary.md" % base in members,
          "the tar holds every study's report.md and summary.md")
    check(re.search(r"^gpu-scaling: [0-9]+ s; summary ", txt, re.M) is not None, "the driver's last line")
    check(re.search(r"^gpu-scaling: gauss-weak: est [0-9]+ s \(table [0-9.]+ s; [0-9]+ s left\)$", txt, re.M) is not None,
          "the driver's study line: the table's estimate scaled by the studies done")
    vers = {json.load(open(f))["version"] for f in glob.glob(os.path.join(out, "*", "records", "*", "*.json"))}
    md = open(os.path.join(out, "summary.md")).read() if os.path.exists(os.path.join(out, "summary.md")) else ""
    check(len(vers) == 1 and ("Build: %s; devices: " % vers.pop()) in md, "the summary names the build of the records")
    new = sorted(set(os.listdir(SRC)) - before)
    check(not new, "nothing written into the source folder (the runs' cwd): %s" % new)


if NEED:
    try:
        seen = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    except OSError:
        seen = ""
    if sum(ln.startswith("GPU") for ln in seen.splitlines()) < NEED:
        print("SKIP: fewer than %d GPUs visible (nvidia-smi -L)" % NEED)
        sys.exit(77)
os.makedirs(WORK, exist_ok=True)
quick() if WHAT == "quick" else table()
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
