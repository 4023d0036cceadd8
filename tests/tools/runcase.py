#!/usr/bin/env python3
"""Run one test case and check its outcome.

runcase.py [--exit N] [--expect REGEX]... [--reject REGEX]... [--json] [--workdir DIR]
           [--timeout S] -- COMMAND...

Runs COMMAND in DIR (created empty), checks the exit code, that each --expect regex is found
and no --reject regex is found in stdout+stderr (multiline), that the command ended within
--timeout seconds, and with --json that DIR/results holds exactly one record that parses as
JSON and has the required fields.  Prints what it checked; exit 0 pass, 1 fail.
"""
import argparse, json, os, re, shutil, subprocess, sys, time

REQUIRED = ["workload", "status", "exit_code", "version", "mpi_library", "ranks", "backend",
            "devices", "config", "phases", "metrics", "validation"]


def check_record(path, exit_code):
    with open(path) as f:
        rec = json.load(f)
    missing = [k for k in REQUIRED if k not in rec]
    if missing:
        return "record %s lacks fields %s" % (path, missing)
    if rec["exit_code"] != exit_code:
        return "record exit_code %r != %r" % (rec["exit_code"], exit_code)
    want = "passed" if exit_code == 0 else ("failed" if exit_code == 4 else "error")
    if rec["status"] != want:
        return "record status %r, expected %r" % (rec["status"], want)
    for name, ph in rec["phases"].items():
        if not (ph["min"] <= ph["avg"] + 1e-12 and ph["avg"] <= ph["max"] + 1e-12):
            return "phase %s has min/avg/max out of order: %r" % (name, ph)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--reject", action="append", default=[])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    wd = a.workdir or os.getcwd()
    if a.workdir:
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=a.timeout, stdin=subprocess.DEVNULL)
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        print(out)
        print("FAIL: timed out after %.0f s: %s" % (a.timeout, " ".join(cmd)))
        return 1
    dt = time.time() - t0
    print(out)
    print("---- runcase: %s\n---- exit %d after %.2f s" % (" ".join(cmd), rc, dt))
    fails = []
    if rc != a.exit:
        fails.append("exit code %d, expected %d" % (rc, a.exit))
    for e in a.expect:
        if not re.search(e, out, re.M):
            fails.append("expected output matching %r" % e)
    for e in a.reject:
        m = re.search(e, out, re.M)
        if m:
            fails.append("unexpected output %r (matched %r)" % (m.group(0), e))
    if a.json:
        rd = os.path.join(wd, "results")
        recs = sorted(f for f in os.listdir(rd) if f.endswith(".json")) if os.path.isdir(rd) else []
        if len(recs) != 1:
            fails.append("expected one JSON record in %s, found %r" % (rd, recs))
        else:
            err = check_record(os.path.join(rd, recs[0]), a.exit)
            if err:
                fails.append(err)
        left = [f for f in os.listdir(rd)] if os.path.isdir(rd) else []
        tmp = [f for f in left if ".tmp" in f]
        if tmp:
            fails.append("temporary files left in %s: %r" % (rd, tmp))
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("PASS")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
