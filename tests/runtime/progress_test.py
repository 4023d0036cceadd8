#!/usr/bin/env python3
"""progress_test.py HYBRID WORKDIR - run.progress_mode on a gauss stepwise elimination (host):

  auto, stderr a pipe, run.progress = 1, a run of > 2 s (n grown until it is, whatever the
        machine and its BLAS)                            -> lines "hybrid: LABEL: P% after T s
        (eta E s)", P increasing in (0, 100], T increasing and >= 1 s apart, no bar
  bar, stderr a pipe (as under mpiexec)                  -> the bar ("\\r LABEL [###...] P%")
  auto, stderr a terminal (pty)                          -> the bar; lines on a terminal -> lines
  off                                                    -> neither
Numbers are parsed and compared.  Exit 0 pass, 1 fail."""
import os, pty, re, subprocess, sys, time

exe, work = os.path.abspath(sys.argv[1]), sys.argv[2]
os.makedirs(work, exist_ok=True)
fails = []
base = ["run.workload=gauss", "gauss.algorithm=stepwise", "run.backend=host", "output.record=false"]
LINE = re.compile(r"^hybrid: stepwise elimination: ([0-9.]+)% after ([0-9.]+) s \(eta ([0-9.]+) s\)$", re.M)
BAR = re.compile(r"\rstepwise elimination +\[[#.]{40}\] +([0-9.]+)%")


def run_pipe(args):
    t0 = time.time()
    p = subprocess.run([exe] + base + args, cwd=work, capture_output=True, timeout=120)
    err = p.stderr.decode(errors="replace")   # bytes: text mode would turn the bar's \r into \n
    if p.returncode != 0:
        fails.append("%s: exit %d: %s" % (args, p.returncode, err[-500:]))
    return err, time.time() - t0


def run_pty(args):
    """stderr on a pseudo-terminal; returns what was written there."""
    m, s = pty.openpty()
    p = subprocess.Popen([exe] + base + args, cwd=work, stdout=subprocess.DEVNULL, stderr=s)
    os.close(s)
    out = b""
    while True:
        try:
            chunk = os.read(m, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=120)
    os.close(m)
    if p.returncode != 0:
        fails.append("pty %s: exit %d" % (args, p.returncode))
    return out.decode(errors="replace")


# The lines need a run of more than 2 s whatever the machine and its BLAS: grow n (the work
# goes with n^3) until one is, at most three times.
n_long = 2000
for attempt in range(4):
    err, wall = run_pipe(["gauss.n=%d" % n_long, "run.progress=1"])
    if wall > 2.5 or attempt == 3:
        break
    n_long = int(n_long * max(1.25, min(2.0, (3.5 / max(wall, 0.05)) ** (1 / 3.0))))
lines = [(float(a), float(b)) for a, b, _ in LINE.findall(err)]
if wall <= 2.0:
    fails.append("the lines run (gauss.n=%d) took only %.2f s, not more than 2 s" % (n_long, wall))
# at least two lines, at most one a second (the lines come at the elimination's updates, every
# 64 rows: on a loaded machine fewer than one a second)
if len(lines) < 2 or len(lines) > wall + 1:
    fails.append("auto into a pipe, %.1f s run: no progress line:\n%s" % (wall, err[-400:]))
else:
    ps, ts = [p for p, _ in lines], [t for _, t in lines]
    if not all(0 < p <= 100 for p in ps) or ps != sorted(ps) or any(b - a < 0.99 for a, b in zip(ts, ts[1:])) or ts[0] < 0.99:
        fails.append("progress lines not increasing / not 1 s apart: %r" % lines)
if BAR.search(err):
    fails.append("auto into a pipe drew the bar")
print("ok? auto/pipe, gauss.n=%d: %d line(s) %r in %.1f s" % (n_long, len(lines), lines, wall))

# the bar draws at most 10 times a second, from 0.1 s on: the > 2 s run's size, so that a fast
# machine (or a quiet one) cannot finish the elimination before the first update
err, _ = run_pipe(["gauss.n=%d" % n_long, "run.progress_mode=bar"])
bars = [float(x) for x in BAR.findall(err)]
if not bars or bars != sorted(bars) or not all(0 < b <= 100 for b in bars):
    fails.append("bar into a pipe: no increasing bar: %r %r" % (bars, err[-300:]))
print("ok? bar/pipe: %d update(s)" % len(bars))

out = run_pty(["gauss.n=%d" % n_long])
if not BAR.search(out):
    fails.append("auto on a terminal: no bar: %r" % out[-300:])
out = run_pty(["gauss.n=%d" % n_long, "run.progress=1", "run.progress_mode=lines"])
if BAR.search(out) or not LINE.search(out.replace("\r\n", "\n")):
    fails.append("lines on a terminal: want lines, no bar: %r" % out[-300:])

err, _ = run_pipe(["gauss.n=1000", "run.progress=1", "run.progress_mode=off"])
if BAR.search(err) or LINE.search(err):
    fails.append("off: progress output: %r" % err[-300:])

for f in fails:
    print("FAIL: " + f)
print("ok: run.progress_mode auto/bar/lines/off" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
