#!/usr/bin/env python3
"""progress_phases.py HYBRID WORKDIR - every long phase reports progress in a batch log.

Runs (host backend, stderr a pipe as in a batch job, run.progress = 0.2 s, progress_mode auto)
each workload so that its long phases last well beyond the interval, and requires of each phase's
lines "hybrid: LABEL: P% after T s (eta E s)" at least one line, P in [0, 100] never decreasing,
T increasing:

  gauss blocked          "blocked LU"
  gauss stepwise         "stepwise elimination"
  spai                   "spai setup (columns)", "bicgstab (log10 of the residual, toward tol)"
  lle (brute KNN, bsvd)  "lle knn (queries of rank 0)", "lle eigen (log10 of the residual, toward tol)"

and, only when named in the case list (CUDA backend, a GPU test):

  lle gpu-chol           "lle eigen (log10 of the residual, toward tol)" from the device iteration
                         (the run's eigensolver line must name cuSOLVER's csrchol: no fallback)

A phase with too few lines (gauss: 5, so that one comes early) is rerun larger (up to four
times: a faster machine or BLAS; OpenBLAS's LU at one thread ends n = 3375 in 1 s, the
reference BLAS's n = 1500 takes 1.6 s), then fails.  A third argument (comma-separated case names) runs only those.
gauss's ETA follows the flops: the first line with P >= 10% predicts a total T + E within
[0.4, 2] of the factor phase's time in the phase table (a progress by steps predicts ~2.5-3x).
The whole set runs for more than 2 s.  Numbers are parsed and compared.  Exit 0 pass, 1 fail."""
import os, re, subprocess, sys, time

exe, work = os.path.abspath(sys.argv[1]), sys.argv[2]
only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
os.makedirs(work, exist_ok=True)
fails = []
IV = 0.2
LINE = re.compile(r"^hybrid: (.+): ([0-9.]+)% after ([0-9.]+) s \(eta ([0-9.]+) s\)$", re.M)
PHASE = re.compile(r"^(\S[^\n]*?)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$", re.M)
# one BLAS thread: the ETA compares the first 10% with the whole run, and a threaded BLAS
# (OpenBLAS: 2 threads at 1 rank here) stalls at each call's barrier while another process holds
# the second core (ctest -j2, a loaded machine): gauss stepwise n = 1800 took 7.6 s against
# 1.6-2.8 s alone, its first line's ETA then 0.30 of the time taken.  A case's keys come after
# these: they win.
base = ["run.backend=host", "output.record=false", "run.progress=%g" % IV, "run.blas_threads=1"]

# name, size key, first size, growth, lines wanted of each label, other keys, labels
CASES = [
    ("gauss blocked", "gauss.n", 1500, 1.5, 5, ["run.workload=gauss", "gauss.algorithm=blocked"], ["blocked LU"]),
    ("gauss stepwise", "gauss.n", 1200, 1.5, 5, ["run.workload=gauss", "gauss.algorithm=stepwise"], ["stepwise elimination"]),
    ("spai", "matrix.size", 60000, 2, 1, ["run.workload=spai", "matrix.source=generate", "matrix.generator=convdiff3d27",
                                    "spai.tau=0.99", "solver.tol=1e-10"],
     ["spai setup (columns)", "bicgstab (log10 of the residual, toward tol)"]),
    ("lle", "lle.n", 24000, 1.5, 1, ["run.workload=lle", "lle.dataset=swissroll", "lle.knn=brute", "lle.eigensolver=bsvd"],
     ["lle knn (queries of rank 0)", "lle eigen (log10 of the residual, toward tol)"]),
]
# run only when named (GPU): the same 7-tuple, the run's stdout must match STDOUT_RE[name]
GPU_CASES = [
    ("lle gpu-chol", "lle.n", 20000, 2, 1, ["run.workload=lle", "lle.dataset=swissroll", "run.backend=cuda",
                                            "lle.eigensolver=gpu-chol"],
     ["lle eigen (log10 of the residual, toward tol)"]),
]
STDOUT_RE = {"lle gpu-chol": r"csrchol"}
if only:
    CASES += [c for c in GPU_CASES if c[0] in only]


def run(args):
    p = subprocess.run([exe] + base + args, cwd=work, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def check_lines(name, label, lines):
    ps = [float(p) for p, _, _ in lines]
    ts = [float(t) for _, t, _ in lines]
    if not all(0 <= p <= 100 for p in ps) or ps != sorted(ps) or ts != sorted(ts):
        fails.append("%s: %s: lines not in [0,100] / not increasing: %r" % (name, label, lines))


total_wall = 0.0
for name, key, size, grow, want, keys, labels in CASES:
    if only and name not in only:
        continue
    for attempt in range(5):
        t0 = time.time()
        rc, out, err = run(keys + ["%s=%d" % (key, size)])
        wall = time.time() - t0
        total_wall += wall
        if rc != 0:
            fails.append("%s %s=%d: exit %d: %s" % (name, key, size, rc, (out + err)[-600:]))
            break
        got = {l: [(p, t, e) for lab, p, t, e in LINE.findall(err) if lab == l] for l in labels}
        missing = [l for l in labels if len(got[l]) < want]
        print("%s %s=%d: %.1f s; lines: %s" % (name, key, size, wall, ", ".join("%s %d" % (l, len(got[l])) for l in labels)))
        if name in STDOUT_RE and not re.search(STDOUT_RE[name], out):
            fails.append("%s %s=%d: stdout does not match %r (another eigensolver ran?):\n%s" % (
                name, key, size, STDOUT_RE[name], out[-800:]))
            break
        if not missing:
            for l in labels:
                check_lines(name, l, got[l])
            break
        if attempt == 4:
            fails.append("%s %s=%d (%.1f s): no progress line of %s:\n%s" % (name, key, size, wall, missing, err[-600:]))
        size = int(size * grow)
    else:
        continue
    if name.startswith("gauss") and rc == 0 and not missing:
        ph = {m[0].strip(): float(m[3]) for m in PHASE.findall(out)}
        lab = labels[0]
        first = [(float(p), float(t), float(e)) for p, t, e in got[lab] if float(p) >= 10.0]
        if "factor" not in ph or not first:
            fails.append("%s: no factor phase time or no line >= 10%%: %r %r" % (name, sorted(ph), got[lab]))
            continue
        p, t, e = first[0]
        ratio = (t + e) / ph["factor"]
        print("%s: first line %.1f%% after %.2f s predicts %.2f s, factor took %.2f s (ratio %.2f)" %
              (name, p, t, t + e, ph["factor"], ratio))
        if not 0.4 <= ratio <= 2.0:
            fails.append("%s: ETA of the first line is %.2f x the factor time (want within [0.4, 2]; by steps it is ~2.5-3)" % (name, ratio))

if total_wall <= 2.0 and not (only and set(only) <= {c[0] for c in GPU_CASES}):   # a GPU case alone may be quick
    fails.append("the runs took %.1f s in all, not more than 2 s" % total_wall)
for f in fails:
    print("FAIL: " + f)
print("ok: progress lines of every long phase, gauss's ETA by flops" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
