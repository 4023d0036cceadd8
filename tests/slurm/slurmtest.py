#!/usr/bin/env python3
"""End-to-end checks of jobs/*.slurm and jobs/scaling.sh on the private test cluster.

slurmtest.py job   --cluster DIR --src SRC --bindir BUILD --workdir W --script NAME.slurm
                   [--require FILE]... [--args-file FILE] [--write NAME=TEXT]... [--env K=V]...
                   [--no-build-link] [--no-config-link] [--build-hello MPICC] [--sbatch OPT]... [--state S] [--exit A:B | --exit-nonzero]
                   [--expect REGEX]... [--records N] [--record-status S] [--ranks R]
                   [--record-key section.key=value]... [--gpus N] [--timeout S]
                   [--nodes N] [--same-as SBATCH_OPT]... [--rtol R] [--atol A] [--within S]
                   [--host-in-log RANK:HOST]... [-- JOB ARGS...]
slurmtest.py study --cluster DIR --src SRC --bindir BUILD --workdir W --gpus 1,2,4
                   [--study-exit N] [--rows LIST] [--records N] [--expect REGEX]...
                   [--nodes-col LIST]
                   [--timeout S] -- SCALING ARGS...

job: submits SRC/jobs/NAME.slurm with sbatch from the fresh folder W exactly as a user submits
from the project root (W/build -> BUILD and W/config -> SRC/config are links, so the script finds
build/hybrid and config/*.ini itself), polls `scontrol show job` until the job has ended, then
checks Slurm's JobState and ExitCode, the log (StdOut) against the regexes, the JSON records in
W/results/JOBID/ (count, status, ranks, config values) and, with --gpus N, that the job's binding
lines show N distinct CUDA_VISIBLE_DEVICES.  --require: exit 77 (skipped) when a file is missing,
e.g. a workload's config that has not landed yet.  --args-file: extra job arguments, one per
line (# comments), appended after the ones given on the command line.
study: runs SRC/jobs/scaling.sh SCALING ARGS --gpus LIST --wait --out W/study in W and checks the
records, report.md/.csv (one row per GPU count, or per --rows) and the two PNG plots.
Two-node cluster (cluster.py start --nodes 2): every client command runs in its first namespace
(nsenter --net, from CLUSTER/netns); --nodes 2 checks the log's and the record's node count and
that each host's ranks have node-local ranks 0..k-1 (record devices, selftest table); --same-as
runs the job a second time with other sbatch options (-N 1 --ntasks=4) and requires the same
metrics and validation figures (timings aside; floats within --rtol) and the same output files
(.npy within --rtol/--atol, others byte-identical).
Exit 0 pass, 1 fail, 77 skipped.  Every wait has a timeout; a job still running at the timeout
is cancelled.
"""
import argparse, csv, glob, json, os, re, shutil, subprocess, sys, time

TERMINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
            "BOOT_FAIL", "DEADLINE", "PREEMPTED")
SKIP = 77


class Fail(Exception):
    pass


def env_for(a, extra=()):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("HYBRID_", "SLURM_", "SBATCH_"))}
    e["SLURM_CONF"] = os.path.join(os.path.abspath(a.cluster), "slurm.conf")
    for kv in extra:
        k, _, v = kv.partition("=")
        e[k] = v
    return e


PREFIX = []  # nsenter into the two-node cluster's first namespace (cluster.py prefix)


def run(cmd, cwd, env, timeout):
    cmd = PREFIX + cmd
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        raise Fail("timed out after %.0f s: %s\n%s" % (timeout, " ".join(cmd),
                                                        (e.stdout or b"").decode(errors="replace")))


def fresh_workdir(a):
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    if not getattr(a, "no_build_link", False):
        os.symlink(os.path.abspath(a.bindir), os.path.join(a.workdir, "build"))
    if not getattr(a, "no_config_link", False):
        os.symlink(os.path.join(os.path.abspath(a.src), "config"), os.path.join(a.workdir, "config"))


