#!/usr/bin/env python3
"""Run one test case and check its outcome.

runcase.py [--exit N|nonzero] [--expect REGEX]... [--reject REGEX]... [--json] [--workdir DIR]
           [--timeout S] [--runs N] [--json-field PATH=VALUE]... [--no-files] -- COMMAND...

Runs COMMAND in DIR (created empty), checks the exit code, that each --expect regex is found
and no --reject regex is found in stdout+stderr (multiline), that the command ended within
--timeout seconds, and with --json that DIR/results holds exactly one record that parses as
JSON and has the required fields.  Prints what it checked; exit 0 pass, 1 fail.
  --runs N        run COMMAND N times in the same DIR (each run is checked); --json then wants
                  N records (records are never overwritten).
  --json-field P=V  every record has the value V at the dotted path P (e.g.
                  config.selftest.n=12345; compared as text, JSON true/false/null as written).
  --no-files      DIR is still empty after the run (no record, no partial file).
  --expect-num LO:HI:REGEX  REGEX (with one group) matches the output and every match's group,
                  parsed as a number, lies in [LO, HI] (an empty LO or HI: no bound).
  --json-num P=LO:HI  every record's number at the dotted path P lies in [LO, HI].
  --need-gpus N   skip (exit 77, ctest SKIP_RETURN_CODE) when nvidia-smi lists fewer than N GPUs.
"""
import argparse, json, os, re, shutil, subprocess, sys, time

REQUIRED = ["workload", "status", "exit_code", "version", "mpi_library", "ranks", "backend",
            "devices", "config", "phases", "metrics", "validation"]


def check_record(path, exit_code):
    try:
        with open(path) as f:
            rec = json.load(f)
    except ValueError as e:
        return "record %s is not valid JSON: %s" % (path, e)
    missing = [k for k in REQUIRED if k not in rec]
    if missing:
        return "record %s lacks fields %s" % (path, missing)
    if rec["exit_code"] != exit_code:
        return "record exit_code %r != %r" % (rec["exit_code"], exit_code)
    if exit_code is None:
        return None if rec["status"] == "error" else "record status %r, expected 'error'" % rec["status"]
    want = "passed" if exit_code == 0 else ("failed" if exit_code == 4 else "error")
    if rec["status"] != want:
        return "record status %r, expected %r" % (rec["status"], want)
    for name, ph in rec["phases"].items():
        if not (ph["min"] <= ph["avg"] + 1e-12 and ph["avg"] <= ph["max"] + 1e-12):
            return "phase %s has min/avg/max out of order: %r" % (name, ph)
    return None


def json_field(path, spec):
    """None when the record at path has the value of spec "a.b.c=V", else the complaint."""
    key, _, want = spec.partition("=")
    try:
        with open(path) as f:
            v = json.load(f)
    except ValueError as e:
        return "record %s is not valid JSON: %s" % (path, e)
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            return "record %s has no field %s" % (path, key)
        v = v[part]
    got = json.dumps(v) if isinstance(v, (bool, type(None), dict, list)) else str(v)
    if got != want:
        return "record field %s = %r, expected %r" % (key, got, want)
    return None


def in_range(v, spec):
    """True when the number v lies in "LO:HI" (either may be empty)."""
    lo, _, hi = spec.partition(":")
    return (lo == "" or v >= float(lo)) and (hi == "" or v <= float(hi))


def expect_num(out, spec):
    """None when every match of REGEX's group in out is a number within LO:HI, else why."""
    lo, hi, rx = spec.split(":", 2)
    got = [m.group(1) for m in re.finditer(rx, out, re.M)]
    if not got:
        return "expected output matching %r (a number in [%s, %s])" % (rx, lo, hi)
    for g in got:
        try:
            v = float(g)
        except ValueError:
            return "%r matched by %r is not a number" % (g, rx)
        if not in_range(v, lo + ":" + hi):
            return "%s (matched by %r) is outside [%s, %s]" % (g, rx, lo, hi)
    return None


def json_num(path, spec):
    """None when the record's number at "a.b=LO:HI" lies in the range, else the complaint."""
    key, _, rng = spec.partition("=")
    with open(path) as f:
        v = json.load(f)
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            return "record %s has no field %s" % (path, key)
        v = v[part]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "record field %s = %r is not a number" % (key, v)
    if not in_range(v, rng):
        return "record field %s = %r is outside [%s]" % (key, v, rng.replace(":", ", "))
    return None


def gpu_count():
    """GPUs that nvidia-smi lists (0 without a driver)."""
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for l in p.stdout.decode(errors="replace").splitlines() if l.startswith("GPU "))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", default="0")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--reject", action="append", default=[])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json-field", action="append", default=[])
    ap.add_argument("--no-files", action="store_true")
    ap.add_argument("--expect-num", action="append", default=[])
    ap.add_argument("--json-num", action="append", default=[])
    ap.add_argument("--expect-file", action="append", default=[],
                    help="a file (relative to the workdir) that must exist and not be empty; a .png must be a PNG")
    ap.add_argument("--need-gpus", type=int, default=0)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.need_gpus and gpu_count() < a.need_gpus:
        print("SKIP: needs %d GPUs, nvidia-smi lists %d" % (a.need_gpus, gpu_count()))
        return 77
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    wd = a.workdir or os.getcwd()
    if a.workdir:
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
    want_exit = None if a.exit == "nonzero" else int(a.exit)
    fails = []
    for run in range(a.runs):
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
        if want_exit is None and rc == 0:
            fails.append("exit code 0, expected nonzero")
        if want_exit is not None and rc != want_exit:
            fails.append("exit code %d, expected %d" % (rc, want_exit))
        for e in a.expect:
            if not re.search(e, out, re.M):
                fails.append("expected output matching %r" % e)
        for spec in a.expect_num:
            err = expect_num(out, spec)
            if err:
                fails.append(err)
        for e in a.reject:
            m = re.search(e, out, re.M)
            if m:
                fails.append("unexpected output %r (matched %r)" % (m.group(0), e))
    if a.json:
        rd = os.path.join(wd, "results")
        recs = sorted(f for f in os.listdir(rd) if f.endswith(".json")) if os.path.isdir(rd) else []
        if len(recs) != a.runs:
            fails.append("expected %d JSON record(s) in %s, found %r" % (a.runs, rd, recs))
        for r in recs:
            err = check_record(os.path.join(rd, r), want_exit)
            if err:
                fails.append(err)
            for spec in a.json_field:
                err = json_field(os.path.join(rd, r), spec)
                if err:
                    fails.append(err)
            for spec in a.json_num:
                err = json_num(os.path.join(rd, r), spec)
                if err:
                    fails.append(err)
        left = [f for f in os.listdir(rd)] if os.path.isdir(rd) else []
        tmp = [f for f in left if ".tmp" in f]
        if tmp:
            fails.append("temporary files left in %s: %r" % (rd, tmp))
    for f in a.expect_file:
        path = os.path.join(wd, f)
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            fails.append("expected a non-empty file %s" % path)
        elif f.endswith(".png"):
            with open(path, "rb") as fh:
                if fh.read(8) != b"\x89PNG\r\n\x1a\n":
                    fails.append("%s is not a PNG file" % path)
    if a.no_files:
        left = []
        for root, dirs, files in os.walk(wd):
            left += [os.path.relpath(os.path.join(root, f), wd) for f in files + dirs]
        if left:
            fails.append("files left in %s: %r" % (wd, left))
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("PASS")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
