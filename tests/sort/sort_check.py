#!/usr/bin/env python3
"""Checks of the sort workload against numpy (the reference), driven by ctest.

sort_check.py --hybrid BIN --mpiexec MPIEXEC [--np-flag -n] --workdir DIR MODE [options]
  ranks --type T   every distribution (the local variant and payload rotating with the type:
                   the four types cover every pair) at 1, 2 and 3 ranks, n prime (and
                   with local = merge once more through the device transport's code path,
                   [debug] host_coll):
                   keys == numpy.sort(input, kind="stable") bit for bit, with payload = index
                   the indices == numpy.argsort(input, kind="stable") (stability), identical
                   for every rank count, imbalance <= 1.05 (parsed from the output and the
                   record), check figures 0
  files            .npy input: a good file (dtype taken from it, -0.0/+0.0 and repeats) sorted
                   like numpy; bad files (dtype, order, shape, overflow, truncated, NaN,
                   magic) end with exit 2, a message naming the file and the fault, and no
                   output file
  gpu              CUDA against host: every type, local variant (merge with the seed's
                   levels only, with merge path from width 8 (the default 4096-key tiles) or
                   256 (2048-key tiles: the seed's merges in the tile below 256), radix),
                   payload, at 1 and 2 ranks: the
                   same bytes; CUB's line printed (with payload = index CUB's StableSortPairs
                   time too, > 0); a float file of -0.0/+0.0/repeats on CUDA
                   equal to numpy's stable sort (keys and indices); qsort refused on CUDA;
                   with 2 GPUs the NCCL exchange at 2 ranks equal to the host's MPI one
  gpu_merge        local = merge on CUDA for every sort.merge_tile at sizes around its tile
                   (tile - 1, tile + 1, 3 tile + 5, 1, 100003, 1000003), keys only and pairs,
                   all-equal, sorted, reverse and -0.0/+0.0 inputs: == numpy's stable argsort
  validate         runs at 3 ranks of every type (payload index) checked by hybrid-validate
                   sort (PETSc), which must pass, and must fail (exit 4) on the output with two
                   keys swapped and on the index with two tied entries swapped
Exit 0 pass, 1 fail.
"""
import argparse, json, os, re, subprocess, sys

import numpy as np

DISTS = ["uniform", "normal", "sorted", "reverse", "few_unique", "zipf"]
DTYPE = {"int32": "<i4", "int64": "<i8", "float": "<f4", "double": "<f8"}
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def run(a, np_, args, wd, want_exit=0):
    os.makedirs(wd, exist_ok=True)
    cmd = [a.mpiexec, a.np_flag, str(np_)] + a.preflags.split() + [a.hybrid] + args
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    if p.returncode != want_exit:
        print(out)
        fail("%s: exit %d, expected %d" % (" ".join(cmd), p.returncode, want_exit))
    return out


def figure(out, regex, what):
    m = re.search(regex, out, re.M)
    if not m:
        fail("no %s in the output" % what)
        return None
    return float(m.group(1))


def newest_record(wd):
    rd = os.path.join(wd, "results")
    recs = sorted(f for f in os.listdir(rd) if f.endswith(".json"))
    with open(os.path.join(rd, recs[-1])) as f:
        return json.load(f)


def check_sorted(tag, inp, keys, idx):
    """keys/idx against numpy's stable sort of inp, bit for bit."""
    order = np.argsort(inp, kind="stable")
    want = inp[order]
    if keys.dtype != inp.dtype or keys.shape != inp.shape:
        fail("%s: output %s %s, input %s %s" % (tag, keys.dtype, keys.shape, inp.dtype, inp.shape))
        return
    if keys.tobytes() != want.tobytes():
        kb, wb = keys.view(np.uint8).reshape(len(keys), -1), want.view(np.uint8).reshape(len(want), -1)
        first = int(np.nonzero((kb != wb).any(axis=1))[0][0])
        fail("%s: keys differ from numpy.sort, first at %d: %r vs %r" % (tag, first, keys[first], want[first]))
    if idx is not None and not np.array_equal(idx, order):
        first = int(np.nonzero(idx != order)[0][0])
        fail("%s: index payload differs from numpy.argsort(kind='stable') at %d: %d vs %d" % (tag, first, idx[first], order[first]))


