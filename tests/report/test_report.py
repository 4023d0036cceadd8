#!/usr/bin/env python3
"""Unit tests of jobs/report.py on synthetic records (no Slurm, no MPI).

test_report.py REPORT_PY WORKDIR [--plots]

Writes records whose phase times are drawn from a seeded generator, runs report.py as a user
would, and checks its tables against the definitions (strong: speedup = T(P0)/T(P),
efficiency = speedup * P0/P; weak: efficiency = T(P0)/T(P)) computed here from the same records:
the best passed run per GPU count, failed runs listed but not used, unreadable files skipped with
a warning, the mode taken from run.name or from the varying size, groups kept apart, exit codes.
With --plots also the two PNGs per group.  Exit 0 pass, 1 fail.
"""
import csv, json, os, random, shutil, subprocess, sys

REPORT, WORK = sys.argv[1], sys.argv[2]
PLOTS = "--plots" in sys.argv[3:]
rng = random.Random(20261130)
failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def record(d, fname, workload, ranks, phases, status="passed", name="", size=None, key="n"):
    cfg = {"run": {"workload": workload, "name": name, "exit_file": os.path.join(d, fname + ".exit")},  # per job, as the job scripts set it
           "output": {"dir": d}}
    cfg[workload] = {key: str(size if size is not None else 1000), "tol": "1e-8"}
    r = {"workload": workload, "status": status, "exit_code": 0 if status == "passed" else 4,
         "version": "test", "mpi_library": "test", "ranks": ranks, "nodes": 1, "backend": "host",
         "devices": [], "config": cfg,
         "phases": {k: {"min": v * 0.9, "avg": v * 0.95, "max": v} for k, v in phases.items()},
         "metrics": {}, "validation": {}, "verdict": "", "error": None,
         "wall_seconds": sum(phases.values()) + 0.01}
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, fname), "w") as f:
        json.dump(r, f)
    return r


