#!/usr/bin/env python3
"""sysinfo_test.py HYBRID MPIEXEC WORKDIR - the threads a rank uses, the BLAS and the compiler, in
the header and in the record (parsed and compared, not matched as text):

  taskset -c 0                    -> 1 thread per rank, from "affinity"
  SLURM_CPUS_PER_TASK=3           -> 3, from "SLURM_CPUS_PER_TASK"
  OMP_NUM_THREADS=2 (+ SLURM=3)   -> 2, from "OMP_NUM_THREADS"
  mpiexec -n 2, no binding        -> affinity CPUs // 2 (at least 1): the node's cores shared
  run.blas_threads=2 (+ SLURM=3)  -> the BLAS on 2 threads (1 for the reference BLAS), 3 per rank
  blas.library names the library that `ldd` shows providing the BLAS; blas.threads is 1 for the
  reference BLAS, the per-rank count for OpenBLAS; compiler is "gcc|clang VERSION";
  argv, slurm (job and step id; null outside Slurm), typed config values, cuda/nccl/cudnn null on host."""
import glob, json, os, re, shutil, subprocess, sys

exe, mpiexec, work = sys.argv[1], sys.argv[2], sys.argv[3]
fails = []
base = {k: v for k, v in os.environ.items()
        if not k.startswith(("SLURM_", "OMP_", "OPENBLAS_", "MKL_", "BLIS_", "HYBRID_"))}
small = ["run.workload=selftest", "selftest.n=1000", "selftest.copy_mib=1", "selftest.reps=1",
         "run.backend=host"]