def mode_ranks(a):
    n = 10007
    # every distribution once per type, the local variant and the payload rotating with the
    # type, so that the four types together cover every (distribution, local variant) pair
    ti = list(DTYPE).index(a.type)
    combos = []
    for i, d in enumerate(DISTS):
        loc = ["merge", "radix", "qsort"][(i + ti) % 3]
        combos.append((d, loc, "index" if (i + ti) % 2 == 0 else "none"))
    for c, (d, loc, payload) in enumerate(combos):
        ref = None
        # and at 2 or 3 ranks through the device transport's code ([debug] host_coll: MPI
        # underneath), for one local variant of each distribution
        emul = [(2 + c % 2, True)] if loc == "merge" else []
        for np_, em in [(1, False), (2, False), (3, False)] + emul:
            tag = "%s %s local=%s payload=%s np=%d%s" % (a.type, d, loc, payload, np_, " host_coll" if em else "")
            wd = os.path.join(a.workdir, "%s_%s_%s_%d%s" % (d, loc, payload, np_, "e" if em else ""))
            args = ["run.workload=sort", "sort.n=%d" % n, "sort.type=" + a.type, "sort.distribution=" + d,
                    "sort.local=" + loc, "sort.payload=" + payload, "run.seed=5",
                    "output.sort_keys=k.npy", "output.sort_input=in.npy"] + (["debug.host_coll=true"] if em else [])
            if payload == "index":
                args.append("output.sort_index=i.npy")
            out = run(a, np_, args, wd)
            if "PASSED: sort" not in out:
                fail("%s: no PASSED line" % tag)
                continue
            inp = np.load(os.path.join(wd, "in.npy"))
            keys = np.load(os.path.join(wd, "k.npy"))
            idx = np.load(os.path.join(wd, "i.npy")) if payload == "index" else None
            check_sorted(tag, inp, keys, idx)
            if np_ > 1:
                want = "emulated" if em else "mpi"
                if not re.search(r"^sort: exchange: %s " % want, out, re.M):
                    fail("%s: the exchange is not %s" % (tag, want))
            imb = figure(out, r"imbalance max/mean ([0-9.]+)", "imbalance")
            if imb is not None and imb > 1.05:
                fail("%s: imbalance %.4f > 1.05" % (tag, imb))
            rec = newest_record(wd)
            m = rec["metrics"]
            if m["inversions"] != 0 or m["tie_inversions"] != 0 or m["multiset_preserved"] != 1 or m["n"] != n:
                fail("%s: record metrics %r" % (tag, {k: m[k] for k in ("n", "inversions", "tie_inversions", "multiset_preserved")}))
            if abs(m["imbalance"] - imb) > 1e-3:
                fail("%s: record imbalance %r vs printed %r" % (tag, m["imbalance"], imb))
            blob = (inp.tobytes(), keys.tobytes(), None if idx is None else idx.tobytes())
            if ref is None:
                ref = blob
            elif blob != ref:
                fail("%s: input or output differs from 1 rank" % tag)
            print("ok   %s: imbalance %.4f" % (tag, imb))