def run(*args):
    p = subprocess.run([sys.executable, REPORT] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def rows(prefix):
    with open(prefix + ".csv") as f:
        return list(csv.DictReader(f))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# ---- strong scaling: two passed runs at P=2 (the faster counts), one failed run at P=4
d = os.path.join(WORK, "strong")
times = {}
for p in (1, 2, 4, 8):
    ph = {"setup": rng.uniform(0.1, 0.2) / p, "solve": rng.uniform(1.0, 2.0) / p ** 0.8}
    record(os.path.join(d, "job%d" % p), "r.json", "spai", p, ph, name="spai-strong-scaling")
    times[p] = sum(ph.values())
slow = {"setup": 5.0, "solve": 5.0}
record(os.path.join(d, "job2b"), "r.json", "spai", 2, slow, name="spai-strong-scaling")
record(os.path.join(d, "job4b"), "r.json", "spai", 4, {"setup": 0.001, "solve": 0.001},
       status="failed", name="spai-strong-scaling")
with open(os.path.join(d, "junk.json"), "w") as f:
    f.write("{not json")
with open(os.path.join(d, "other.json"), "w") as f:
    json.dump({"hello": 1}, f)
# an HPL.dat-style gauss sweep (several runs in one record): not a study point
sw = record(os.path.join(d, "sweep"), "s.json", "gauss", 1, {"factor": 1.0})
sw["config"]["gauss"]["n"] = [1000, 2000]
sw["metrics"]["sweep"] = [{"n": 1000, "nb": 64}, {"n": 2000, "nb": 64}]
with open(os.path.join(d, "sweep", "s.json"), "w") as f:
    json.dump(sw, f)
rc, out, err = run(d, "--out", os.path.join(WORK, "strong-report"), "--no-plots")
check(rc == 0, "strong: report.py exits 0 (got %d: %s)" % (rc, err))
check("junk.json: not readable JSON" in err and "other.json: not a hybrid record" in err,
      "strong: unreadable and foreign JSON files are skipped with a warning")
check("s.json: a gauss sweep record (2 combinations" in err, "strong: a gauss sweep record is skipped with a warning")
rs = rows(os.path.join(WORK, "strong-report"))
check([int(r["gpus"]) for r in rs] == [1, 2, 4, 8], "strong: one row per GPU count")
for r in rs:
    p = int(r["gpus"])
    t = times[p]
    sp, ef = times[1] / t, times[1] / t / p
    check(abs(float(r["total_s"]) - t) < 1e-12 * t, "strong P=%d: total = sum of phase maxima" % p)
    check(abs(float(r["speedup"]) - sp) < 1e-9 * sp and abs(float(r["efficiency"]) - ef) < 1e-9 * ef,
          "strong P=%d: speedup %.4f, efficiency %.4f" % (p, sp, ef))
    check(r["mode"] == "strong", "strong P=%d: mode from run.name" % p)
r2 = [r for r in rs if r["gpus"] == "2"][0]
check(r2["runs"] == "2" and r2["passed"] == "2", "strong: P=2 counts both runs, uses the faster")
r4 = [r for r in rs if r["gpus"] == "4"][0]
check(r4["runs"] == "2" and r4["passed"] == "1",
      "strong: the failed run at P=4 is counted but not used")
md = open(os.path.join(WORK, "strong-report.md")).read()
check("Runs that did not pass" in md and "4 rank(s): failed" in md, "strong: markdown lists the failed run")
check(md.count("\n| ") == 5, "strong: markdown table has a header and 4 rows")

# ---- weak scaling without a name: mode from the varying size; two workloads -> two groups
d = os.path.join(WORK, "weak")
wt = {}
for p in (1, 2, 4):
    ph = {"knn": rng.uniform(0.5, 1.0) * (1 + 0.1 * p), "eig": rng.uniform(0.2, 0.3)}
    record(d, "lle-%d.json" % p, "lle", p, ph, size=2000 * p)
    wt[p] = sum(ph.values())
    record(d, "gauss-%d.json" % p, "gauss", p, {"factor": 1.0 / p}, size=4096)
rc, out, err = run(d, "--no-plots")
check(rc == 0, "weak: exits 0")
rs = rows(os.path.join(d, "report"))
lle = [r for r in rs if r["workload"] == "lle"]
gs = [r for r in rs if r["workload"] == "gauss"]
check(len(lle) == 3 and len(gs) == 3, "weak: two groups (lle, gauss), 3 rows each")
check(all(r["mode"] == "weak" for r in lle) and all(r["mode"] == "strong" for r in gs),
      "auto mode: lle weak (lle.n varies), gauss strong (same config)")
for r in lle:
    p = int(r["gpus"])
    ef = wt[1] / wt[p]
    check(abs(float(r["efficiency"]) - ef) < 1e-9 * ef and
          abs(float(r["speedup"]) - ef * p) < 1e-9 * ef * p,
          "weak P=%d: efficiency %.4f, scaled speedup %.4f" % (p, ef, ef * p))
    check(r["lle.n"] == str(2000 * p), "weak P=%d: the varying key lle.n is a column" % p)
rc, out, err = run(d, "--workload", "gauss", "--mode", "weak", "--out", os.path.join(WORK, "g"),
                   "--no-plots")
rs = rows(os.path.join(WORK, "g"))
# gauss weak is judged by the rate per GPU (HPL): n fixed, T = 1/P -> the same rate per GPU
check(rc == 0 and len(rs) == 3 and all(r["mode"] == "weak" for r in rs) and
      abs(float(rs[2]["efficiency"]) - 1.0) < 1e-9, "--workload filters, --mode forces weak (gauss: Gflops per GPU)")

# ---- gauss weak scaling (n = n0 sqrt(P)): efficiency = Gflops per GPU / Gflops per GPU at P0
dd = os.path.join(WORK, "gweak")
gt = {}
for p in (1, 4, 16):
    n = 4096 * int(round(p ** 0.5))
    gt[p] = (n, rng.uniform(1.0, 3.0) * p ** 0.5)
    record(dd, "g%d.json" % p, "gauss", p, {"factor": gt[p][1] * 0.9, "solve": gt[p][1] * 0.1},
           name="gauss-weak-scaling", size=n)
rc, out, err = run(dd, "--out", os.path.join(WORK, "gw"), "--no-plots")
rs = rows(os.path.join(WORK, "gw"))
rate = {p: (2.0 / 3.0 * n ** 3 + 1.5 * n ** 2) / t / p for p, (n, t) in gt.items()}
check(rc == 0 and [int(r["gpus"]) for r in rs] == [1, 4, 16], "gauss weak: 3 rows (exit %d: %s)" % (rc, err))
for r in rs:
    p = int(r["gpus"])
    want = rate[p] / rate[1]
    check(abs(float(r["efficiency"]) - want) < 1e-9 * want,
          "gauss weak P=%d: efficiency %s = rate per GPU ratio %.6g (time ratio would be %.6g)" % (
              p, r["efficiency"], want, gt[1][1] / gt[p][1]))
md = open(os.path.join(WORK, "gw.md")).read()
check("| ranks |" in md and "Gflops/rank" in md, "host backend: the table says ranks, with a Gflops column")

# ---- differing configurations are not one study: refused, or with --force one group each
dd = os.path.join(WORK, "mixed")
for i, mat in enumerate(("a.mtx", "b.mtx", "c.mtx")):
    for p in (1, 2):
        r = record(dd, "s%d-%d.json" % (i, p), "spai", p, {"solve": 1.0 / p})
        r["config"]["matrix"] = {"file": mat, "size": 1000}
        with open(os.path.join(dd, "s%d-%d.json" % (i, p)), "w") as f:
            json.dump(r, f)
rc, out, err = run(dd, "--out", os.path.join(WORK, "mx"), "--no-plots")
check(rc == 1 and "6 records of workload spai have 3 different configurations (differing in matrix.file"
      in err and not os.path.exists(os.path.join(WORK, "mx.csv")),
      "differing configurations: refused with exit 1 naming the key (exit %d: %s)" % (rc, err.strip()[-300:]))
rc, out, err = run(dd, "--out", os.path.join(WORK, "mxf"), "--no-plots", "--force")
rs = rows(os.path.join(WORK, "mxf"))
check(rc == 0 and "warning: 6 records of workload spai" in err and len(rs) == 6 and
      len({r["name"] for r in rs}) == 3 and all(abs(float(r["efficiency"]) - 1.0) < 1e-9 for r in rs),
      "--force: a warning, 3 groups of 2 rows, each its own baseline")
# the size key alone varying is one study (weak)
dd = os.path.join(WORK, "sized")
for p in (1, 2):
    r = record(dd, "z%d.json" % p, "spai", p, {"solve": 1.0})
    r["config"]["matrix"] = {"file": "", "size": 1000 * p}
    with open(os.path.join(dd, "z%d.json" % p), "w") as f:
        json.dump(r, f)
rc, out, err = run(dd, "--out", os.path.join(WORK, "sz"), "--no-plots")
rs = rows(os.path.join(WORK, "sz"))
check(rc == 0 and len(rs) == 2 and all(r["mode"] == "weak" for r in rs), "only the size key varies: one weak study")

# ---- validation.petsc (HYBRID_VALIDATE=1 jobs, jobs/validate_job.py): a column; a run whose
# PETSc validation failed has not passed (not used, listed with the validator's verdict)
dd = os.path.join(WORK, "petsc")
def petsc(rec, fname, status, verdict):
    rec["validation"]["petsc"] = {"status": status, "exit_code": {"passed": 0, "failed": 4}.get(status),
                                  "command": ["hybrid-validate", "spai"], "verdict": verdict}
    with open(os.path.join(dd, fname), "w") as f:
        json.dump(rec, f)
petsc(record(dd, "v1.json", "spai", 1, {"solve": 4.0}, name="spai-strong-scaling"), "v1.json",
      "passed", "PASSED: petsc spai: ||AM - I|| agrees")
petsc(record(dd, "v2a.json", "spai", 2, {"solve": 1.0}, name="spai-strong-scaling"), "v2a.json",
      "failed", "FAILED: petsc spai: iterations 200 > 180")
petsc(record(dd, "v2b.json", "spai", 2, {"solve": 2.5}, name="spai-strong-scaling"), "v2b.json",
      "passed", "PASSED: petsc spai")
record(dd, "v4.json", "spai", 4, {"solve": 1.6}, name="spai-strong-scaling")
rc, out, err = run(dd, "--out", os.path.join(WORK, "pv"), "--no-plots")
rs = {int(r["gpus"]): r for r in rows(os.path.join(WORK, "pv"))}
check(rc == 0 and sorted(rs) == [1, 2, 4], "petsc: 3 rows (exit %d: %s)" % (rc, err))
check(rs[1]["petsc"] == "passed" and rs[2]["petsc"] == "passed (1/2 passed)" and rs[4]["petsc"] == "-",
      "petsc: CSV column petsc = the used run's validation.petsc.status, k/m over validated runs, - without "
      "(%r)" % [rs[p]["petsc"] for p in sorted(rs)])
check(abs(float(rs[2]["total_s"]) - 2.5) < 1e-12 and rs[2]["passed"] == "1" and rs[2]["runs"] == "2" and
      abs(float(rs[2]["speedup"]) - 4.0 / 2.5) < 1e-12,
      "petsc: the faster run at P=2 failed PETSc's check: not used (total %s, speedup %s)" % (
          rs[2]["total_s"], rs[2]["speedup"]))
md = open(os.path.join(WORK, "pv.md")).read()
hdr = [l for l in md.splitlines() if l.startswith("| GPUs") or l.startswith("| ranks")]
cells = [l.split(" | ") for l in md.splitlines() if l.startswith("| 2 |")]
check(hdr and " PETSc " in hdr[0] and cells and "passed (1/2 passed)" in cells[0],
      "petsc: markdown has a PETSc column with the status")
check("- 2 rank(s): PETSc validation failed: FAILED: petsc spai: iterations 200 > 180" in md,
      "petsc: the run whose PETSc validation failed is listed with the validator's verdict")
check(" PETSc " not in open(os.path.join(WORK, "strong-report.md")).read(),
      "petsc: no PETSc column in a study without validation")

# ---- record files named one by one (no folder walk)
files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("lle-"))
rc, out, err = run(*(files + ["--out", os.path.join(WORK, "files"), "--no-plots"]))
rs = rows(os.path.join(WORK, "files"))
check(rc == 0 and [int(r["gpus"]) for r in rs] == [1, 2, 4] and all(r["workload"] == "lle" for r in rs),
      "record files as arguments: 3 lle rows")

