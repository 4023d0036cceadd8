#!/usr/bin/env python3
"""Seed 002's tables (jobs/paper-tables.sh 002): one table per workload of the seed (gemm, sort,
conv), each from its own module jobs/seed002/<workload>.py, printed, written as Markdown and
plotted as PNG.

    jobs/seed002-tables.py [--small|--full] [--hybrid BIN] [--out DIR] [--only gemm,sort,conv]
                           [--mpiexec MPIEXEC]

--small (default): reduced sizes that run on a workstation or CI (the host backend when there is
no GPU); --full: the seed's sizes on the GPU machine.  Seed 002 is a oneAPI homework whose result
tables were screenshots that did not survive: its columns read "n/a (figure lost)".  Every number
is read from the runs' JSON records (metrics), never scraped from stdout.  Exit 0 when every run
of every table passed, 1 when any run failed (its cells read "FAILED") or a module is broken; a
workload whose module does not exist yet is listed as missing and skipped.

A module jobs/seed002/<wl>.py defines
    TITLE = "one line"
    def tables(h): -> list of dicts {"name", "title", "columns", "rows": [(label, [cells])],
                                     "plot": {"xlabel", "ylabel", "x": [...], "series": {name: [y or None]}},
                                     "notes": [lines]}
with h the Harness below: h.run(tag, args, ranks=1) -> the run's record (dict) or raises
RunFailed, h.small, h.gpu (a CUDA backend was seen), h.LOST, h.ms(seconds) for a cell.
"""
import argparse, glob, importlib.util, json, os, shutil, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hyplot  # noqa: E402  (jobs/hyplot.py: the plotting tool shared with report.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKLOADS = ["gemm", "sort", "conv"]


class RunFailed(Exception):
    pass


class Harness:
    LOST = "n/a (figure lost)"

    def __init__(self, a, wl):
        self.small = a.size == "small"
        self.hybrid = a.hybrid
        self.mpiexec = a.mpiexec
        self.out = os.path.join(a.out, wl)
        self.gpu = False
        self.failed = 0
        os.makedirs(self.out, exist_ok=True)

    def run(self, tag, args, ranks=1):
        """Run hybrid on `ranks` ranks with args (section.key=value) in a fresh folder; return
        its JSON record.  A non-zero exit or a missing record raises RunFailed."""
        wd = os.path.join(self.out, tag)
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        cmd = [self.mpiexec, "-n", str(ranks), self.hybrid] + list(args) + ["output.dir=results"]
        p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        log = p.stdout.decode(errors="replace")
        with open(os.path.join(wd, "log.txt"), "w") as f:
            f.write(" ".join(cmd) + "\n" + log)
        recs = sorted(glob.glob(os.path.join(wd, "results", "*.json")))
        if p.returncode != 0 or len(recs) != 1:
            self.failed += 1
            tail = "\n".join(log.strip().splitlines()[-3:])
            print("seed002: run %s FAILED (exit %d): %s\n%s" % (tag, p.returncode, " ".join(cmd), tail), file=sys.stderr)
            raise RunFailed(tag)
        with open(recs[0]) as f:
            rec = json.load(f)
        if rec.get("backend") == "cuda":
            self.gpu = True
        return rec

    @staticmethod
    def ms(sec):
        return "n/a" if sec is None or sec < 0 else "%.3f" % (1e3 * sec)


def load_module(wl):
    path = os.path.join(HERE, "seed002", wl + ".py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("seed002_" + wl, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def markdown(t):
    lines = ["### " + t["title"], "", "| " + " | ".join(t["columns"]) + " |", "|" + "---|" * len(t["columns"])]
    for label, cells in t["rows"]:
        lines.append("| " + " | ".join([label] + [str(c) for c in cells]) + " |")
    for n in t.get("notes", []):
        lines.append("")
        lines.append(n)
    return "\n".join(lines) + "\n"


def plot(t, path):
    """The table's curves through jobs/hyplot.py (axes with units, title, legend outside)."""
    p = t.get("plot")
    if not p:
        return None
    series = [(name, p["x"], ys) for name, ys in p["series"].items()]
    logx = 10 if p.get("xscale", "log") == "log" else None
    return hyplot.line_plot(path, t["title"], p["xlabel"], p["ylabel"], series, logx=logx,
                            logy=p.get("yscale", "log") == "log")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--small", dest="size", action="store_const", const="small")
    g.add_argument("--full", dest="size", action="store_const", const="full")
    ap.set_defaults(size="small")
    ap.add_argument("--hybrid", default=os.environ.get("HYBRID_BIN", os.path.join(ROOT, "build", "hybrid")))
    ap.add_argument("--mpiexec", default=os.environ.get("HYBRID_MPIEXEC", shutil.which("mpiexec.mpich") or "mpiexec"))
    ap.add_argument("--out", default="seed002-tables")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    a = ap.parse_args()
    a.hybrid = os.path.abspath(a.hybrid)
    a.out = os.path.abspath(a.out)
    if not os.access(a.hybrid, os.X_OK):
        print("seed002: error: no hybrid executable at %s (--hybrid)" % a.hybrid, file=sys.stderr)
        return 1
    bad = [w for w in a.only.split(",") if w not in WORKLOADS]
    if bad:
        print("seed002: error: --only %s: unknown workload(s) %s; allowed: %s" % (a.only, bad, ",".join(WORKLOADS)), file=sys.stderr)
        return 1
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    done = []
    for wl in a.only.split(","):
        mod = load_module(wl)
        if mod is None:
            print("seed002: %s: module jobs/seed002/%s.py missing (not built yet): skipped" % (wl, wl))
            continue
        h = Harness(a, wl)
        try:
            tables = mod.tables(h)
        except Exception as e:  # a broken module is a failure, not a silent hole
            print("seed002: %s: module failed: %r" % (wl, e), file=sys.stderr)
            failed += 1
            continue
        failed += h.failed
        for t in tables:
            md = markdown(t)
            print(md)
            mdp = os.path.join(a.out, "seed002-%s.md" % t["name"])
            with open(mdp, "w") as f:
                f.write(md)
            png = plot(t, os.path.join(a.out, "seed002-%s.png" % t["name"]))
            print("seed002: %s -> %s%s" % (t["name"], mdp, (", " + png) if png else ""))
            done.append(t["name"])
    if failed:
        print("seed002: FAILED: %d run(s) or module(s) failed (their cells read FAILED)" % failed)
        return 1
    print("seed002: PASSED: tables %s in %s" % (", ".join(done) or "(none)", a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