def npy_bytes(header, payload):
    h = header.encode()
    pad = (64 - (10 + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + payload


def mode_files(a):
    wd = a.workdir
    os.makedirs(wd, exist_ok=True)
    # a good file: doubles with -0.0/+0.0 and repeats, dtype taken from the file
    rng = np.random.default_rng(3)
    x = rng.choice(np.array([-0.0, 0.0, 1.5, -2.25, 7.0]), size=1009)
    x[::7] = rng.normal(size=len(x[::7]))
    good = os.path.join(wd, "good.npy")
    np.save(good, x)
    for np_ in (1, 3):
        sub = os.path.join(wd, "good%d" % np_)
        out = run(a, np_, ["run.workload=sort", "sort.distribution=file", "sort.file=" + good, "sort.payload=index",
                           "sort.local=merge", "output.sort_keys=k.npy", "output.sort_index=i.npy"], sub)
        if "double keys" not in out:
            fail("good file at %d ranks: the file's dtype (double) not taken" % np_)
        if "PASSED: sort" in out:
            check_sorted("good.npy np=%d" % np_, x, np.load(os.path.join(sub, "k.npy")), np.load(os.path.join(sub, "i.npy")))
    ints = np.arange(10, dtype="<i4").tobytes()
    bad = {
        "dtype_u4": (npy_bytes("{'descr': '<u4', 'fortran_order': False, 'shape': (10,), }", ints), r"dtype '<u4' is not allowed"),
        "bigendian": (npy_bytes("{'descr': '>i4', 'fortran_order': False, 'shape': (10,), }", ints), r"dtype '>i4' is not allowed"),
        "fortran": (npy_bytes("{'descr': '<i4', 'fortran_order': True, 'shape': (10,), }", ints), r"fortran_order is True"),
        "twod": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (5, 2), }", ints), r"more than one dimension"),
        "scalar": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", ints[:4]), r"scalar"),
        "overflow": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ints), r"shape overflows"),
        "huge": (npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (4611686018427387903,), }", ints), r"header says 4611686018427387903 keys"),
        "truncated": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (11,), }", ints), r"header says 11 keys \(44 bytes of data\) but the file holds 40"),
        "trailing": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (9,), }", ints), r"header says 9 keys \(36 bytes of data\) but the file holds 40"),
        "nokey": (npy_bytes("{'descr': '<i4', 'shape': (10,), }", ints), r"header lacks 'fortran_order'"),
        "extra": (npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (10,), 'x': 1}", ints), r"unknown key 'x'"),
        "magic": (b"NUMPY\x01\x00" + ints, r"not a \.npy file"),
        "nan": (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }",
                          np.array([1, 2, 3, 4, 5, 6, 7, np.nan, 9, 10], dtype="<f4").tobytes()), r"key 7 is NaN"),
        "empty": (npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", b""), r"is empty"),
    }
    for name, (blob, msg) in bad.items():
        path = os.path.join(wd, "bad_%s.npy" % name)
        with open(path, "wb") as f:
            f.write(blob)
        sub = os.path.join(wd, "bad_" + name)
        for np_ in (1, 2):
            out = run(a, np_, ["run.workload=sort", "sort.distribution=file", "sort.file=" + path,
                               "output.sort_keys=k.npy", "output.record=false"], sub, want_exit=2)
            if not re.search(re.escape(path) + ".*" + msg, out):
                print(out)
                fail("bad file %s at %d ranks: no message matching %r naming the file" % (name, np_, msg))
            left = [f for f in os.listdir(sub)]
            if left:
                fail("bad file %s: files written: %r" % (name, left))
            else:
                print("ok   bad file %s at %d ranks: exit 2, message, nothing written" % (name, np_))
    # a typed file whose dtype disagrees with sort.type given
    out = run(a, 1, ["run.workload=sort", "sort.distribution=file", "sort.file=" + good, "sort.type=int32",
                     "output.record=false"], os.path.join(wd, "typeclash"), want_exit=2)
    if not re.search(r"holds double keys but sort.type = int32", out):
        fail("type clash: no message")


def gpu_count():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        return sum(1 for l in p.stdout.decode().splitlines() if l.startswith("GPU "))
    except (OSError, subprocess.SubprocessError):
        return 0