def run(name, prefix, env_add, nranks=1, extra=()):
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(base, **env_add)
    cmd = prefix + ([mpiexec, "-n", str(nranks)] if nranks > 1 else []) + [exe] + small + ["output.dir=r"] + list(extra)
    p = subprocess.run(cmd, cwd=d, env=env, capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        fails.append("%s: exit %d (want 0): %s" % (name, p.returncode, out[-800:]))
        return None, out
    recs = glob.glob(os.path.join(d, "r", "*.json"))
    if len(recs) != 1:
        fails.append("%s: %d records, want 1" % (name, len(recs)))
        return None, out
    return json.load(open(recs[0])), out


def check_threads(name, rec, out, want, why):
    if rec is None:
        return
    t = rec.get("threads") or {}
    if t.get("per_rank") != want or t.get("from") != why:
        fails.append("%s: record threads %r, want per_rank %d from %r" % (name, t, want, why))
    m = re.search(r"^BLAS: .*, (\d+) thread\(s\); (\d+) thread\(s\) per rank \(([^)]*)\)$", out, re.M)
    if not m:
        fails.append("%s: no 'BLAS: ... thread(s) per rank' header line:\n%s" % (name, out[:600]))
    elif int(m.group(2)) != want or m.group(3) != why:
        fails.append("%s: header says %s per rank (%s), want %d (%s)" % (name, m.group(2), m.group(3), want, why))
    elif int(m.group(1)) != rec["blas"]["threads"]:
        fails.append("%s: header BLAS threads %s, record %r" % (name, m.group(1), rec["blas"]))
    print("ok? %s: %r" % (name, t))


rec, out = run("taskset", ["taskset", "-c", "0"], {})
check_threads("taskset -c 0", rec, out, 1, "affinity")
rec, out = run("slurm", [], {"SLURM_CPUS_PER_TASK": "3"})
check_threads("SLURM_CPUS_PER_TASK=3", rec, out, 3, "SLURM_CPUS_PER_TASK")
rec, out = run("omp", [], {"SLURM_CPUS_PER_TASK": "3", "OMP_NUM_THREADS": "2"})
check_threads("OMP_NUM_THREADS=2", rec, out, 2, "OMP_NUM_THREADS")
ncpu = len(os.sched_getaffinity(0))
online = os.cpu_count()
rec2, out2 = run("np2", [], {}, nranks=2)
if ncpu >= online:
    check_threads("mpiexec -n 2", rec2, out2, max(1, ncpu // 2), "affinity / ranks per node")

# the BLAS: the record names the library ldd shows, with a sensible thread count
rec = rec2 or rec
if rec is not None:
    b = rec.get("blas") or {}
    lib = b.get("library", "")
    ldd = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    cand = [os.path.realpath(l.split("=>")[1].split()[0]) for l in ldd.splitlines()
            if "=>" in l and re.search(r"lib(open)?blas|libmkl|libblis", l)]
    if not cand:
        fails.append("ldd %s shows no BLAS library" % exe)
    elif not any(c in lib for c in cand):
        fails.append("record blas.library %r names none of ldd's BLAS %r" % (lib, cand))
    thr = b.get("threads")
    if not isinstance(thr, int) or thr < 1:
        fails.append("record blas.threads %r is not a positive integer" % thr)
    elif "OpenBLAS" in lib and thr != rec["threads"]["per_rank"]:
        fails.append("OpenBLAS threads %d != the rank's %d" % (thr, rec["threads"]["per_rank"]))
    elif "reference" in lib and thr != 1:
        fails.append("reference BLAS with %d threads" % thr)
    comp = rec.get("compiler", "")
    if not re.match(r"^(gcc|clang|icx) \d+\.\d+", comp):
        fails.append("record compiler %r is not 'gcc|clang VERSION'" % comp)
    print("ok? blas %r, compiler %r" % (b, comp))

# run.blas_threads fixes the BLAS's threads whatever the rank's count (a threaded BLAS: the
# count asked for; the reference BLAS: 1)
rec, out = run("blas_threads", [], {"SLURM_CPUS_PER_TASK": "3"}, extra=["run.blas_threads=2"])
if rec is not None:
    lib, thr = rec["blas"]["library"], rec["blas"]["threads"]
    want = 2 if re.search(r"OpenBLAS|MKL|BLIS", lib) else 1
    m = re.search(r"^BLAS: .*, (\d+) thread\(s\); (\d+) thread\(s\) per rank", out, re.M)
    if thr != want or rec["threads"]["per_rank"] != 3 or not m or int(m.group(1)) != want:
        fails.append("run.blas_threads=2 with SLURM_CPUS_PER_TASK=3: record blas %r threads %r, header %r; "
                     "want BLAS threads %d, 3 per rank" % (rec["blas"], rec["threads"], m and m.group(0), want))
    print("ok? run.blas_threads=2: blas %r" % rec["blas"])

# the run's context in the record: argv, the Slurm job and step, typed config values, the
# CUDA runtime/driver and NCCL (null on the host backend)
rec, out = run("context", [], {"SLURM_JOB_ID": "4711", "SLURM_STEP_ID": "3"})
if rec is not None:
    if rec.get("argv") != [exe] + small + ["output.dir=r"]:
        fails.append("record argv %r, want the command line" % rec.get("argv"))
    if rec.get("slurm") != {"job_id": "4711", "step_id": "3"}:
        fails.append("record slurm %r, want job 4711 step 3" % rec.get("slurm"))
    c = rec.get("config", {})
    n, recd, be = c.get("selftest", {}).get("n"), c.get("output", {}).get("record"), c.get("run", {}).get("backend")
    if not (type(n) is int and n == 1000 and recd is True and be == "host"):
        fails.append("record config not typed: selftest.n %r, output.record %r, run.backend %r" % (n, recd, be))
    if rec.get("backend") == "host" and any(rec.get(k, 0) is not None for k in ("cuda", "nccl", "cudnn")):
        fails.append("host backend: cuda %r, nccl %r, cudnn %r (want null, present)" % (
            rec.get("cuda", 0), rec.get("nccl", 0), rec.get("cudnn", 0)))
    print("ok? argv %r slurm %r" % (rec.get("argv"), rec.get("slurm")))
rec, out = run("noslurm", [], {})
if rec is not None and rec.get("slurm", 0) is not None:
    fails.append("outside Slurm the record's slurm is %r (want null)" % rec.get("slurm", 0))

for f in fails:
    print("FAIL: " + f)
print("ok: threads, BLAS and compiler in the header and record" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
