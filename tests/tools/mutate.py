#!/usr/bin/env python3
"""Mutation testing: plant one small bug at a time and see whether the tests catch it.

    tests/tools/mutate.py [--list] [--only NAME,...] [--match REGEX] [--jobs N] [--keep]
                          [--scratch DIR] [--no-baseline] [--all-failures] [--timeout S] [MUTATIONS]

MUTATIONS (default tests/tools/mutations.txt) holds one mutation a line, fields separated by
" ||| ":
    NAME ||| FILE ||| OLD TEXT ||| NEW TEXT ||| CTEST ARGUMENTS
FILE is relative to the project root; OLD TEXT must occur exactly once in it (else the
mutation is "stale": the code moved on, refresh the line); CTEST ARGUMENTS choose the subset
that should kill it (e.g. "-R ^config_" or "-L unit"; default "-L unit").  '#' starts a
comment line; <NL> in OLD or NEW TEXT stands for a line break (to make a text unique).

The source tree is never modified: the tracked and untracked-but-not-ignored files are copied
to a scratch folder (default /tmp/hy-mutate-<user>/src, with ../shared linked beside it so that
the tests find ../shared/matrices), built once there host-only (-DHYBRID_CUDA=OFF, ccache when
present), and each mutation is planted in the copy, rebuilt incrementally, its subset run, and
the file restored.  Each subset is first run unmutated (the baseline): a subset that fails
without a mutation cannot judge one.

Prints a table (mutation, file, subset, result: killed / SURVIVED / stale / build-error /
baseline-failed, the first failing tests) and a summary; exits 1 when a mutation survived or
was stale, 0 when every one was killed.  --list only checks that each OLD TEXT occurs exactly
once (fast: no build).  Slow (minutes per subset): not in CI.
"""
import argparse, os, re, shlex, shutil, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEP = " ||| "


def parse(path):
    muts = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split(SEP)
            if len(parts) not in (4, 5):
                sys.exit("%s:%d: want NAME ||| FILE ||| OLD ||| NEW [||| CTEST ARGS], got %d field(s)"
                         % (path, ln, len(parts)))
            name, file, old, new = (p.strip() if i < 2 else p for i, p in enumerate(parts[:4]))
            subset = parts[4].strip() if len(parts) == 5 and parts[4].strip() else "-L unit"
            old, new = old.replace("<NL>", "\n"), new.replace("<NL>", "\n")
            muts.append(dict(name=name, file=file, old=old, new=new, subset=subset, line=ln))
    return muts


def staleness(m, root):
    p = os.path.join(root, m["file"])
    if not os.path.isfile(p):
        return "stale (no file %s)" % m["file"]
    n = open(p, errors="replace").read().count(m["old"])
    if n != 1:
        return "stale (old text occurs %d times)" % n
    return None