def job_info(jobid, a, env):
    rc, out = run(["scontrol", "show", "job", "-o", jobid], a.workdir, env, 15)
    if rc != 0:
        raise Fail("scontrol show job %s failed: %s" % (jobid, out))
    return dict(re.findall(r"(\w+)=(\S*)", out))


def wait_job(jobid, a, env):
    t0 = time.time()
    while True:
        info = job_info(jobid, a, env)
        if info.get("JobState") in TERMINAL:
            return info, time.time() - t0
        if time.time() - t0 > a.timeout:
            run(["scancel", jobid], a.workdir, env, 15)
            raise Fail("job %s still %s after %.0f s: cancelled" % (jobid, info.get("JobState"),
                                                                      a.timeout))
        time.sleep(0.25)


def cfg_value(rec, dotted):
    sec, _, key = dotted.partition(".")
    return str((rec.get("config") or {}).get(sec, {}).get(key))


def check_records(a, jobid, log):
    recs = sorted(glob.glob(os.path.join(a.workdir, "results", jobid, "*.json")))
    if a.records is not None and len(recs) != a.records:
        raise Fail("%d record(s) in results/%s, expected %d" % (len(recs), jobid, a.records))
    for path in recs:
        with open(path) as f:
            rec = json.load(f)
        for k in ("workload", "status", "exit_code", "ranks", "phases", "config", "validation"):
            if k not in rec:
                raise Fail("record %s lacks '%s'" % (path, k))
        if a.record_status and rec["status"] != a.record_status:
            raise Fail("record %s: status %r, expected %r" % (path, rec["status"], a.record_status))
        if a.ranks is not None and rec["ranks"] != a.ranks:
            raise Fail("record %s: %r ranks, expected %d" % (path, rec["ranks"], a.ranks))
        if cfg_value(rec, "output.dir") != "results/%s" % jobid:
            raise Fail("record %s: output.dir %r, expected results/%s" % (
                path, cfg_value(rec, "output.dir"), jobid))
        for kv in a.record_key:
            k, _, v = kv.partition("=")
            if cfg_value(rec, k) != v:
                raise Fail("record %s: %s = %r, expected %r" % (path, k, cfg_value(rec, k), v))
        for kv in a.record_field:
            k, _, v = kv.partition("=")
            got = rec
            for part in k.split("."):
                got = got.get(part) if isinstance(got, dict) else None
            if json.dumps(got) != v and str(got) != v:
                raise Fail("record %s: %s = %r, expected %s" % (path, k, got, v))
            print("ok: record %s = %s" % (k, v))
        print("ok: record %s: %s, %d rank(s), backend %s, exit %s" % (
            os.path.relpath(path, a.workdir), rec["status"], rec["ranks"], rec.get("backend"),
            rec["exit_code"]))
    return recs


def submit(a, sbatch, args, env, tag="run"):
    """sbatch the job script from W, wait for the end; returns (jobid, info, log, log path).
    "{run}" in an argument becomes tag, and W/tag/ exists (output files of one run)"""
    os.makedirs(os.path.join(a.workdir, tag), exist_ok=True)
    args = [x.replace("{run}", tag) for x in args]
    script = os.path.join(os.path.abspath(a.src), "jobs", a.script)
    cmd = ["sbatch", "--parsable"] + sbatch + [script] + args
    print("run: (cd %s && %s)" % (a.workdir, " ".join(cmd)))
    rc, out = run(cmd, a.workdir, env, 30)
    if rc != 0:
        raise Fail("sbatch exited %d: %s" % (rc, out))
    jobid = out.strip().split(";")[0].splitlines()[-1]
    info, dt = wait_job(jobid, a, env)
    log_path = info.get("StdOut", "")
    try:
        with open(log_path, errors="replace") as f:
            log = f.read()
    except OSError as e:
        raise Fail("job %s: cannot read its log %r: %s" % (jobid, log_path, e))
    print("---- %s" % log_path)
    print(log.rstrip())
    print("----")
    print("job %s: JobState=%s ExitCode=%s after %.1f s" % (jobid, info.get("JobState"),
                                                         info.get("ExitCode"), dt))
    if a.within is not None and dt > a.within:
        raise Fail("job %s took %.1f s, expected at most %.0f s" % (jobid, dt, a.within))
    return jobid, info, log, log_path


