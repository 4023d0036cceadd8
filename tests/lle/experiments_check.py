#!/usr/bin/env python3
"""experiments_check.py OUT - what jobs/lle_experiments.py wrote is made from the runs' records:
the trustworthiness of every row of the Embeddings and scikit-learn's-methods tables in
OUT/tables.md equals its run's record (OUT/runs/NAME/*.json, metrics.trustworthiness, to the 6
decimals printed), and every embed_*.png (drawn by jobs/hyplot.py from the run's embedding file)
is a valid PNG of a sane size (IHDR 300..4000 x 200..3000 pixels, > 10 kB).  Exit 0 or 1."""
import glob, json, os, re, struct, sys

out = sys.argv[1]
md = open(os.path.join(out, "tables.md")).read()
bad, n = [], 0


def rec(name):
    r = glob.glob(os.path.join(out, "runs", name, "*.json"))
    return json.load(open(r[0])) if len(r) == 1 else None


for ds, nn, png, tw in re.findall(r"^\| (swissroll|scurve) \| (\d+) \| (embed_\S+\.png) \| ([0-9.]+|-) \|$", md, re.M):
    r = rec("embed_%s_%s" % (ds, nn))
    want = r and r["metrics"].get("trustworthiness")
    n += 1
    if want is None or tw == "-" or abs(float(tw) - want) > 5e-7:
        bad.append("embedding %s N = %s: table %s, record %r" % (ds, nn, tw, want))
    b = open(os.path.join(out, png), "rb").read() if os.path.exists(os.path.join(out, png)) else b""
    w, h = struct.unpack(">II", b[16:24]) if len(b) > 24 else (0, 0)
    if b[:8] != b"\x89PNG\r\n\x1a\n" or not (300 <= w <= 4000 and 200 <= h <= 3000) or len(b) < 10000:
        bad.append("%s: not a PNG of a sane size (%d x %d, %d bytes)" % (png, w, h, len(b)))
for ds, noise, method, tw in re.findall(r"^\| (swissroll|scurve)(?: noise ([0-9.]+))? \| (standard|ltsa|hessian|modified) \| [0-9.-]+ \| ([0-9.]+|-) \|", md, re.M):
    r = rec("method_%s_%s_%s" % (ds, noise or "0", method))
    want = r and r["metrics"].get("trustworthiness")
    n += 1
    if want is None or tw == "-" or abs(float(tw) - want) > 5e-7:
        bad.append("method %s %s %s: table %s, record %r" % (ds, noise, method, tw, want))
if n < 8:
    bad.append("only %d table rows found" % n)
for b in bad:
    print("experiments_check: " + b)
print("experiments_check: %s (%d rows against their records)" % ("FAILED" if bad else "ok", n))
sys.exit(1 if bad else 0)
