#!/usr/bin/env python3
"""The scale table of jobs/lle-gpu.sh scale: each size's phases and the log-log slopes.

    python3 jobs/lle_scale_table.py OUTDIR N1 N2 ...

Reads OUTDIR/scale-<N>.log (hybrid's output: the "phase (s) min avg max" table, the PASSED /
FAILED line, the eigensolver line), prints one row per size with the slowest rank's time of each
phase (data, knn, weights, gather, assemble, eigen), their sum ("total", data..eigen) and the
verdict, then for each phase and the total the local slope d log t / d log N between successive
sizes and the least-squares slope over all finished sizes (1: linear; the KNN grid and weights
should be ~1, a sparse factorisation above).  A size whose log has no verdict (timed out,
failed to start) is listed as such and left out of the slopes.  Exit 0, or 1 when no size
finished.
"""
import math, os, re, sys

PHASES = ("data", "knn", "weights", "gather", "assemble", "eigen")


def parse(path):
    """Phase maxima, verdict and eigensolver name of one run's log (None: no verdict)."""
    if not os.path.exists(path):
        return None
    text = open(path, errors="replace").read()
    v = re.search(r"^(PASSED|FAILED)\b.*$", text, re.M)
    if not v:
        return None
    ph = {m.group(1): float(m.group(2))
          for m in re.finditer(r"^(%s)\s+\S+\s+\S+\s+([0-9.eE+-]+)\s*$" % "|".join(PHASES), text, re.M)}
    e = re.search(r"^lle: eigensolver (\S+)", text, re.M)
    ph["total"] = sum(ph.get(p, 0.0) for p in PHASES)
    return {"t": ph, "verdict": v.group(0)[:70], "eig": e.group(1) if e else "?"}


def slope(xs, ys):
    """Least-squares slope of log y against log x (None with fewer than 2 positive points)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx > 0 else None


def main():
    out, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
    runs = {n: parse(os.path.join(out, "scale-%d.log" % n)) for n in sizes}
    cols = PHASES + ("total",)
    print("scale: Swiss roll K = 10, d = 2, one GPU, seconds (slowest rank)")
    print("%10s " % "N" + " ".join("%9s" % c for c in cols) + "  eigensolver  verdict")
    done = [n for n in sizes if runs[n]]
    for n in sizes:
        r = runs[n]
        if not r:
            print("%10d   not finished (timed out or failed: see scale-%d.log)" % (n, n))
            continue
        print("%10d " % n + " ".join("%9.3f" % r["t"].get(c, 0.0) for c in cols) + "  %-11s  %s" % (r["eig"], r["verdict"]))
    if not done:
        print("FAILED: lle scale, no size finished")
        return 1
    print("log-log slope d log t / d log N:")
    for c in cols:
        ys = [runs[n]["t"].get(c, 0.0) for n in done]
        loc = []
        for a, b, ya, yb in zip(done, done[1:], ys, ys[1:]):
            loc.append("%.2f" % (math.log(yb / ya) / math.log(b / a)) if ya > 0 and yb > 0 else "-")
        s = slope(done, ys)
        print("  %-9s local %-26s overall %s" % (c, " ".join(loc) or "-", "%.2f" % s if s is not None else "-"))
    print("lle scale: %d of %d sizes finished, largest N = %d in %.1f s (data..eigen)"
          % (len(done), len(sizes), done[-1], runs[done[-1]]["t"]["total"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
