#!/usr/bin/env python3
"""Reliability checks (issue 20), driven by ctest.

rel_check.py --hybrid BIN --mpiexec MPIEXEC [--np-flag -n] [--preflags ..] --workdir DIR MODE
  npy       .npy points for lle (through the shared strict reader of app/io): shapes whose
            element count overflows (exit 2, no crash); 'fortran_order':True written without
            blanks read as Fortran order (the same neighbour lists as the C-order file);
            structured dtypes, also with field names containing '<f8', refused (exit 2)
  csv       a malformed first CSV row ("1,,3") is an error naming line 1, not a header
  scale     lle on coordinates scaled by 1e160 and 1e-160: the same neighbour lists as unscaled,
            and the same embedding (a full run, each column up to its sign, within 1e-9 of the
            unscaled embedding's largest entry: the scale is a power of two, the rest rounding)
  fsize     a file-size limit (RLIMIT_FSIZE, 2 ranks) during every output a workload writes (table
            OUTPUTS): exit 5, a message naming the file and errno ("File too large"), no file
            under the final name, no *.tmp* left, an earlier record intact
  config    long values refused, never truncated (run.name of 5000 characters, output.dir of
            1303, a path key of 1100; 1023 characters accepted and kept whole); non-UTF-8 bytes in
            a value written as \\u00XX so that the record is valid JSON (valid UTF-8 kept); a
            denormal (1e-320) inside a key's range accepted; a bare CR in a config file (in a
            comment, a header, a value) refused naming the line, CR LF and a CR at the end read
  same      an output naming an input file (same string, another spelling of the path, a hard
            link, a symlink) or two outputs naming one file: exit 1 naming both keys, the input
            unchanged, nothing written; distinct names still run
  symlink   symlinks planted at the old predictable temporary names (NAME.tmp.PID,
            .record.tmp.HOST.PID) do not make hybrid write outside the output folder
  unreadable  an input file without read permission (mode 000; as root the runs drop to user
            nobody with setpriv, root reads any file): exit 2 and "cannot open: Permission denied"
            naming the file, for hybrid --inspect, gauss.file (1 rank), matrix.file of spai and
            gemm.a_file (2 ranks); the same file readable runs
  ulimit    real memory exhaustion on one rank (table ULIMIT): 2 ranks in mpiexec's MPMD form, rank 1
            under `ulimit -v` (RLIMIT_AS) only; a small run of the workload passes under that limit
            (so the limit alone breaks nothing), then a size whose biggest allocation on rank 1 does
            not fit (rank 0 unlimited) must end within 10 s: exit 5, rank 1's message with its host,
            naming the allocation and its bytes (parsed, at least MIN), no output file, no *.tmp*
Exit 0 pass, 1 fail.
"""
import argparse, glob, json, os, re, resource, shutil, socket, subprocess, sys, time

import numpy as np

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    print("ok   " + msg)


# UCX (MPICH's netmod) fills shared-memory files in /dev/shm at MPI_Init (its posix transport),
# which a file-size limit would hit before hybrid runs, and so does MPICH its own shared-memory
# file: the fsize runs use no node-local shared memory of MPICH's (NOLOCAL) and UCX over System V
# shared memory and CMA only (segments, not files).  Not over TCP: with MPICH 4.0 + UCX 1.13 over
# TCP, 2 of ~150 runs under load hung in MPI_Finalize (rank 0 in the PMI barrier, rank 1 in
# ucp_worker_progress flushing its endpoint to rank 0, which no longer progresses), a race of
# the library's finalize, not hybrid's (the backtraces rel_check prints on a hang showed it).
NO_SHM_FILES = {"UCX_TLS": "self,sysv,cma", "MPIR_CVAR_NOLOCAL": "1"}


def run(a, np_, args, wd, want_exit=0, fsize=None, direct=False, shell_prefix=None, env=None):
    os.makedirs(wd, exist_ok=True)
    cmd = [a.hybrid] + args if direct else [a.mpiexec, a.np_flag, str(np_)] + a.preflags.split() + [a.hybrid] + args
    pre = None
    if fsize is not None:
        def pre():
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    if shell_prefix:
        cmd = ["sh", "-c", shell_prefix + ' exec "$@"', "sh"] + cmd
    p = subprocess.Popen(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=pre,
                         env=dict(os.environ, **(env or {})), start_new_session=True)
    try:
        raw, _ = p.communicate(timeout=a.run_timeout)
    except subprocess.TimeoutExpired:
        # a hang: show where every process of the job waits, then end the job (its process group)
        print("HANG after %d s: %s" % (a.run_timeout, " ".join(cmd)))
        subprocess.run("for q in $(pgrep -f '%s'); do [ \"$(readlink /proc/$q/cwd)\" = '%s' ] || continue; "
                       "ps -o pid,stat,wchan:24,args -p $q; timeout 30 gdb -p $q -batch -ex 'thread apply all bt 25' "
                       "2>/dev/null | grep -E '^#|^Thread'; done" % (a.hybrid, os.path.realpath(wd)), shell=True)
        os.killpg(p.pid, 9)
        raw, _ = p.communicate()
        fail("%s (in %s): hung (more than %d s)" % (" ".join(cmd), wd, a.run_timeout))
        return None, raw.decode(errors="replace")
    out = raw.decode(errors="replace")
    if want_exit is not None and p.returncode != want_exit:
        print(out)
        fail("%s (in %s): exit %d, expected %d" % (" ".join(cmd), wd, p.returncode, want_exit))
    return p.returncode, out