def check_nodes(a, recs, log):
    """--nodes: the log's job line, the record's nodes field, and binding by node-local rank
    (each host's ranks have node_rank 0..k-1 in the record; in the selftest table too)"""
    want = "on %d node(s)" % a.nodes
    if not re.search(r"^job: .* task\(s\) %s" % re.escape(want), log, re.M):
        raise Fail("log's job line does not say '%s'" % want)
    for path in recs:
        with open(path) as f:
            rec = json.load(f)
        if rec.get("nodes") != a.nodes:
            raise Fail("record %s: nodes %r, expected %d" % (path, rec.get("nodes"), a.nodes))
        by_host = {}
        for dev in rec.get("devices") or []:
            by_host.setdefault(dev["host"], []).append(dev["node_rank"])
        if len(by_host) != a.nodes or any(sorted(v) != list(range(len(v)))
                                          for v in by_host.values()):
            raise Fail("record %s: node-local ranks per host %s (expected 0..k-1 on each of %d "
                       "hosts)" % (path, by_host, a.nodes))
        print("ok: record says %d nodes; node-local ranks per host %s" % (a.nodes, by_host))
    table = re.findall(r"^\s+(\d+)\s+(\S+)\s+(\d+)\s+\S+\s+-?\d+\s", log.split(
        "ranks ", 1)[1], re.M) if re.search(r"^ranks \d+ on \d+ node", log, re.M) else None
    if table is not None:
        by_host = {}
        for rank, host, local in table:
            by_host.setdefault(host, []).append(int(local))
        if len(by_host) != a.nodes or any(sorted(v) != list(range(len(v)))
                                          for v in by_host.values()):
            raise Fail("selftest rank table: node-local ranks per host %s" % by_host)
        print("ok: selftest table: node-local ranks per host %s" % by_host)


# timings and rates (and spai's iteration time over its floor) vary from run to run
TIMING = re.compile(r"seconds|time|gflops|gb_?ps|_s$|_ms$|_us$|per_s|floor|bandwidth|rate|wall", re.I)


def close(x, y, rtol):
    if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, (int, float)):
        return x == y
    if isinstance(x, int) and isinstance(y, int):
        return x == y
    return abs(x - y) <= rtol * max(abs(x), abs(y)) or x == y


def same_text(a, px, py):
    """two text files alike token by token: numbers within --rtol/--atol, words identical"""
    try:
        with open(px) as f1, open(py) as f2:
            ta, tb = f1.read().split(), f2.read().split()
    except UnicodeDecodeError:
        return False
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        try:
            u, v = float(x.rstrip(",")), float(y.rstrip(","))
        except ValueError:
            return False
        if not abs(u - v) <= a.atol + a.rtol * max(abs(u), abs(v)):
            return False
    return True


def compare_files(a, dir_a, dir_b):
    """every file but the records: .npy within --rtol/--atol, text numbers likewise, others
    byte-identical; returns the names"""
    files = lambda d: sorted(f for f in os.listdir(d) if not f.endswith(".json"))
    fa, fb = files(dir_a), files(dir_b)
    if fa != fb:
        raise Fail("output files differ: %s in %s, %s in %s" % (fa, dir_a, fb, dir_b))
    out = []
    for x in fa:
        px, py = os.path.join(dir_a, x), os.path.join(dir_b, x)
        with open(px, "rb") as f1, open(py, "rb") as f2:
            same = f1.read() == f2.read()
        out.append(x + (" (identical)" if same else " (within tolerance)"))
        if same:
            continue
        if x.endswith(".npy"):
            import numpy
            u, v = numpy.load(px), numpy.load(py)
            if u.shape == v.shape and u.dtype == v.dtype and numpy.allclose(
                    u, v, rtol=a.rtol, atol=a.atol, equal_nan=True):
                continue
        elif not x.endswith(".png") and same_text(a, px, py):
            continue
        raise Fail("%s and %s differ (beyond rtol %g atol %g)" % (px, py, a.rtol, a.atol))
    return out