# ---- errors
empty = os.path.join(WORK, "empty")
os.makedirs(empty)
rc, out, err = run(empty)
check(rc == 1 and "no hybrid records" in err, "an empty folder: exit 1 with a message")
rc, out, err = run(os.path.join(WORK, "nosuch"))
check(rc != 0 and "nosuch is not a folder or a record file" in err, "a missing folder: an error naming it")
rc, out, err = run(d, "--workload", "nosuch")
check(rc == 1 and "matching the filters" in err, "no record matching the filters: exit 1")

# ---- plots
if PLOTS:
    rc, out, err = run(os.path.join(WORK, "strong"), "--out", os.path.join(WORK, "p", "rep"))
    for suffix in ("-time.png", "-efficiency.png"):
        path = os.path.join(WORK, "p", "rep" + suffix)
        ok = os.path.exists(path) and open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n" \
            and os.path.getsize(path) > 2000
        check(rc == 0 and ok, "plot rep%s written (PNG)" % suffix)
    rc, out, err = run(d, "--out", os.path.join(WORK, "p2", "rep"))
    check(rc == 0 and os.path.exists(os.path.join(WORK, "p2", "rep-lle-time.png")) and
          os.path.exists(os.path.join(WORK, "p2", "rep-gauss-efficiency.png")),
          "two groups: plots named by workload")

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