def mode_gpu(a):
    n = 1000003
    for t in DTYPE:
        for loc, extra in (("radix", []), ("merge", ["sort.merge_path_from=0"]), ("merge", ["sort.merge_path_from=8"]),
                           ("merge", ["sort.merge_path_from=256", "sort.merge_tile=2048"])):
            for payload in ("none", "index"):
                for np_ in (1, 2):
                    tag = "%s local=%s %s payload=%s np=%d" % (t, loc, " ".join(extra), payload, np_)
                    blobs = {}
                    for be in ("host", "cuda"):
                        wd = os.path.join(a.workdir, "%s_%s_%s_%s_%d_%s" % (t, loc, "".join(extra).replace("=", ""), payload, np_, be))
                        args = ["run.workload=sort", "run.backend=" + be, "sort.n=%d" % n, "sort.type=" + t, "sort.local=" + loc,
                                "sort.payload=" + payload, "sort.distribution=" + ("few_unique" if payload == "index" else "uniform"),
                                "output.sort_keys=k.npy"] + extra
                        if payload == "index":
                            args.append("output.sort_index=i.npy")
                        out = run(a, np_, args, wd)
                        if "PASSED: sort" not in out:
                            fail("%s on %s: not PASSED" % (tag, be))
                            continue
                        if be == "cuda" and not re.search(r"CUB DeviceRadixSort::SortKeys [0-9.]+ ms", out):
                            fail("%s: no CUB line on cuda" % tag)
                        pm = re.search(r"CUB DeviceMergeSort::StableSortPairs ([0-9.]+) ms", out)
                        if be == "cuda" and payload == "index" and not (pm and float(pm.group(1)) > 0):
                            fail("%s: no CUB StableSortPairs time (> 0) on cuda with payload = index" % tag)
                        if be == "host" and pm:
                            fail("%s: a CUB line on the host backend" % tag)
                        blobs[be] = open(os.path.join(wd, "k.npy"), "rb").read() + (
                            open(os.path.join(wd, "i.npy"), "rb").read() if payload == "index" else b"")
                    if len(blobs) == 2 and blobs["host"] != blobs["cuda"]:
                        fail("%s: cuda output differs from host" % tag)
                    elif len(blobs) == 2:
                        print("ok   %s: cuda == host" % tag)
    # -0.0 and +0.0 (equal under <, kept in index order) and repeats from a file
    rng = np.random.default_rng(4)
    x = rng.choice(np.array([-0.0, 0.0, 1.5, -2.25]), size=300007).astype("<f4")
    path = os.path.join(a.workdir, "zeros.npy")
    np.save(path, x)
    for loc in ("radix", "merge"):
        for np_ in (1, 2):
            sub = os.path.join(a.workdir, "zeros_%s_%d" % (loc, np_))
            out = run(a, np_, ["run.workload=sort", "run.backend=cuda", "sort.distribution=file", "sort.file=" + path,
                               "sort.local=" + loc, "sort.payload=index", "output.sort_keys=k.npy", "output.sort_index=i.npy"], sub)
            if "PASSED: sort" in out:
                check_sorted("zeros.npy cuda local=%s np=%d" % (loc, np_), x, np.load(os.path.join(sub, "k.npy")),
                             np.load(os.path.join(sub, "i.npy")))
                print("ok   zeros.npy cuda local=%s np=%d: == numpy stable sort" % (loc, np_))
    # two GPUs: the exchange by NCCL device to device (skipped with one GPU: the ranks share it)
    ngpu = gpu_count()
    if ngpu >= 2:
        for t in ("int32", "double"):
            blobs = {}
            for be, x in (("host", "mpi"), ("cuda", "nccl")):
                wd = os.path.join(a.workdir, "nccl_%s_%s" % (t, be))
                out = run(a, 2, ["run.workload=sort", "run.backend=" + be, "sort.n=4000037", "sort.type=" + t,
                                 "sort.exchange=" + x, "sort.payload=index", "sort.distribution=zipf",
                                 "output.sort_keys=k.npy", "output.sort_index=i.npy"], wd)
                if be == "cuda" and not re.search(r"^sort: exchange: nccl \(device to device\)", out, re.M):
                    fail("2 GPUs %s: the exchange is not nccl" % t)
                if "PASSED: sort" in out:
                    blobs[be] = open(os.path.join(wd, "k.npy"), "rb").read() + open(os.path.join(wd, "i.npy"), "rb").read()
            if len(blobs) == 2 and blobs["host"] != blobs["cuda"]:
                fail("2 GPUs %s: nccl output differs from host" % t)
            elif len(blobs) == 2:
                print("ok   2 GPUs %s: nccl exchange == host" % t)
    else:
        print("note: %d GPU(s): the NCCL exchange (2 GPUs) not tested here" % ngpu)
    out = run(a, 1, ["run.workload=sort", "run.backend=cuda", "sort.local=qsort"], os.path.join(a.workdir, "qsort"), want_exit=1)
    if "sort.local = qsort is not available on the cuda backend" not in out:
        fail("local = qsort on cuda: no message")