def run(cmd, cwd, timeout=None, log=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace") + "\n(timed out)", 124
    if log:
        with open(log, "a") as f:
            f.write("==== %s (exit %d, %.1f s)\n%s\n" % (" ".join(cmd), rc, time.time() - t0, out))
    return rc, out


def copy_tree(root, dst):
    """Tracked and untracked-not-ignored files of root into dst (fresh)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root,
                           stdout=subprocess.PIPE, check=True).stdout.decode().split("\0")
    if os.path.isdir(dst):  # (copy2 keeps mtimes: a kept build folder stays incremental)
        shutil.rmtree(dst)
    for f in files:
        if not f or not os.path.isfile(os.path.join(root, f)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, f)) or dst, exist_ok=True)
        shutil.copy2(os.path.join(root, f), os.path.join(dst, f))
    # git describe for the version header: a .git file pointing nowhere would break it; none
    shared = os.path.join(os.path.dirname(root), "shared")
    link = os.path.join(os.path.dirname(dst), "shared")
    if os.path.isdir(shared) and not os.path.exists(link):
        os.symlink(shared, link)


def failing(out):
    return [m.group(1) for m in re.finditer(r"^\s*\d+ - (\S+) \(", out, re.M)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mutations", nargs="?", default=os.path.join(ROOT, "tests", "tools", "mutations.txt"))
    ap.add_argument("--list", action="store_true", help="only check for stale lines")
    ap.add_argument("--only", default="", help="comma-separated mutation names")
    ap.add_argument("--match", default="", help="regex on mutation names or files")
    ap.add_argument("--jobs", type=int, default=2, help="build and ctest parallelism")
    ap.add_argument("--scratch", default="/tmp/hy-mutate-%s" % os.environ.get("USER", "user"))
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per ctest subset")
    ap.add_argument("--cmake-args", default="", help="extra configure options")
    ap.add_argument("--all-failures", action="store_true",
                    help="run a mutation's whole subset (default: stop at the first failing test)")
    a = ap.parse_args()
    muts = parse(a.mutations)
    if a.only:
        want = set(a.only.split(","))
        muts = [m for m in muts if m["name"] in want]
    if a.match:
        muts = [m for m in muts if re.search(a.match, m["name"] + " " + m["file"])]
    results = []
    live = []
    for m in muts:
        s = staleness(m, ROOT)
        if s:
            results.append((m, s, ""))
        else:
            live.append(m)
    if a.list:
        for m, s, _ in results:
            print("%-28s %-36s %s" % (m["name"], m["file"], s))
        print("mutate: %d mutation(s), %d stale" % (len(muts), len(results)))
        return 1 if results else 0

    src = os.path.join(a.scratch, "src")
    bld = os.path.join(a.scratch, "build")
    log = os.path.join(a.scratch, "mutate.log")
    os.makedirs(a.scratch, exist_ok=True)
    open(log, "w").close()
    print("mutate: copying %s to %s (log: %s)" % (ROOT, src, log), flush=True)
    copy_tree(ROOT, src)
    env_launch = ["-DCMAKE_C_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
    os.environ.setdefault("CCACHE_BASEDIR", os.path.dirname(ROOT))
    cfg = ["cmake", "-S", src, "-B", bld, "-DHYBRID_CUDA=OFF"] + env_launch + shlex.split(a.cmake_args)
    rc, out = run(cfg, a.scratch, log=log)
    if rc == 0:
        rc, out = run(["cmake", "--build", bld, "-j", str(a.jobs)], a.scratch, log=log)
    if rc != 0:
        print(out[-3000:])
        sys.exit("mutate: the unmutated copy does not configure/build (see %s)" % log)
    base = ["ctest", "-j", str(a.jobs), "--timeout", "300"]
    # a mutation is killed by its first failing test: stop there (unless --all-failures)
    mut_ctest = lambda subset: base + ([] if a.all_failures else ["--stop-on-failure"]) + shlex.split(subset)
    ctest = lambda subset: base + shlex.split(subset)
    bad_base = {}
    if not a.no_baseline:
        for subset in sorted(set(m["subset"] for m in live)):
            t0 = time.time()
            rc, out = run(ctest(subset), bld, a.timeout, log)
            print("mutate: baseline %-40s %s (%.0f s)" % (subset, "ok" if rc == 0 else
                  "FAILS: " + " ".join(failing(out)[:5]), time.time() - t0), flush=True)
            if rc != 0:
                bad_base[subset] = failing(out)
    for m in live:
        path = os.path.join(src, m["file"])
        orig = open(path, errors="surrogateescape").read()
        if m["subset"] in bad_base:
            results.append((m, "baseline-failed", " ".join(bad_base[m["subset"]][:3])))
            continue
        t0 = time.time()
        with open(path, "w", errors="surrogateescape") as f:
            f.write(orig.replace(m["old"], m["new"], 1))
        try:
            rc, out = run(["cmake", "--build", bld, "-j", str(a.jobs)], a.scratch, log=log)
            if rc != 0:
                res, why = "build-error", ""
            else:
                rc, out = run(mut_ctest(m["subset"]), bld, a.timeout, log)
                fl = failing(out)
                res, why = ("killed", " ".join(fl[:3]) + (" +%d" % (len(fl) - 3) if len(fl) > 3 else "")) \
                    if rc != 0 else ("SURVIVED", "")
        finally:
            with open(path, "w", errors="surrogateescape") as f:
                f.write(orig)
        print("mutate: %-28s %-9s %5.0f s  %s" % (m["name"], res, time.time() - t0, why), flush=True)
        results.append((m, res, why))
    run(["cmake", "--build", bld, "-j", str(a.jobs)], a.scratch, log=log)  # leave it unmutated

    print("\n| mutation | file | subset | result | caught by |")
    print("|---|---|---|---|---|")
    order = {id(m): i for i, m in enumerate(muts)}
    for m, res, why in sorted(results, key=lambda r: order[id(r[0])]):
        print("| %s | %s | `%s` | %s | %s |" % (m["name"], m["file"], m["subset"].replace("|", "\\|"), res, why))
    count = lambda k: sum(1 for _, r, _ in results if r.startswith(k))
    print("\nmutate: %d mutation(s): %d killed, %d survived, %d stale, %d build-error, %d baseline-failed"
          % (len(results), count("killed"), count("SURVIVED"), count("stale"), count("build-error"),
             count("baseline-failed")))
    if not a.keep:
        shutil.rmtree(a.scratch, ignore_errors=True)
    return 1 if count("SURVIVED") or count("stale") else 0


if __name__ == "__main__":
    sys.exit(main())
