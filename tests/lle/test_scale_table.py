#!/usr/bin/env python3
"""jobs/lle_scale_table.py on made-up logs in hybrid's format: knn = 1e-7 N (slope 1), eigen =
2e-9 N^1.5 (slope 1.5), data constant (slope 0), a size without a verdict (not finished, left
out of the slopes); the printed slopes parsed and compared, the total's row equal to the sum
of the phases; with no finished size the script exits 1.  Exit 0 pass, 1 fail."""
import os, re, subprocess, sys, tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs", "lle_scale_table.py")


def log(n, done=True):
    ph = {"data": 0.25, "knn": 1e-7 * n, "weights": 5e-8 * n, "gather": 0.0, "eigen": 2e-9 * n ** 1.5}
    s = "lle: eigensolver gpu-chol (made up)\n\nphase (s)                         min          avg          max\n"
    s += "".join("%-20s %12.6f %12.6f %12.6f\n" % (p, v, v, v) for p, v in ph.items())
    return s + ("PASSED: lle: 3 eigenpairs converged\n" if done else "")


def main():
    rc = 0
    with tempfile.TemporaryDirectory() as d:
        sizes = (1000000, 2000000, 5000000, 10000000)
        for n in sizes[:3]:
            open(os.path.join(d, "scale-%d.log" % n), "w").write(log(n))
        open(os.path.join(d, "scale-%d.log" % sizes[3]), "w").write(log(sizes[3], done=False))
        p = subprocess.run([sys.executable, SCRIPT, d] + [str(n) for n in sizes], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        out = p.stdout
        print(out)
        want = {"knn": 1.0, "weights": 1.0, "eigen": 1.5, "data": 0.0}
        for ph, w in want.items():
            m = re.search(r"^\s+%s\s+local (.*?)\s+overall (\S+)" % ph, out, re.M)
            got = float(m.group(2)) if m else float("nan")
            loc = [float(v) for v in m.group(1).split()] if m else []
            ok = abs(got - w) < 0.01 and len(loc) == 2 and all(abs(v - w) < 0.01 for v in loc)
            print("%s slope %s: overall %s, local %s (expected %.2f)" % ("ok  " if ok else "FAIL", ph, got, loc, w))
            rc |= 0 if ok else 1
        row = re.search(r"^\s+5000000\s+(.*)$", out, re.M)
        vals = [float(v) for v in row.group(1).split()[:7]] if row else []
        ok = len(vals) == 7 and abs(vals[6] - sum(vals[:6])) < 2e-3 and abs(vals[1] - 0.5) < 1e-3
        print("%s row N = 5000000: %s (total = sum of the phases, knn 0.500)" % ("ok  " if ok else "FAIL", vals))
        rc |= 0 if ok else 1
        ok = re.search(r"^\s+10000000\s+not finished", out, re.M) is not None and p.returncode == 0 \
            and "3 of 4 sizes finished, largest N = 5000000" in out
        print("%s the unfinished size listed, exit %d" % ("ok  " if ok else "FAIL", p.returncode))
        rc |= 0 if ok else 1
        e = subprocess.run([sys.executable, SCRIPT, d, "123"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        ok = e.returncode == 1 and b"no size finished" in e.stdout
        print("%s no size finished: exit %d" % ("ok  " if ok else "FAIL", e.returncode))
        rc |= 0 if ok else 1
    print("%s: lle scale table" % ("PASSED" if rc == 0 else "FAILED"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