def compare_runs(a, rec_a, rec_b, dirs):
    """the two-node run against the one-node run: metrics (timings aside), the validation value
    and every output file (compare_files) in each pair of dirs"""
    with open(rec_a) as f:
        ra = json.load(f)
    with open(rec_b) as f:
        rb = json.load(f)
    n = 0
    for sec in ("metrics", "validation"):
        ma, mb = ra.get(sec) or {}, rb.get(sec) or {}
        for k in sorted(set(ma) | set(mb)):
            if TIMING.search(k):
                continue
            if not close(ma.get(k), mb.get(k), a.rtol):
                raise Fail("%s.%s: %r on %d nodes, %r on 1 node (rtol %g)" % (
                    sec, k, ma.get(k), a.nodes, mb.get(k), a.rtol))
            n += 1
    names = []
    for dir_a, dir_b in dirs:
        names += compare_files(a, dir_a, dir_b)
    if any("{run}" in x for x in a.jobargs) and not names:
        raise Fail("the runs were to write output files ({run} in the arguments) and wrote none")
    print("ok: same result as on one node: %d metric/validation figures (rtol %g), %d output "
          "file(s) %s" % (n, a.rtol, len(names), ", ".join(names)))


def cmd_job(a):
    for req in a.require:
        if not os.path.exists(req):
            print("SKIP: %s does not exist yet (the test runs once it does)" % req)
            return SKIP
    args = list(a.jobargs)
    if a.args_file:
        with open(a.args_file) as f:
            args += [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]
    fresh_workdir(a)
    for w in a.write:
        name, _, text = w.partition("=")
        with open(os.path.join(a.workdir, name), "w") as f:
            f.write(text.replace("\\n", "\n"))
    extra = list(a.env)
    if a.build_hello:
        hello = os.path.join(a.workdir, "mpi_hello")
        src = os.path.join(os.path.abspath(a.src), "tests", "slurm", "mpi_hello.c")
        rc, out = run([a.build_hello, src, "-o", hello], a.workdir, None, 120)
        if rc != 0:
            raise Fail("%s %s failed: %s" % (a.build_hello, src, out))
        extra.append("HYBRID_BIN=" + hello)
    env = env_for(a, extra)
    jobid, info, log, log_path = submit(a, a.sbatch, args, env, "out-%dnodes" % (a.nodes or 1))
    if not re.fullmatch(r"hybrid-[a-z]+-%s\.out" % jobid, os.path.basename(log_path)):
        raise Fail("log %s is not named <job name>-<job id>.out" % log_path)
    if info.get("JobState") != a.state:
        raise Fail("JobState=%s, expected %s" % (info.get("JobState"), a.state))
    ec = info.get("ExitCode", "")
    if a.exit_nonzero:
        if ec.startswith("0:") or not ec:
            raise Fail("ExitCode=%s, expected a nonzero exit" % ec)
    elif ec != a.exit:
        raise Fail("ExitCode=%s, expected %s" % (ec, a.exit))
    for rx in a.expect:
        if not re.search(rx, log, re.M):
            raise Fail("log lacks /%s/" % rx)
        print("ok: log has /%s/" % rx)
    if a.gpus is not None:
        # distinct per host: on two nodes each node's tasks get that node's devices
        devs = re.findall(r"^job:\s+task \d+ on (\S+): CUDA_VISIBLE_DEVICES=(\S+)", log, re.M)
        if len(set(devs)) != a.gpus or len(devs) != a.gpus:
            raise Fail("binding lines show devices %s, expected %d distinct" % (devs, a.gpus))
        print("ok: %d tasks with distinct CUDA_VISIBLE_DEVICES %s" % (
            len(devs), ",".join("%s:%s" % d for d in devs)))
    for h in a.host_in_log:
        rx = r"rank %s on %s\b" % tuple(h.split(":", 1))
        if not re.search(rx, log, re.M):
            raise Fail("log lacks the failing rank's host: /%s/" % rx)
        print("ok: log has /%s/" % rx)
    recs = check_records(a, jobid, log)
    if a.nodes is not None:
        check_nodes(a, recs, log)
    if a.same_as:
        jid2, info2, log2, _ = submit(a, a.same_as, args, env, "out-1node")
        if info2.get("JobState") != "COMPLETED" or len(recs) != 1:
            raise Fail("reference job %s: %s" % (jid2, info2.get("JobState")))
        recs2 = sorted(glob.glob(os.path.join(a.workdir, "results", jid2, "*.json")))
        if len(recs2) != 1:
            raise Fail("reference job %s: %d records" % (jid2, len(recs2)))
        compare_runs(a, recs[0], recs2[0], [
            (os.path.join(a.workdir, "results", jobid), os.path.join(a.workdir, "results", jid2)),
            (os.path.join(a.workdir, "out-%dnodes" % (a.nodes or 1)),
             os.path.join(a.workdir, "out-1node"))])
    return 0


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 2000