TILES = (2048, 4096, 8192, 16384)   # sort.merge_tile


def gpu_merge_inputs(rng, n, tile):
    """The inputs of mode gpu_merge at size n (tile: the tile the size is chosen for, or 0):
    (name, type, keys, payload)."""
    few = np.array([-0.0, 0.0, 1.5, -2.25, 7.0, 3e300, np.inf])
    yield "uniform", "int32", rng.integers(-2**31, 2**31 - 1, size=n, dtype=np.int64).astype("<i4"), "none"
    yield "few", "double", rng.choice(few, size=n).astype("<f8"), "index"
    if tile and n == 3 * tile + 5:
        # all-equal keys (only the index shows the order), sorted, reverse, -0.0/+0.0 only
        yield "equal", "int32", np.full(n, 7, dtype="<i4"), "index"
        yield "sorted", "int64", np.arange(n, dtype="<i8") * 3 - n, "index"
        yield "reverse", "float", (np.arange(n, 0, -1) * 0.5).astype("<f4"), "index"
        yield "zeros", "float", rng.choice(np.array([-0.0, 0.0], dtype="<f4"), size=n), "none"


def mode_gpu_merge(a):
    """local = merge on the GPU at sizes around and across its shared-memory tiles and not powers
    of two, for every sort.merge_tile (2048, 4096, 8192, 16384): tile - 1, tile + 1, 3 tile + 5 (odd
    and even numbers of global levels), the prime 1000003 (keys only or pairs, by tile), and once
    1 and 100003; merge_path_from rotating through 8 / 64 / 4096 / 16384 (above the tile: global
    seed levels); keys only (int32) and pairs (double, repeated keys, -0.0 beside +0.0, inf), and
    at 3 tile + 5 all-equal keys, sorted and reverse inputs, -0.0/+0.0 only: the .npy outputs
    equal numpy's stable argsort of the input file, keys and original indices."""
    rng = np.random.default_rng(13)
    be = getattr(a, "backend", "cuda")
    froms = (8, 64, 4096, 16384)
    plan = []
    for i, tile in enumerate(TILES):
        for n in (tile - 1, tile + 1, 3 * tile + 5):
            plan += [(tile, n, c) for c in gpu_merge_inputs(rng, n, tile)]
        plan += [(tile, 1000003, c) for c in gpu_merge_inputs(rng, 1000003, 0)][i % 2:][:1]
        plan += [(tile, n, c) for n in (1, 100003) if i == n % len(TILES) for c in gpu_merge_inputs(rng, n, 0)]
    os.makedirs(a.workdir, exist_ok=True)
    runs = 0
    for tile, n, (name, t, x, payload) in plan:
        frm = froms[runs % len(froms)]
        runs += 1
        tag = "%s %s n=%d payload=%s merge_tile=%d merge_path_from=%d" % (t, name, n, payload, tile, frm)
        path = os.path.join(a.workdir, "in_%s_%s_%d.npy" % (t, name, n))
        np.save(path, x)
        wd = os.path.join(a.workdir, "m_%s_%s_%d_%d" % (t, name, n, tile))
        args = ["run.workload=sort", "run.backend=" + be, "sort.distribution=file", "sort.file=" + path, "sort.type=" + t,
                "sort.local=merge", "sort.merge_path_from=%d" % frm, "sort.merge_tile=%d" % tile, "sort.payload=" + payload,
                "sort.vendor=false", "output.record=false", "output.sort_keys=k.npy"]
        if payload == "index":
            args.append("output.sort_index=i.npy")
        out = run(a, 1, args, wd)
        if "PASSED: sort" not in out:
            fail("%s: not PASSED" % tag)
            continue
        used = 8192 if tile == 16384 and payload == "index" and t in ("int64", "double") else tile
        if not re.search(r"local merge \(merge path from width %d, tiles of %d\) on %s" % (frm, used, be), out):
            fail("%s: the run does not say its merge path width and tile %d" % (tag, used))
        order = np.argsort(x, kind="stable")
        k = np.load(os.path.join(wd, "k.npy"))
        if k.shape != x.shape or k.view(np.uint8).tobytes() != x[order].view(np.uint8).tobytes():
            fail("%s: keys differ from numpy's stable sort" % tag)
            continue
        if payload == "index" and not np.array_equal(np.load(os.path.join(wd, "i.npy")), order):
            fail("%s: indices differ from numpy's stable argsort" % tag)
            continue
        print("ok   %s: == numpy stable sort" % tag)
    print("%d run(s)" % runs)