def npy_bytes(header, data):
    h = header.encode()
    pad = (64 - (10 + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data


def points(n=60, seed=3):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 3 * np.pi, n)
    return np.column_stack([t * np.cos(t), rng.uniform(0, 5, n), t * np.sin(t)])


def knn(a, path, wd, extra=()):
    rc, out = run(a, 1, ["run.workload=lle", "lle.dataset=file", "lle.file=" + path, "lle.k=6",
                         "lle.stage=knn", "output.neighbors=nbr.npy", "output.record=false"] + list(extra), wd)
    f = os.path.join(wd, "nbr.npy")
    return np.load(f) if rc == 0 and os.path.exists(f) else None


def mode_npy(a):
    wd = a.workdir
    X = points()
    good = os.path.join(wd, "c.npy")
    np.save(good, X)
    ref = knn(a, good, os.path.join(wd, "c"))
    fpath = os.path.join(wd, "fortran_noblank.npy")
    with open(fpath, "wb") as f:
        f.write(npy_bytes("{'descr':'<f8','fortran_order':True,'shape':(%d,3)}" % len(X), X.T.copy().tobytes()))
    got = knn(a, fpath, os.path.join(wd, "f"))
    if ref is None or got is None or not np.array_equal(ref, got):
        fail("'fortran_order':True without blanks: neighbour lists differ from the C-order file's")
    else:
        ok("'fortran_order':True without blanks read as Fortran order")
    data = X.tobytes()
    bad = {
        "overflow_2p62x4": ("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 4), }" % 2**62, data,
                            r"header says \d+ values|product of the dimensions overflows"),
        "overflow_2p61p1": ("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 1), }" % (2**61 + 1), data,
                            r"header says \d+ values|product of the dimensions overflows"),
        "overflow_product": ("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (2**40, 2**40), data,
                             r"product of the dimensions overflows"),
        "structured": ("{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (5,), }", data[:60],
                       r"structured dtype"),
        "field_f8": ("{'descr': [('<f8', '<f8')], 'fortran_order': False, 'shape': (60, 3), }", data,
                     r"structured dtype"),
        "void": ("{'descr': '|V8', 'fortran_order': False, 'shape': (60, 3), }", data, r"not a plain numeric dtype"),
        "descr_twice": ("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (60, 3), }", data,
                        r"given twice"),
        "int_dtype": ("{'descr': '<i8', 'fortran_order': False, 'shape': (60, 3), }", data, r"float32 or float64"),
    }
    for name, (hdr, blob, msg) in bad.items():
        path = os.path.join(wd, "bad_%s.npy" % name)
        with open(path, "wb") as f:
            f.write(npy_bytes(hdr, blob))
        rc, out = run(a, 1, ["run.workload=lle", "lle.dataset=file", "lle.file=" + path, "lle.k=6",
                             "lle.stage=knn", "output.record=false"], os.path.join(wd, "bad_" + name), want_exit=2)
        if rc == 2 and re.search(re.escape(path) + ".*" + msg, out):
            ok("bad .npy %s: exit 2, message" % name)
        else:
            print(out)
            fail("bad .npy %s: exit %d, no message matching %r naming the file" % (name, rc, msg))


def mode_csv(a):
    wd = a.workdir
    X = points(30)
    cases = {"first_row_empty_field": "1,,3\n", "first_row_junk": "1,2,x\n"}
    for name, first in cases.items():
        path = os.path.join(wd, name + ".csv")
        with open(path, "w") as f:
            f.write(first)
            np.savetxt(f, X, delimiter=",", fmt="%.17g")
        rc, out = run(a, 1, ["run.workload=lle", "lle.dataset=file", "lle.file=" + path, "lle.k=6",
                             "lle.stage=knn", "output.record=false"], os.path.join(wd, name), want_exit=2)
        if rc == 2 and re.search(re.escape(path) + r":1: column \d is not a number", out):
            ok("CSV %s: exit 2 naming line 1" % name)
        else:
            print(out)
            fail("CSV %s: the malformed first row was not refused naming line 1 (exit %d)" % (name, rc))
    path = os.path.join(wd, "header.csv")
    np.savetxt(path, X, delimiter=",", header="x,y,z", comments="", fmt="%.17g")
    if knn(a, path, os.path.join(wd, "header")) is None:
        fail("CSV with a header line no longer read")
    else:
        ok("CSV with a header line still read")


def mode_scale(a):
    wd = a.workdir
    X = points(80)
    ref = None
    for s in ("1", "1e160", "1e-160"):
        path = os.path.join(wd, "x%s.npy" % s)
        np.save(path, X * float(s))
        got = knn(a, path, os.path.join(wd, "s" + s))
        if s == "1":
            ref = got
        elif ref is None or got is None or not np.array_equal(ref, got):
            fail("coordinates scaled by %s: neighbour lists differ from the unscaled ones" % s)
        else:
            ok("coordinates scaled by %s: same neighbour lists" % s)
    eref = None
    for s in ("1", "1e160", "1e-160"):
        ew = os.path.join(wd, "e" + s)
        rc, out = run(a, 1, ["run.workload=lle", "lle.dataset=file", "lle.file=" + os.path.join(wd, "x%s.npy" % s),
                             "lle.k=6", "output.embedding=e.npy", "output.record=false"], ew)
        f = os.path.join(ew, "e.npy")
        e = np.load(f) if rc == 0 and os.path.exists(f) else None
        if s == "1":
            eref = e
            continue
        if e is None or eref is None or e.shape != eref.shape:
            fail("coordinates scaled by %s: no embedding to compare (exit %s)" % (s, rc))
            continue
        sign = np.where(np.sum(e * eref, axis=0) < 0, -1.0, 1.0)
        d = np.max(np.abs(e * sign - eref)) / np.max(np.abs(eref))
        if not d <= 1e-9:
            fail("coordinates scaled by %s: the embedding differs from the unscaled one by %.3g (relative)" % (s, d))
        else:
            ok("coordinates scaled by %s: the same embedding (max difference %.3g relative)" % (s, d))


# workload, arguments, the output key and the file it names (table of every output written)
G = ["run.workload=gauss", "gauss.n=300"]
S = ["run.workload=spai", "matrix.size=400"]
L = ["run.workload=lle", "lle.n=400", "lle.k=8"]
OUTPUTS = [
    ("gauss", G, "output.solution", "x.mtx"),
    ("gauss", G, "output.matrix", "a.mtx"),
    ("gauss", G, "output.rhs", "b.petsc"),
    ("spai", S, "output.solution", "x.mtx"),
    ("spai", S, "output.preconditioner", "m.mtx"),
    ("lle", L, "output.embedding", "e.csv"),
    ("lle", L, "output.embedding", "e.npy"),
    ("lle", L, "output.matrix", "m.mtx"),
    ("lle", L, "output.points", "p.csv"),
    ("lle", L, "output.neighbors", "n.npy"),
    ("lle", L, "output.eigvecs", "v.mtx"),
    ("sort", ["run.workload=sort", "sort.n=20000"], "output.sort_keys", "k.npy"),
    ("sort", ["run.workload=sort", "sort.n=20000"], "output.sort_input", "i.npy"),
    ("conv", ["run.workload=conv", "conv.width=80", "conv.height=60"], "output.npy", "c.npy"),
    ("gemm", ["run.workload=gemm", "gemm.m=120", "gemm.n=110", "gemm.k=100"], "output.c", "c.mtx"),
    ("gemm", ["run.workload=gemm", "gemm.m=120", "gemm.n=110", "gemm.k=100"], "output.a", "a.mtx"),
    ("record", G, None, None),
]
LIMIT = 2048   # bytes: below every output of the table


def mode_fsize(a):
    for wl, args, key, name in OUTPUTS:
        if a.only and a.only not in (key or "record"):
            continue
        tag = "%s %s" % (wl, key or "record")
        wd = os.path.join(a.workdir, "%s_%s" % (wl, (key or "record").replace(".", "_") + "_" + (name or "")))
        shutil.rmtree(wd, ignore_errors=True)
        rd = os.path.join(wd, "results")
        os.makedirs(rd)
        earlier = os.path.join(rd, "earlier.json")
        with open(earlier, "w") as f:
            f.write('{"earlier": true}\n')
        extra = ["output.dir=results"]
        if key:
            extra.append("%s=%s" % (key, name))
        else:
            extra += ["gauss.n=40", "run.name=" + "r" * 1000]   # a record larger than the limit
        # 2 ranks (--fsize-ranks): the writing rank fails, the other must end with it
        rc, out = run(a, a.fsize_ranks, args + extra, wd, want_exit=None, fsize=LIMIT, env=NO_SHM_FILES)
        if rc is None:
            continue   # hung: already a failure, with the backtraces
        target = name if key else "results/.record"
        errs = []
        if rc != 5:
            errs.append("exit %d, expected 5" % rc)
        if not re.search(re.escape(target) + r".*File too large", out):
            errs.append("no message naming %s and 'File too large'" % target)
        if key and os.path.exists(os.path.join(wd, name)):
            errs.append("a file %s under the final name" % name)
        left = glob.glob(os.path.join(wd, "**", "*.tmp*"), recursive=True) + glob.glob(os.path.join(wd, "**", ".*.tmp*"), recursive=True)
        if left:
            errs.append("temporary files left: %r" % left)
        if open(earlier).read() != '{"earlier": true}\n':
            errs.append("the earlier record changed")
        if not key and [f for f in os.listdir(rd) if f != "earlier.json"]:
            errs.append("a partial record left: %r" % os.listdir(rd))
        if errs:
            print(out)
            fail("file-size limit, %s: %s" % (tag, "; ".join(errs)))
        else:
            ok("file-size limit, %s: exit 5, message with errno, nothing partial left" % tag)


def newest_record(wd):
    rd = os.path.join(wd, "results")
    fs = sorted(glob.glob(os.path.join(rd, "*.json")), key=os.path.getmtime)
    return fs[-1] if fs else None


def run_bytes(a, args, wd):
    """One rank, arguments as bytes (non-UTF-8 allowed); exit code and output."""
    os.makedirs(wd, exist_ok=True)
    cmd = [a.mpiexec.encode(), a.np_flag.encode(), b"1"] + [x.encode() for x in a.preflags.split()] + [a.hybrid.encode()] + args
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace")


def mode_config(a):
    wd = a.workdir
    knn_args = ["run.workload=lle", "lle.n=60", "lle.k=6", "lle.stage=knn"]
    long_cases = [("run.name", "n" * 5000, 5000), ("output.dir", "d" * 1303, 1303),
                  ("lle.file", "/tmp/" + "f" * 1095, 1100)]
    for key, val, n in long_cases:
        extra = ["lle.dataset=file"] if key == "lle.file" else []
        rc, out = run(a, 1, knn_args + extra + ["%s=%s" % (key, val)], os.path.join(wd, "long_" + key), want_exit=1)
        m = re.search(r"key '%s' holds (\d+) characters; at most (\d+) are allowed" % re.escape(key), out)
        if rc == 1 and m and int(m.group(1)) == n and int(m.group(2)) == 1023:
            ok("%s of %d characters refused naming the key and the limit 1023" % (key, n))
        else:
            print(out[-2000:])
            fail("%s of %d characters: not refused with the key, its length and the limit (exit %d)" % (key, n, rc))
    sub = os.path.join(wd, "name1023")
    shutil.rmtree(sub, ignore_errors=True)
    name = "x" * 1023
    rc, out = run(a, 1, knn_args + ["run.name=" + name], sub)
    rec = newest_record(sub)
    got = json.load(open(rec))["config"]["run"]["name"] if rec else None
    if rc != 0 or got != name:
        fail("run.name of 1023 characters: exit %d, record holds %r characters" % (rc, None if got is None else len(got)))
    else:
        ok("run.name of 1023 characters accepted and kept whole")
    cases = [(b"abc\xff\xfe", "abc\u00ff\u00fe"), (b"over\xc0\xaf", "over\u00c0\u00af"),
             (b"cut\xe2\x82", "cut\u00e2\u0082"), (b"surr\xed\xa0\x80", "surr\u00ed\u00a0\u0080"),
             ("caf\u00e9 \u2713 \U0001f600".encode(), "caf\u00e9 \u2713 \U0001f600")]
    for i, (raw, want) in enumerate(cases):
        sub = os.path.join(wd, "utf8_%d" % i)
        shutil.rmtree(sub, ignore_errors=True)
        rc, out = run_bytes(a, [x.encode() for x in knn_args] + [b"run.name=" + raw], sub)
        rec = newest_record(sub)
        try:
            doc = json.loads(open(rec, "rb").read().decode("utf-8")) if rec else None
            got = doc["config"]["run"]["name"] if doc else None
        except (ValueError, UnicodeDecodeError) as e:
            got = "invalid record: %s" % e
        if rc == 0 and got == want:
            ok("run.name %r: record is valid JSON holding %r" % (raw, want))
        else:
            fail("run.name %r: exit %d, record value %r, expected %r" % (raw, rc, got, want))
    # a bare CR is not a line end: refused naming the file and line (it hid a key inside a
    # comment or a header line from hybrid while an editor showed it as a line of its own)
    cr_cases = [("comment", b"[selftest]\n; note\rreps = 7\n", 2), ("header", b"[selftest]\rreps = 7\n", 1),
                ("value", b"[selftest]\nreps = 6\rn = 77\n", 2), ("hash", b"[run]\nname = x\n# c\rreps = 7\n", 3)]
    for name, text, line in cr_cases:
        sub = os.path.join(wd, "cr_" + name)
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        with open(os.path.join(sub, "c.ini"), "wb") as f:
            f.write(text)
        rc, out = run(a, 1, ["c.ini", "output.record=false"], sub, want_exit=1)
        col = text.split(b"\n")[line - 1].index(b"\r") + 1   # README: the file, line and column
        if rc == 1 and re.search(r"c\.ini:%d: a carriage return \(CR\) inside the line.*\(column %d\)" % (line, col), out):
            ok("bare CR (%s): exit 1 naming c.ini:%d, column %d" % (name, line, col))
        else:
            print(out[-1500:])
            fail("bare CR (%s): exit %d, no message naming c.ini:%d and column %d" % (name, rc, line, col))
    for name, text, want in [("crlf", b"[selftest]\r\nreps = 6\r\nn = 1000\r\ncopy_mib = 1\r\n", "6"),
                             ("cr_at_end", b"[selftest]\nn = 1000\ncopy_mib = 1\nreps = 4\r", "4")]:
        sub = os.path.join(wd, name)
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        with open(os.path.join(sub, "c.ini"), "wb") as f:
            f.write(text)
        rc, out = run(a, 1, ["c.ini"], sub)
        rec = newest_record(sub)
        got = json.load(open(rec))["config"]["selftest"]["reps"] if rec else None
        if rc == 0 and str(got) == want:
            ok("%s line ends: read, selftest.reps = %s" % (name, want))
        else:
            fail("%s line ends: exit %d, selftest.reps %r, expected %s" % (name, rc, got, want))
    sub = os.path.join(wd, "denormal")
    shutil.rmtree(sub, ignore_errors=True)
    rc, out = run(a, 1, knn_args + ["lle.noise=1e-320"], sub)
    rec = newest_record(sub)
    got = json.load(open(rec))["config"]["lle"]["noise"] if rec else None
    if rc != 0 or got is None or float(got) != 1e-320:
        fail("lle.noise = 1e-320 (a denormal inside [0, 1e6]): exit %d, record %r" % (rc, got))
    else:
        ok("a denormal (1e-320) inside the key's range accepted")


def mode_same(a):
    wd = a.workdir
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(os.path.join(wd, "sub"))
    inp = os.path.join(wd, "in.mtx")
    n = 12
    with open(inp, "w") as f:
        f.write("%%%%MatrixMarket matrix array real general\n%d %d\n" % (n, n))
        for j in range(n):
            for i in range(n):
                f.write("%d\n" % ((4 if i == j else 1) * (1 + i)))
    os.link(inp, os.path.join(wd, "hard.mtx"))
    os.symlink("in.mtx", os.path.join(wd, "soft.mtx"))
    for name in ("o1.mtx", "o1hard.mtx"):
        pass
    with open(os.path.join(wd, "o1.mtx"), "w") as f:
        f.write("old output\n")
    os.link(os.path.join(wd, "o1.mtx"), os.path.join(wd, "o1hard.mtx"))
    before = open(inp).read()
    G = ["run.workload=gauss", "gauss.matrix=file", "gauss.file=in.mtx", "output.record=false"]
    cases = [
        ("same_string", ["output.solution=in.mtx"], "output.solution", "gauss.file"),
        ("other_spelling", ["output.solution=sub/../in.mtx"], "output.solution", "gauss.file"),
        ("hard_link", ["output.solution=hard.mtx"], "output.solution", "gauss.file"),
        ("symlink", ["output.solution=soft.mtx"], "output.solution", "gauss.file"),
        ("matrix_output", ["output.matrix=./in.mtx"], "output.matrix", "gauss.file"),
        ("two_outputs", ["output.solution=x.mtx", "output.rhs=x.mtx"], "output.rhs", "output.solution"),
        ("two_outputs_inode", ["output.solution=o1.mtx", "output.matrix=o1hard.mtx"], "output.matrix", "output.solution"),
    ]
    for name, extra, k1, k2 in cases:
        listing = sorted(os.listdir(wd))
        rc, out = run(a, 1, G + extra, wd, want_exit=1)
        named = re.search(r"key '(%s|%s)' = .* and .*key '(%s|%s)' = .* name the same file" % (k1, k2, k1, k2), out)
        errs = []
        if rc != 1 or not named or named.group(1) == named.group(2):
            errs.append("exit %d, both keys %s and %s not named" % (rc, k1, k2))
        if open(inp).read() != before:
            errs.append("the input changed")
        if sorted(os.listdir(wd)) != listing or open(os.path.join(wd, "o1.mtx")).read() != "old output\n":
            errs.append("files written")
        if errs:
            print(out[-1500:])
            fail("outputs naming the same file, %s: %s" % (name, "; ".join(errs)))
        else:
            ok("outputs naming the same file, %s: exit 1 naming %s and %s, nothing changed" % (name, k1, k2))
    rc, out = run(a, 1, G + ["output.solution=x.mtx", "output.rhs=b.mtx", "output.matrix=a.mtx"], wd)
    if rc == 0 and all(os.path.exists(os.path.join(wd, f)) for f in ("x.mtx", "b.mtx", "a.mtx")):
        ok("distinct output names: the run writes all three")
    else:
        fail("distinct output names: exit %d" % rc)


def mode_symlink(a):
    wd = a.workdir
    shutil.rmtree(wd, ignore_errors=True)
    outside = os.path.join(wd, "outside")
    run_dir = os.path.join(wd, "run")
    os.makedirs(outside)
    os.makedirs(os.path.join(run_dir, "results"))
    victims = {n: os.path.join(outside, n) for n in ("v1", "v2")}
    for v in victims.values():
        with open(v, "w") as f:
            f.write("precious\n")
    host = socket.gethostname()
    # the shell's pid becomes hybrid's (exec): plant links at every name the old code predicted
    plant = ('ln -s %s x.mtx.tmp.$$; ln -s %s "results/.record.tmp.%s.$$";' % (victims["v1"], victims["v2"], host[:64]))
    rc, out = run(a, 1, ["run.workload=gauss", "gauss.n=50", "output.dir=results", "output.solution=x.mtx"], run_dir,
                  direct=True, shell_prefix=plant)
    changed = [n for n, v in victims.items() if open(v).read() != "precious\n"]
    if changed or os.listdir(outside) != sorted(victims) and sorted(os.listdir(outside)) != sorted(victims):
        fail("planted symlinks: files outside the output folder changed: %r" % changed)
    elif rc != 0 or not os.path.isfile(os.path.join(run_dir, "x.mtx")) or os.path.islink(os.path.join(run_dir, "x.mtx")):
        fail("planted symlinks: the run did not write x.mtx as a plain file (exit %d)" % rc)
    else:
        ok("planted symlinks at the old temporary names: nothing outside the folder changed")


# ulimit: (workload, limit MiB, control run, the run whose biggest allocation on rank 1 does not
# fit, regex naming that allocation in rank 1's message, its least size in bytes).  Measured
# (2 cores, MPICH 4.0 + UCX): rank 1's address space at MPI_Init plus a small run is ~100 MiB
# with the reference BLAS and ~370 MiB with OpenBLAS (a 128 MiB buffer region, a 64 MiB malloc
# arena per thread), so the limits leave a small run room with either; OMP_NUM_THREADS=1 keeps
# the BLAS and lle at one thread (a BLAS thread more is another buffer region).  The big sizes
# fail in: gauss A's block (n x n/2 doubles, 899 MB), spai rank 1's generated rows of A (its
# rowptr fits, colind 400 MB or val 800 MB does not), lle the points every rank holds (960 MB),
# sort the share of the keys (800 MB, agreed at the stage boundary: rank 0 prints rank 1's
# message), conv the tile or its output tile (2 x 288 MB; the image on rank 0 is what takes the
# time), gemm a block of A, B or C (565 MB).
ULIMIT = [
    ("gauss", 640, ["gauss.n=1000"], ["gauss.n=15000", "output.solution=x.mtx"],
     r"gauss_data\.c", 5e8),
    ("spai", 640, ["matrix.size=20000"], ["matrix.size=40000000", "output.solution=x.mtx",
     "output.preconditioner=m.mtx"], r"for out->(colind|val) \([^ ]*app/gen/gen\.c", 3e8),
    ("lle", 640, ["lle.n=2000"], ["lle.n=40000000", "output.embedding=e.npy"],
     r"for d->x \([^ ]*app/lle/lle_data\.c", 5e8),
    ("sort", 640, ["sort.n=1000000"], ["sort.n=400000000", "output.sort_keys=k.npy"],
     r"host backend: out of memory allocating [0-9]+ bytes for b->keys \(this rank's share of the keys: "
     r"200000000 int32 keys\)", 5e8),
    ("conv", 512, ["conv.width=1000", "conv.height=1000"], ["conv.width=6000", "conv.height=6000",
     "output.npy=c.npy"], r"for o?tile \([^ ]*app/conv/conv\.c", 2.5e8),
    ("gemm", 640, ["gemm.m=500", "gemm.n=500", "gemm.k=500"], ["gemm.m=12000", "gemm.n=12000",
     "gemm.k=12000", "output.c=c.mtx"], r"for [abc]->h \([^ ]*app/gemm/gemm_data\.c", 5e8),
]
ULIMIT_END_S = 10
ULIMIT_HOST_START_MIB = 160   # what the host build needs to start (measured: 159 MiB, Debian 12)


# The limit's wrapper of rank 1.  MPICH's hydra (4.0.2) does not end a job when a rank exits with a
# code before it reached MPI_Init (the loader failing under the limit: "error while loading shared
# libraries: ... failed to map segment", exit 127): the other ranks wait in MPI_Init and
# hydra_pmi_proxy polls at ~100% of a core, with no end; a rank killed by a signal ends the job at
# once (BAD TERMINATION).  So the wrapper runs the binary as its child and turns an exit >= 126
# (could not execute, loader failure, killed) into SIGKILL of itself; a plain 'exec' (LIMIT_EXEC,
# the old form) hangs there.  mode_loader checks it.
LIMIT_WRAP = 'ulimit -v %d || exit 1; "$@"; rc=$?; [ "$rc" -lt 126 ] || kill -9 $$; exit "$rc"'
LIMIT_EXEC = 'ulimit -v %d && exec "$@"'


def run_mpmd(a, wl, args, limit_mib, wd, wrap=LIMIT_WRAP):
    """Rank 0 unlimited, rank 1 under ulimit -v (MPMD); (exit code or None if hung, output, seconds)."""
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    argv = [a.hybrid, "run.workload=" + wl] + args + ["output.record=false"]
    lim = ["sh", "-c", wrap % (limit_mib * 1024), "sh"] + argv
    cmd = [a.mpiexec] + a.preflags.split() + [a.np_flag, "1"] + argv + [":", a.np_flag, "1"] + lim
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=dict(os.environ, OMP_NUM_THREADS="1"), start_new_session=True)
    try:
        raw, _ = p.communicate(timeout=a.run_timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        raw, _ = p.communicate()
        return None, raw.decode(errors="replace"), time.time() - t0
    return p.returncode, raw.decode(errors="replace"), time.time() - t0


def loaded_mib(a):
    """The address space (MiB, within 8) that the binary needs to start at all: its libraries
    mapped (a CUDA build maps cuBLAS, cuFFT, cuSPARSE, ... ~1.7 GB of it without a GPU; the host
    build ~160 MiB). Bisection on `hybrid --version` under ulimit -v."""
    lo, hi = 16, 1 << 17
    while hi - lo > 8:
        mid = (lo + hi) // 2
        r = subprocess.run(["sh", "-c", 'ulimit -v %d && exec "$@"' % (mid * 1024), "sh", a.hybrid, "--version"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
        lo, hi = (lo, mid) if r.returncode == 0 else (mid, hi)
    return hi


def mode_ulimit(a):
    # the ULIMIT figures are for the host build, which starts in ~160 MiB: a build that maps more
    # (CUDA's libraries) gets its extra start-up size on top, so each workload keeps the same room
    extra = max(0, loaded_mib(a) - ULIMIT_HOST_START_MIB)
    print("hybrid starts in about %d MiB of address space: the limits below + %d MiB" % (extra + ULIMIT_HOST_START_MIB, extra))
    for wl, lim, small, big, name_rx, least in ULIMIT:
        if a.only and a.only != wl:
            continue
        lim += extra
        wd = os.path.join(a.workdir, wl)
        rc, out, dt = run_mpmd(a, wl, small, lim, wd + "_fits")
        if rc != 0 or "PASSED" not in out:
            print(out)
            fail("%s: the small run (%s) under ulimit -v %d MiB on rank 1: exit %s, expected 0 and PASSED "
                 "(the limit alone must not break a run)" % (wl, " ".join(small), lim, rc))
            continue
        rc, out, dt = run_mpmd(a, wl, big, lim, wd)
        errs = []
        if rc is None:
            errs.append("hung (more than %d s)" % a.run_timeout)
        elif rc != 5:
            errs.append("exit %d, expected 5" % rc)
        if dt > ULIMIT_END_S:
            errs.append("ended after %.1f s, more than %d s" % (dt, ULIMIT_END_S))
        m = re.search(r"rank 1 on [^ :)]+[:)] .*out of memory allocating ([0-9]+) bytes.*", out)
        if not m:
            errs.append("no message of rank 1 (with its host) 'out of memory allocating B bytes'")
        else:
            if int(m.group(1)) < least:
                errs.append("rank 1 failed allocating %s bytes, not the biggest allocation (>= %.3g)" % (m.group(1), least))
            if not re.search(name_rx, m.group(0)):
                errs.append("rank 1's message %r does not name the allocation (%s)" % (m.group(0), name_rx))
        if "PASSED" in out:
            errs.append("PASSED printed")
        left = [f for f in os.listdir(wd)]
        if left:
            errs.append("files left in the run's folder: %r" % left)
        if errs:
            print(out)
            fail("%s (%s) with rank 1 under ulimit -v %d MiB: %s" % (wl, " ".join(big), lim, "; ".join(errs)))
        else:
            ok("%s: small run passes under ulimit -v %d MiB; %s: exit 5 after %.1f s, %s" % (
                wl, lim, " ".join(big), dt, m.group(0).strip()))


def mode_loader(a):
    """Rank 1 dies in the loader (a limit below what the binary needs to start): through the
    wrapper the job ends within ULIMIT_END_S, not zero, with the loader's message."""
    lim = max(8, loaded_mib(a) // 4)
    rc, out, dt = run_mpmd(a, "selftest", [], lim, os.path.join(a.workdir, "loader"),
                           LIMIT_EXEC if a.only == "exec" else LIMIT_WRAP)
    errs = []
    if rc is None:
        errs.append("hung (more than %d s)" % a.run_timeout)
    elif rc == 0:
        errs.append("exit 0")
    if dt > ULIMIT_END_S:
        errs.append("ended after %.1f s, more than %d s" % (dt, ULIMIT_END_S))
    if "error while loading shared libraries" not in out:
        errs.append("no loader message of rank 1")
    if "PASSED" in out:
        errs.append("PASSED printed")
    if errs:
        print(out)
        fail("rank 1 under ulimit -v %d MiB (it cannot load): %s" % (lim, "; ".join(errs)))
    else:
        ok("rank 1 under ulimit -v %d MiB dies in the loader: the job ends after %.1f s, exit %d" % (lim, dt, rc))


def mode_unreadable(a):
    wd = os.path.realpath(a.workdir)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    os.chmod(wd, 0o777)   # nobody writes its runs' records here
    pre = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            print("SKIP: running as root without setpriv: root reads a file of mode 000")
            sys.exit(77)
        pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    mtx = os.path.join(wd, "A.mtx")
    n = 6
    with open(mtx, "w") as f:   # diagonally dominant n x n, general
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, 3 * n - 2))
        for i in range(1, n + 1):
            for j in (i - 1, i, i + 1):
                if 1 <= j <= n:
                    f.write("%d %d %g\n" % (i, j, 4.0 if i == j else -1.0))
    cases = [("--inspect", 0, ["--inspect", mtx]),
             ("gauss.file", 0, ["run.workload=gauss", "gauss.matrix=file", "gauss.file=" + mtx]),
             ("spai matrix.file", 2, ["run.workload=spai", "matrix.source=file", "matrix.file=" + mtx]),
             ("gemm.a_file", 2, ["run.workload=gemm", "gemm.source=file",
                                 "gemm.a_file=" + mtx, "gemm.b_file=" + mtx])]
    for mode, want in ((0o000, 2), (0o644, 0)):
        os.chmod(mtx, mode)
        for tag, np_, args in cases:
            if np_:
                cmd = pre + [a.mpiexec, a.np_flag, str(np_)] + a.preflags.split() + [a.hybrid] + args
            else:
                cmd = pre + [a.hybrid] + args
            if args[0] != "--inspect":
                cmd += ["run.backend=host", "output.record=false"]
            p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
            out = p.stdout.decode(errors="replace")
            what = "mode %03o, %s" % (mode, tag)
            if p.returncode != want:
                print(out)
                fail("%s: exit %d, expected %d" % (what, p.returncode, want))
            elif want == 2 and not re.search(re.escape(mtx) + r": cannot open: Permission denied", out):
                print(out)
                fail("%s: no message naming %s and 'Permission denied'" % (what, mtx))
            else:
                ok("%s: exit %d%s" % (what, want, " naming the file, Permission denied" if want else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hybrid", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--preflags", default="")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--fsize-ranks", type=int, default=2)
    ap.add_argument("--run-timeout", type=int, default=120, help="seconds before a run counts as hung")
    ap.add_argument("--only", default="", help="fsize: only the outputs whose key contains this; ulimit: only this "
                    "workload; loader: 'exec' runs rank 1 through the old wrapper (exec; hydra hangs)")
    ap.add_argument("mode", choices=["npy", "csv", "scale", "fsize", "symlink", "config", "same", "ulimit", "unreadable",
                                     "loader"])
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    globals()["mode_" + a.mode](a)
    print("%d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
