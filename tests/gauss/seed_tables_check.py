#!/usr/bin/env python3
"""Check what jobs/gauss-seed-tables.sh wrote: seed_tables_check.py OUT MAX [--gpu]

Every n = 16, 32, ..., MAX has a row in OUT/times.csv; the seed's columns hold the seed's
figures; our serial and blocked columns are times in ms (numbers > 0, not FAIL / n/a); the GPU
columns are numbers with --gpu, else n/a; OUT/tables.txt has no FAIL cell; every figure of ours
equals its run's JSON record (OUT/TAG.N.rec/*.json, metrics.time_seconds in ms, to the 4 decimals
printed): the tables are made from the records; OUT/times.png and speedup.png are valid PNGs of a
sane size (IHDR 300..4000 x 200..3000 pixels, > 10 kB) when matplotlib is there.  Exit 0 or 1."""
import csv, glob, json, math, os, struct, sys

TAGS = {"serial_ms": "serial", "gpu_device_ms": "device", "gpu_managed_ms": "managed"}


def png_ok(path):
    """None when path is a PNG of a sane size, else why not."""
    try:
        b = open(path, "rb").read()
    except OSError as e:
        return str(e)
    if b[:8] != b"\x89PNG\r\n\x1a\n" or b[12:16] != b"IHDR":
        return "not a PNG"
    w, h = struct.unpack(">II", b[16:24])
    if not (300 <= w <= 4000 and 200 <= h <= 3000) or len(b) < 10000:
        return "%d x %d pixels, %d bytes" % (w, h, len(b))
    return None


def record_ms(out, tag, n):
    recs = glob.glob(os.path.join(out, "%s.%d.rec" % (tag, n), "*.json"))
    if len(recs) != 1:
        return None
    r = json.load(open(recs[0]))
    return r["metrics"]["time_seconds"] * 1000 if r.get("status") == "passed" else None

SEED_SER = {16: 0.470433, 32: 0.812061, 64: 6.41777, 128: 50.598, 256: 406.665, 512: 3236.67, 1024: 25885.7}


def main():
    out, mx = sys.argv[1], int(sys.argv[2])
    gpu = "--gpu" in sys.argv[3:]
    rows = list(csv.DictReader(open(os.path.join(out, "times.csv"))))
    want = []
    n = 16
    while n <= mx:
        want.append(n)
        n *= 2
    bad = []
    got = [int(r["n"]) for r in rows]
    if got != want:
        bad.append("rows n = %s, expected %s" % (got, want))
    blk = [c for c in rows[0] if c.startswith("blocked_")] if rows else []
    if len(blk) != 1:
        bad.append("no blocked column: %s" % list(rows[0]) if rows else "no rows")
    for r in rows:
        n = int(r["n"])
        if abs(float(r["seed_serial_ms"]) - SEED_SER[n]) > 1e-9 * SEED_SER[n]:
            bad.append("n = %d: seed serial %s, the seed says %g" % (n, r["seed_serial_ms"], SEED_SER[n]))
        cols = ["serial_ms"] + blk + (["gpu_device_ms", "gpu_managed_ms"] if gpu else [])
        for c in cols:
            try:
                v = float(r[c])
                ok = math.isfinite(v) and v > 0
            except ValueError:
                ok = False
            if not ok:
                bad.append("n = %d: %s = %r is not a time in ms" % (n, c, r[c]))
        for c in cols:
            tag = TAGS.get(c, "blocked")
            want = record_ms(out, tag, n)
            try:
                v = float(r[c])
            except ValueError:
                v = None
            if want is None or v is None or abs(v - want) > 5e-5 + 1e-9 * want:
                bad.append("n = %d: %s = %r, its record (%s.%d.rec) says %r ms" % (n, c, r[c], tag, n, want))
        if not gpu:
            for c in ("gpu_device_ms", "gpu_managed_ms"):
                if r[c] != "n/a":
                    bad.append("n = %d: %s = %r without a GPU (expected n/a)" % (n, c, r[c]))
    try:
        import matplotlib  # noqa: F401
        for f in ("times.png", "speedup.png"):
            why = png_ok(os.path.join(out, f))
            if why:
                bad.append("%s: %s" % (f, why))
    except ImportError:
        print("seed_tables_check: no matplotlib: plots not checked")
    if "FAIL" in open(os.path.join(out, "tables.txt")).read():
        bad.append("tables.txt has a FAIL cell")
    for b in bad:
        print("seed_tables_check: " + b)
    print("seed_tables_check: %s (%d rows)" % ("FAILED" if bad else "ok", len(rows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