def validate(a, args, wd, want_exit):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run([a.validate, "sort"] + args, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=300)
    out = p.stdout.decode(errors="replace")
    if p.returncode != want_exit:
        print(out)
        fail("hybrid-validate sort %s: exit %d, expected %d" % (" ".join(args), p.returncode, want_exit))
    return out


def mode_validate(a):
    for t, d in (("int32", "few_unique"), ("int64", "zipf"), ("float", "normal"), ("double", "zipf")):
        wd = os.path.join(a.workdir, t)
        out = run(a, 3, ["run.workload=sort", "sort.n=30011", "sort.type=" + t, "sort.distribution=" + d, "sort.payload=index",
                         "sort.local=merge", "output.sort_keys=k.npy", "output.sort_index=i.npy", "output.sort_input=in.npy"], wd)
        if "PASSED: sort" not in out:
            fail("%s: the run did not pass" % t)
            continue
        v = validate(a, ["-input", "in.npy", "-output", "k.npy", "-index", "i.npy"], wd, 0)
        if not re.search(r"^PASSED: sort of 30011 %s keys: 0 difference\(s\) from Petsc" % t, v, re.M):
            fail("%s: validator did not pass" % t)
        else:
            print("ok   %s %s: hybrid-validate sort PASSED" % (t, d))
        # planted faults the validator must see: two keys swapped, two tied indices swapped
        k = np.load(os.path.join(wd, "k.npy"))
        i = np.load(os.path.join(wd, "i.npy"))
        steps = np.nonzero(k[1:] != k[:-1])[0]
        j = int(steps[len(steps) // 3])
        k2 = k.copy()
        k2[j], k2[j + 1] = k[j + 1], k[j]
        np.save(os.path.join(wd, "k_swapped.npy"), k2)
        v = validate(a, ["-input", "in.npy", "-output", "k_swapped.npy"], wd, 4)
        if not re.search(r"2 position\(s\) differ", v) or "FAILED: sort" not in v:
            fail("%s: swapped keys not found by the validator" % t)
        ties = np.nonzero(k[1:] == k[:-1])[0]
        if len(ties) == 0:
            fail("%s %s: no tied keys to plant a fault in" % (t, d))
            continue
        e = int(ties[0])
        i2 = i.copy()
        i2[e], i2[e + 1] = i[e + 1], i[e]
        np.save(os.path.join(wd, "i_swapped.npy"), i2)
        v = validate(a, ["-input", "in.npy", "-output", "k.npy", "-index", "i_swapped.npy"], wd, 4)
        if not re.search(r"[1-9][0-9]* tie\(s\) out of input order", v):
            fail("%s: swapped tie indices not found by the validator" % t)
        else:
            print("ok   %s: swapped keys and swapped tie indices FAILED by the validator" % t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hybrid", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--preflags", default="")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--type", default="int32")
    ap.add_argument("--validate", default=None, help="hybrid-validate (mode validate)")
    ap.add_argument("--backend", default="cuda", help="mode gpu_merge: the backend (host: the check's own test)")
    ap.add_argument("mode", choices=["ranks", "files", "gpu", "gpu_merge", "validate"])
    a = ap.parse_args()
    a.hybrid = os.path.abspath(a.hybrid)
    {"ranks": mode_ranks, "files": mode_files, "gpu": mode_gpu, "gpu_merge": mode_gpu_merge,
     "validate": mode_validate}[a.mode](a)
    print("FAILED: %d check(s)" % len(FAILS) if FAILS else "PASSED: sort %s" % a.mode)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