def cmd_study(a):
    fresh_workdir(a)
    env = env_for(a, a.env)
    out = os.path.join(a.workdir, "study")
    script = os.path.join(os.path.abspath(a.src), "jobs", "scaling.sh")
    cmd = [script] + a.jobargs[:1] + ["--gpus", a.gpus, "--wait", "--timeout",
                                      str(int(a.timeout)), "--out", out] + a.jobargs[1:]
    print("run: (cd %s && %s)" % (a.workdir, " ".join(cmd)))
    t0 = time.time()
    rc, text = run(cmd, a.workdir, env, a.timeout + 60)
    print(text.rstrip())
    print("scaling.sh exited %d after %.1f s" % (rc, time.time() - t0))
    if rc != a.study_exit:
        raise Fail("scaling.sh exited %d, expected %d" % (rc, a.study_exit))
    for rx in a.expect:
        if not re.search(rx, text, re.M):
            raise Fail("scaling.sh output lacks /%s/" % rx)
        print("ok: output has /%s/" % rx)
    plist = [int(p) for p in (a.rows or a.gpus).split(",")]
    repeat = int(a.jobargs[a.jobargs.index("--repeat") + 1]) if "--repeat" in a.jobargs else 1
    recs = glob.glob(os.path.join(out, "records", "*", "*.json"))
    want = a.records if a.records is not None else len(plist) * repeat
    if len(recs) != want:
        raise Fail("%d records, expected %d" % (len(recs), want))
    with open(os.path.join(out, "report.csv")) as f:
        rows = list(csv.DictReader(f))
    got = [int(r["gpus"]) for r in rows]
    if got != plist:
        raise Fail("report.csv has GPU counts %s, expected %s" % (got, plist))
    if a.nodes_col:
        want_n = [int(x) for x in a.nodes_col.split(",")]
        got_n = [int(r["nodes"]) for r in rows]
        if got_n != want_n:
            raise Fail("report.csv has node counts %s, expected %s" % (got_n, want_n))
        print("ok: report.csv nodes column %s" % got_n)
    if any(int(r["runs"]) != repeat or int(r["passed"]) != repeat for r in rows):
        raise Fail("report.csv: runs/passed per GPU count are not %d/%d" % (repeat, repeat))
    base = rows[0]
    for r in rows:
        t, sp, ef = float(r["total_s"]), float(r["speedup"]), float(r["efficiency"])
        if not (t > 0 and sp > 0 and ef > 0):
            raise Fail("report.csv row %s: time/speedup/efficiency not positive" % r)
        p, p0, t0 = int(r["gpus"]), int(base["gpus"]), float(base["total_s"])
        want = t0 / t if r["mode"] == "weak" else t0 / t * p0 / p
        if abs(ef - want) > 1e-9 * want:
            raise Fail("report.csv row gpus=%d: efficiency %g, expected %g" % (p, ef, want))
    for k in a.size_key:
        key, _, n1 = k.partition("=")
        for r in rows:
            want = int(n1) * int(r["gpus"])
            if int(r[key]) != want:
                raise Fail("report.csv gpus=%s: %s = %s, expected %d (weak, linear)" % (
                    r["gpus"], key, r[key], want))
        print("ok: %s scales with the GPU count" % key)
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    for rx in a.md_expect:
        if not re.search(rx, md, re.M):
            raise Fail("report.md lacks /%s/" % rx)
        print("ok: report.md has /%s/" % rx)
    for i, p in enumerate(plist):
        rx = r"^\| %d \|" % p if not a.nodes_col else r"^\| %d \| %s \|" % (
            p, a.nodes_col.split(",")[i])
        if not re.search(rx, md, re.M):
            raise Fail("report.md has no row /%s/" % rx)
    for png in ("report-time.png", "report-efficiency.png"):
        if not is_png(os.path.join(out, png)):
            raise Fail("%s is missing or not a PNG" % png)
    print("ok: %d records, report.md/.csv rows for GPUs %s, 2 PNG plots" % (len(recs), a.gpus))
    return 0


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("action", choices=["job", "study"])
    ap.add_argument("--cluster", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--script")
    ap.add_argument("--require", action="append", default=[])
    ap.add_argument("--args-file")
    ap.add_argument("--write", action="append", default=[])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--no-build-link", action="store_true")
    ap.add_argument("--no-config-link", action="store_true",
                    help="no W/config link (an installed job script finds its config itself)")
    ap.add_argument("--build-hello", metavar="MPICC",
                    help="compile tests/slurm/mpi_hello.c with MPICC and run it (HYBRID_BIN)")
    ap.add_argument("--sbatch", action="append", default=[])
    ap.add_argument("--state", default="COMPLETED")
    ap.add_argument("--exit", default="0:0")
    ap.add_argument("--exit-nonzero", action="store_true")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--records", type=int)
    ap.add_argument("--record-status")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--record-key", action="append", default=[])
    ap.add_argument("--record-field", action="append", default=[], metavar="PATH=VALUE",
                    help="job: the record's value at the dotted PATH (e.g. validation.petsc.status=passed)")
    ap.add_argument("--gpus")
    ap.add_argument("--size-key", action="append", default=[])
    ap.add_argument("--study-exit", type=int, default=0, help="study: scaling.sh's exit code")
    ap.add_argument("--md-expect", action="append", default=[], help="study: regex in report.md")
    ap.add_argument("--nodes-col", help="study: the report's nodes column, e.g. 1,2")
    ap.add_argument("--rows", help="study: GPU counts expected in the report (default --gpus)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--nodes", type=int, help="job: the record's and log's node count, and "
                    "binding by node-local rank")
    ap.add_argument("--same-as", action="append", default=[], metavar="SBATCH_OPT",
                    help="job: run again with these sbatch options (e.g. -N1 --ntasks=4) and "
                    "compare the results")
    ap.add_argument("--rtol", type=float, default=0.0)
    ap.add_argument("--atol", type=float, default=0.0)
    ap.add_argument("--within", type=float, help="job: the job must end within S seconds")
    ap.add_argument("--host-in-log", action="append", default=[], metavar="RANK:HOST",
                    help="job: the log has 'rank RANK on HOST'")
    # everything after the first "--" goes to the job (or to scaling.sh) untouched
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.jobargs = argv[cut + 1:]
    try:
        with open(os.path.join(a.cluster, "netns")) as f:
            PREFIX[:] = ["nsenter", "--net=/run/netns/" + f.read().split()[0]]
    except OSError:
        pass
    try:
        if a.action == "job":
            a.gpus = int(a.gpus) if a.gpus else None
            return cmd_job(a)
        return cmd_study(a)
    except Fail as e:
        print("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
