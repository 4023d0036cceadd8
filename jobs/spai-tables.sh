#!/usr/bin/env bash
# jobs/spai-tables.sh - the HybridSPAI paper's Tables 3, 4 and 5 (seed 001) on the matrices this
# project has, with the seed's figures printed beside ours.
#
#   jobs/spai-tables.sh [--small|--full] [--build DIR] [--ranks "1 2 4 8"] [--backend B]
#                       [--tables 345] [--out DIR] [--only "NAME ..."] [--scale D]
#                       [--analogue NAME=GEN[:PECLET]] [--search "tau=A,B levels=1,2 ..."]
#                       [--check-analogues]
#
# --small (default; CI, a workstation): the real SuiteSparse matrices in ../shared/matrices and
#   the generated analogues of the paper's matrices at 1/100 of their rows, ranks "1 2".
# --full (the GPU machine): generated analogues at the paper's sizes (Table 2), ranks "1 2 4 8"
#   (more ranks than GPUs share devices; that is reported by hybrid).
# Analogues (generated matrices with the paper's rows and about its nonzeros per row, not the
#   paper's matrices): venkat01 (27.5 per row), cfd2 (25.0) -> convdiff3d27 (~26), cfd2 at
#   peclet 1 and venkat01 at 0.5 so that they differ at every size; t2em (5.0) -> convdiff2d;
#   apache2 (6.7), thermal2 (7.0) -> poisson3d (~7); G3_circuit (4.8) -> poisson2d (~5);
#   imagesensor (12.2) -> convdiff2d13 (~13); rows rounded down to a square/cube grid.  The
#   header prints the check: at the paper's size each analogue's rows and nonzeros per row within
#   10% of the paper's (nnz from the stencil: the sum over its offsets of prod (side - |offset|),
#   compared with every generated run's record), and no two analogues the same matrix at the
#   paper's size or at this run's; a miss stops the script before any run (exit 1, FAILED line).
#   --check-analogues: only that check.  --analogue NAME=GEN[:PECLET]: another generator for
#   an analogue (checked the same way).  --scale D: analogues at 1/D of the paper's rows (default:
#   100 with --small, at least 1000 rows; 1 with --full; given: at least 27 rows).
#   --only "NAME ...": only these cases (analogue names, matrix file names without .mtx[.gz]).
# Table 3: BiCGSTAB without / with SPAI (iterations, solve seconds).  Table 4: SPAI setup, solve
#   and total seconds over the rank counts.  Table 5: preconditioners (setup, solve, iterations,
#   total): ours (SPAI, Jacobi, none, ILU(0), SPAI with levels 2 + diagonal scaling) from hybrid,
#   and PETSc's (BCGS with our M, ParaSails,
#   ILU(0), Jacobi, none) from hybrid-validate spai when it was built (n/a otherwise).
# Table 6 (ours, not the paper's; --tables 6 or 3456, ~2.5 min on the host, --small only): every matrix of
#   ../shared/matrices with none / Jacobi / SPAI default (no spai key set) / SPAI best / ILU(0):
#   iterations or "fails" with the verdict, total seconds; SPAI best is the best of a search over
#   spai.tau x levels x scale x filter (--search, default "tau=0.8,0.95 levels=1,2
#   scale=none,diag filter=0,0.05": converged first, then fewest iterations, smallest nnz(M), the first listed), each
#   setting's count printed; a "finding:" line for each matrix where Jacobi converges and no
#   setting of the search does.  Skipped (said so) when the folder is absent.
# Environment: MPIEXEC (default: the one CMake found), TAU (default 0.99 generated / 0.8 files).
# Writes $OUT/tables.txt (default spai-tables-out/), $OUT/table4.csv, $OUT/table4_speedup.png (speed-up
# of setup and of setup + solve over ranks, the seed's over threads dashed; needs matplotlib) and
# the run logs/records beside it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=small build="" ranks="" backend=auto tables="" out="" only="" scale="" analogues="" check=0
search="tau=0.8,0.95 levels=1,2 scale=none,diag filter=0,0.05"
while [ $# -gt 0 ]; do
  case "$1" in
    --small) mode=small ;;
    --full) mode=full ;;
    --build) build=$2; shift ;;
    --ranks) ranks=$2; shift ;;
    --backend) backend=$2; shift ;;
    --tables) tables=$2; shift ;;
    --out) out=$2; shift ;;
    --only) only=$2; shift ;;
    --scale) scale=$2; shift ;;
    --analogue) analogues="$analogues $2"; shift ;;
    --search) search=$2; shift ;;
    --check-analogues) check=1 ;;
    -h|--help) sed -n '2,42p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "spai-tables: error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
  shift
done
tables=${tables:-345}
if [ $check = 1 ]; then build=${build:-/nonexistent}; fi
if [ -z "$build" ]; then
  for b in build-gpu build; do [ -x "$root/$b/hybrid" ] && { build=$root/$b; break; }; done
fi
if [ $check = 0 ]; then
  [ -n "$build" ] && [ -x "$build/hybrid" ] || { echo "spai-tables: error: no hybrid binary (give --build DIR)" >&2; exit 1; }
  build=$(cd "$build" && pwd)
fi
[ -n "$ranks" ] || { [ $mode = full ] && ranks="1 2 4 8" || ranks="1 2"; }
out=${out:-$PWD/spai-tables-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
MPIEXEC=${MPIEXEC:-$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null)}
export MPIEXEC=${MPIEXEC:-mpiexec} HYBRID=$build/hybrid VALIDATOR=$build/hybrid-validate
export MODE=$mode RANKS=$ranks BACKEND=$backend TABLES=$tables OUTDIR=$out JOBSDIR=$here
export MATRICES=${HY_SHARED_MATRICES:-$root/../shared/matrices} TAU=${TAU:-}
export ONLY=$only SCALE=$scale ANALOGUES=$analogues SEARCH=$search CHECK_ONLY=$check
exec "${HYBRID_PYTHON:-python3}" - <<'EOF'
import glob, itertools, json, math, os, shlex, subprocess, sys, time

E = os.environ
out, mode = E["OUTDIR"], E["MODE"]
ranks = [int(r) for r in E["RANKS"].split()]
# seed 001 (GTX 1080 Ti): Table 2 rows/nnz; Table 3 (no precond: iterations, s; SPAI: iterations,
# s); Table 4 (GPU, 1, 2, 4, 8 threads: setup / solve); Table 5 (CSRILU, SSPAI-VCL, GSPAI-Adaptive,
# HybridSPAI: setup, solve, iterations, total; None = "/" in the paper).  Our ILU(0) column is
# solver.precond = ilu0 (cuSPARSE csrilu02 + SpSV on CUDA: the paper's CSRILU; block Jacobi over
# ranks), timed in the same run as our SPAI; its setup is the factorisation (ilu_factor_s).
SEED = {
 "venkat01": dict(n=62424, nnz=1717792, gen="convdiff3d27", t3=(">10000", None, 35, 1.312),
   t4=([0.506, 0.501, 0.262, 0.151, 0.102], [0.806, 0.771, 0.761, 0.736, 0.715]),
   t5=([1.835, 38.856, 0.506, 0.102], [1.574, 0.036, 0.806, 0.715], [1148, 35, 35, 35], [3.427, 38.892, 1.312, 0.817])),
 "imagesensor": dict(n=118758, nnz=1446396, gen="convdiff2d13", t3=(">10000", None, 52, 1.036),
   t4=([0.228, 0.227, 0.179, 0.103, 0.104], [0.808, 0.785, 0.767, 0.745, 0.713]),
   t5=([None, None, 0.228, 0.104], [None, None, 0.808, 0.713], [">10000", ">10000", 52, 52], [None, None, 1.036, 0.817])),
 "cfd2": dict(n=123440, nnz=3085406, gen="convdiff3d27", pe=1.0, t3=(7768, 5.167, 1613, 3.518),
   t4=([1.187, 1.191, 0.631, 0.356, 0.224], [2.331, 2.231, 2.294, 2.178, 2.101]),
   t5=([None, None, 1.187, 0.224], [None, None, 2.331, 2.101], [">10000", ">10000", 1613, 1613], [None, None, 3.518, 2.325])),
 "apache2": dict(n=715176, nnz=4817870, gen="poisson3d", t3=(5813, 8.061, 1106, 3.032),
   t4=([0.226, 0.219, 0.126, 0.101, 0.133], [2.806, 2.761, 2.746, 2.734, 2.838]),
   t5=([3.386, 43.532, 0.226, 0.101], [6.776, 2.995, 2.806, 2.734], [475, 2503, 1106, 1106], [10.162, 46.527, 3.032, 2.835])),
 "t2em": dict(n=921632, nnz=4590832, gen="convdiff2d", t3=(1661, 3.122, 768, 2.338),
   t4=([0.075, 0.070, 0.060, 0.064, 0.103], [2.263, 2.253, 2.241, 2.231, 2.268]),
   t5=([19.884, None, 0.075, 0.064], [2998.63, None, 2.263, 2.231], [427, ">10000", 768, 768], [3018.514, None, 2.338, 2.295])),
 "thermal2": dict(n=1228045, nnz=8580313, gen="poisson3d", t3=(4095, 9.771, 2584, 9.748),
   t4=([0.332, 0.329, 0.201, 0.165, 0.164], [9.416, 9.443, 9.367, 9.369, 9.187]),
   t5=([5.502, None, 0.332, 0.164], [45.008, None, 9.416, 9.187], [1619, ">10000", 2584, 2584], [50.510, None, 9.748, 9.351])),
 "G3_circuit": dict(n=1585478, nnz=7660826, gen="poisson2d", t3=(">10000", None, 475, 2.530),
   t4=([0.167, 0.156, 0.113, 0.094, 0.115], [2.363, 2.302, 2.321, 2.329, 2.290]),
   t5=([5.245, None, 0.167, 0.115], [12.475, None, 2.363, 2.290], [257, ">10000", 475, 475], [17.720, None, 2.530, 2.405])),
}
REAL = ["494_bus.mtx", "orsirr_1.mtx", "sherman5.mtx", "watt_2.mtx", "cryg2500.mtx", "rajat19.mtx", "e05r0100.mtx.gz",
        "bcsstk13.mtx"]  # every matrix of ../shared/matrices

def fail(msg, code=1):
    print("spai-tables: FAILED: " + msg, flush=True)
    print("spai-tables: FAILED: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)

# The generators' stencils (app/gen/gen.c): dimension and the offsets in the stencil.  nnz on a
# side^d grid = sum over the offsets o of prod_d (side - |o_d|); every generated run's record is
# compared with it (run() below), so this table cannot drift from the generator unseen.
def _axis(o): return sum(map(abs, o)) == 1
STENCIL = {"poisson2d": (2, _axis), "convdiff2d": (2, _axis), "poisson3d": (3, _axis),
           "convdiff3d": (3, _axis), "convdiff3d27": (3, lambda o: max(map(abs, o)) == 1),
           "convdiff2d13": (2, lambda o: sum(map(abs, o)) <= 2)}

def grid(gen, rows):
    """side, n, nnz of generator gen asked for rows rows (gen_grid: side = floor(rows^(1/d)), >= 2)"""
    d, inside = STENCIL[gen]
    sd = max(1, int(round(rows ** (1.0 / d))))
    while sd > 1 and sd ** d > rows: sd -= 1
    while (sd + 1) ** d <= rows: sd += 1
    sd = max(sd, 2)
    offs = [o for o in itertools.product(range(-2, 3), repeat=d) if not any(o) or inside(o)]
    nnz = sum(math.prod(max(0, sd - abs(c)) for c in o) for o in offs)
    return sd, sd ** d, nnz

scale_given = bool(E.get("SCALE"))
if scale_given and not E["SCALE"].isdigit():
    fail("--scale '%s': a positive integer D (analogues at 1/D of the paper's rows)" % E["SCALE"])
scale = int(E["SCALE"]) if scale_given else (1 if mode == "full" else 100)
if scale < 1: fail("--scale %d: must be >= 1" % scale)
def rows_at(n, sc, given):
    return n if sc == 1 else max(27 if given else 1000, n // sc)

for a in E.get("ANALOGUES", "").split():   # --analogue NAME=GEN[:PECLET]
    name, _, g = a.partition("=")
    g, _, pe = g.partition(":")
    if name not in SEED or g not in STENCIL:
        fail("--analogue %s: NAME one of %s, GEN one of %s" % (a, " ".join(SEED), "|".join(STENCIL)))
    SEED[name]["gen"] = g
    if pe: SEED[name]["pe"] = float(pe)

def check_analogues():
    """The header's analogue check: at the paper's size rows and nonzeros per row within 10% of
    the paper's; no two analogues the same matrix (generator, grid, peclet) at the paper's size
    nor at this run's.  Returns the lines and the misses."""
    lines, miss = [], []
    lines.append("analogues: the paper's rows and nonzeros per row against ours at the paper's size (allowed 10%%) and at this run's (1/%d)" % scale)
    for name, sd in SEED.items():
        side, n, nnz = grid(sd["gen"], sd["n"])
        dr, dz = n / sd["n"] - 1, (nnz / n) / (sd["nnz"] / sd["n"]) - 1
        ok = abs(dr) <= 0.10 and abs(dz) <= 0.10
        s2, n2, z2 = grid(sd["gen"], rows_at(sd["n"], scale, scale_given))
        lines.append("  %-12s n %8d %6.2f/row <- %-12s peclet %-3s %4d^%d = %8d (%+5.1f%%) %6.2f/row (%+5.1f%%) %-4s | this run %d^%d = %d, %.2f/row"
                     % (name, sd["n"], sd["nnz"] / sd["n"], sd["gen"], "%g" % sd.get("pe", 0.5) if sd["gen"].startswith("convdiff") else "-",
                        side, STENCIL[sd["gen"]][0],
                        n, 100 * dr, nnz / n, 100 * dz, "ok" if ok else "MISS", s2, STENCIL[sd["gen"]][0], n2, z2 / n2))
        if not ok:
            miss.append("analogue of %s: %s at the paper's size has %d rows (%+.1f%%) and %.2f nonzeros per row against %d and %.2f (%+.1f%%; allowed 10%%)"
                        % (name, sd["gen"], n, 100 * dr, nnz / n, sd["n"], sd["nnz"] / sd["n"], 100 * dz))
    for what, sc, given in (("the paper's size", 1, False), ("this run's size (1/%d)" % scale, scale, scale_given)):
        seen = {}
        for name, sd in SEED.items():
            if sc != 1 and only and name not in only: continue  # this run's: the analogues it runs
            # (peclet only matters to convdiff*; poisson* ignore it)
            key = (sd["gen"], grid(sd["gen"], rows_at(sd["n"], sc, given))[0],
                   sd.get("pe", 0.5) if sd["gen"].startswith("convdiff") else 0.0)
            if key in seen:
                miss.append("the analogues of %s and %s are the same matrix at %s (%s, side %d, peclet %g)" % ((seen[key], name, what) + key))
            seen[key] = name
    lines.append("  distinct: %s" % ("no two analogues the same matrix at the paper's size or at this run's" if not any("same matrix" in m for m in miss) else "NO"))
    return lines, miss

only = set(E.get("ONLY", "").split())
known = set(SEED) | set(f.split(".")[0] for f in REAL)
if only - known:
    fail("--only: unknown name(s) %s; allowed: %s" % (" ".join(sorted(only - known)), " ".join(list(SEED) + [f.split(".")[0] for f in REAL])))
alines, amiss = check_analogues()
for ln in alines: print(ln, flush=True)
for m in amiss[:-1]: print("spai-tables: FAILED: " + m, flush=True)
if amiss: fail(amiss[-1] + " (nothing was run)")
if E.get("CHECK_ONLY") == "1":
    print("spai-tables: analogue check passed (%d analogues)" % len(SEED))
    sys.exit(0)

cases = []  # (label, seed name or None, args)
for name, s in SEED.items():
    if only and name not in only: continue
    rows = rows_at(s["n"], scale, scale_given)
    tau = E.get("TAU") or "0.99"
    cases.append(("%s~%s" % (s["gen"], name), name,
                  ["matrix.source=generate", "matrix.generator=" + s["gen"], "matrix.size=%d" % rows,
                   "matrix.peclet=%g" % s.get("pe", 0.5), "spai.tau=" + tau]))
have_m = os.path.isdir(E["MATRICES"])
reals = []  # (name, path) of the matrices present
if mode == "small" and have_m:
    for f in REAL:
        p = os.path.join(E["MATRICES"], f)
        if os.path.exists(p) and (not only or f.split(".")[0] in only):
            reals.append((f.split(".")[0], p))
            cases.append((f.split(".")[0], None, ["matrix.source=file", "matrix.file=" + p,
                                                  "spai.tau=" + (E.get("TAU") or "0.8")]))

log = open(os.path.join(out, "runs.log"), "a")
mismatch = []  # generated runs whose n / nnz(A) differ from the stencil table

def run(tag, np_, args):
    d = os.path.join(out, "runs", tag)
    os.makedirs(d, exist_ok=True)
    for f in glob.glob(os.path.join(d, "results", "*.json")):
        os.remove(f)
    cmd = shlex.split(E["MPIEXEC"]) + ["-n", str(np_), E["HYBRID"], "run.workload=spai",
          "run.backend=" + E["BACKEND"]] + args
    t0 = time.time()
    p = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    txt = p.stdout.decode(errors="replace")
    log.write("==== %s (exit %d, %.1f s)\n%s\n" % (" ".join(cmd), p.returncode, time.time() - t0, txt))
    log.flush()
    recs = sorted(glob.glob(os.path.join(d, "results", "*.json")))
    m = json.load(open(recs[-1]))["metrics"] if recs else {}
    m["_exit"] = p.returncode
    m["_dir"] = d
    m["_error"] = (json.load(open(recs[-1])).get("error") or "") if recs else (txt.strip().splitlines() or [""])[-1]
    a = dict(x.split("=", 1) for x in args if "=" in x)
    if a.get("matrix.source") == "generate" and "n" in m:
        side, n, nnz = grid(a["matrix.generator"], int(a["matrix.size"]))
        if (m["n"], m.get("nnz_A")) != (n, nnz):
            mismatch.append("%s: the generator made n %s, nnz %s; the stencil table says %d, %d" % (tag, m["n"], m.get("nnz_A"), n, nnz))
            print("spai-tables: FAILED: " + mismatch[-1], flush=True)
    print("  %-40s %d rank(s) exit %d" % (tag, np_, p.returncode), file=sys.stderr)
    return m

def its(m):
    """N converged; >N not converged after N; brk N breakdown at N; N* converged by the recursive
    residual but the true residual is above 10 tol"""
    if not m or "iterations" not in m: return "error"
    v, n = m.get("verdict", ""), m["iterations"]
    return {"converged": "%d" % n, "not converged": ">%d" % n, "breakdown": "brk %d" % n}.get(v, "%d*" % n)

def f(v, fmt="%.3f"):
    return "/" if v is None else (v if isinstance(v, str) else fmt % v)

def cell(m):
    """Table 6's cell: iterations and total seconds, or 'fails' with the verdict"""
    v = its(m)
    ok = m.get("_exit") == 0 and m.get("verdict") == "converged"
    return ("%s %.3fs" % (v, m.get("total_s", 0)) if ok else "fails: %s" % (v if v != "error" else "exit %d" % m.get("_exit", -1)))

def rank(m):
    """search order: converged (exit 0) first, then fewer iterations, then smaller nnz(M) (ties
    of the count are common: the cheaper M), then (min() keeps the first) the search's order:
    deterministic, never decided by a time"""
    ok = m.get("_exit") == 0 and m.get("verdict") == "converged"
    return (0 if ok else 1, m.get("iterations", 10 ** 9) if ok else 0, m.get("nnz_M", 0) if ok else 0)

def table6():
    """Table 6: every matrix of ../shared/matrices with none / Jacobi / SPAI default / SPAI best
    of the search / ILU(0); the search's counts; the findings"""
    grid_ = [w.split("=", 1) for w in E["SEARCH"].split()]
    for w in grid_:
        if len(w) != 2 or not w[1] or w[0] not in ("tau", "levels", "scale", "filter", "threshold", "max_col"):
            fail("--search '%s': words KEY=V1,V2,... with KEY one of tau, levels, scale, filter, threshold, max_col (spai.KEY)" % E["SEARCH"])
    keys = [k for k, _ in grid_]
    settings = [dict(zip(keys, vals)) for vals in itertools.product(*[v.split(",") for _, v in grid_])]
    P("Table 6: preconditioners on every matrix of %s (ours, %d rank(s); BiCGSTAB tol 1e-7, at most 10000 iterations): iterations and total s (setup + solve), or 'fails: ' and the verdict" % (E["MATRICES"], ranks[0]))
    P("  SPAI default: no spai key set; SPAI best: the best of %d settings (%s; converged, then fewest iterations, smallest nnz(M), the first listed), written %s" % (len(settings), E["SEARCH"], "/".join(keys)))
    if not reals:
        P("  skipped: %s" % ("the folder is absent" if not have_m else "the matrices run with --small only" if mode != "small" else "no matrix of the list selected (--only)"))
        P()
        return
    P("  %-9s %6s %7s | %-17s %-17s %-17s %-17s %-17s | %s" % ("matrix", "n", "nnz", "none", "jacobi", "spai default", "spai best", "ilu0", "best setting"))
    found, memo = [], {}
    def go(tag, args):
        key = tuple(args)
        if key not in memo: memo[key] = run(tag, ranks[0], args)
        return memo[key]
    for name, path in reals:
        base = ["matrix.source=file", "matrix.file=" + path]
        r = {pc: go("%s-t6-%s" % (name, pc), base + ["solver.precond=" + pc]) for pc in ("none", "jacobi", "ilu0")}
        r["spai"] = go("%s-t6-spai" % name, base + ["solver.precond=spai"])
        res = []
        for st in settings:
            lab = "/".join(st.values())
            tag = "%s-t6-" % name + "-".join("%s%s" % kv for kv in st.items())
            res.append((lab, go(tag, base + ["solver.precond=spai"] + ["spai.%s=%s" % kv for kv in st.items()])))
        best = min(res, key=lambda x: rank(x[1]))
        none_ok = rank(best[1])[0] != 0
        P("  %-9s %6s %7s | %-17s %-17s %-17s %-17s %-17s | %s" % (name, r["none"].get("n", "?"), r["none"].get("nnz_A", "?"),
          cell(r["none"]), cell(r["jacobi"]), cell(r["spai"]), "fails: all %d" % len(res) if none_ok else cell(best[1]),
          cell(r["ilu0"]), "(none of the %d converged)" % len(res) if none_ok else
          "%s, nnz(M) %.2f nnz(A)" % (best[0], best[1].get("nnz_ratio", float("nan")))))
        P("  %-9s search: %s" % ("", ", ".join("%s %s" % (lab, its(m)) for lab, m in res)))
        for pc, m in list(r.items()) + res:
            if m.get("_exit") not in (0, 3, 4) or (rank(m)[0] and "iterations" not in m):
                P("  %-9s %s: exit %d: %s" % ("", pc, m.get("_exit", -1), m.get("_error", "")[:150]))
        conv = [lab for lab, m in res if rank(m)[0] == 0]
        if rank(r["jacobi"])[0] == 0 and not conv and rank(r["spai"])[0] != 0:
            found.append("finding: %s: Jacobi converges in %d iterations; no SPAI setting of the search converges (default %s; settings: %s)"
                         % (name, r["jacobi"]["iterations"], its(r["spai"]), ", ".join(sorted(set(its(m) for _, m in res)))))
    for f_ in found: P(f_)
    if not found: P("finding: SPAI (some setting of the search) converges wherever Jacobi does")
    P()

tables = open(os.path.join(out, "tables.txt"), "w")  # written as the rows come
def P(s=""):
    print(s, flush=True)
    tables.write(s + "\n")
    tables.flush()

P("HybridSPAI tables (seed 001): mode %s, backend %s, ranks %s, binary %s" % (mode, E["BACKEND"], E["RANKS"], E["HYBRID"]))
P("seed figures: GTX 1080 Ti, the SuiteSparse matrices of its Table 2; ours: the matrices named (generated analogues '~name')")
P("iterations: N converged, >N not converged after N, brk N breakdown at iteration N, N* true residual > 10 tol")
for ln in alines: P(ln)
P()
if "3" in E["TABLES"]:
    P("Table 3: BiCGSTAB without / with SPAI (tol 1e-7, at most 10000 iterations; %d rank(s))" % ranks[0])
    P("%-28s %9s %10s | %9s %9s %9s %9s || seed: %8s %8s %8s %8s" % ("matrix", "n", "nnz", "its none", "solve s", "its SPAI", "total s", "its none", "s", "its SPAI", "s"))
    for label, seed, args in cases:
        a = run(label + "-none", ranks[0], args + ["solver.precond=none"])
        b = run(label + "-spai", ranks[0], args + ["solver.precond=spai"])
        s = SEED.get(seed, {}).get("t3", (None,) * 4)
        P("%-28s %9s %10s | %9s %9s %9s %9s ||       %8s %8s %8s %8s" % (label, a.get("n", "?"), a.get("nnz_A", "?"),
          its(a), f(a.get("solve_s")), its(b), f(b.get("total_s")), f(s[0], "%s"), f(s[1]), f(s[2], "%s"), f(s[3])))
    P()
t4 = {}  # label -> (our records over ranks, the seed's Table 4 or None)
if "4" in E["TABLES"]:
    P("Table 4: SPAI setup / BiCGSTAB solve / total seconds over ranks %s (seed: GPU, 1, 2, 4, 8 threads)" % E["RANKS"])
    for label, seed, args in cases:
        ms = [run("%s-r%d" % (label, r), r, args + ["solver.precond=spai"]) for r in ranks]
        t4[label] = (ms, SEED.get(seed, {}).get("t4"))
        st = SEED.get(seed, {}).get("t4")
        for row, key in (("setup", "setup_s"), ("solve", "solve_s"), ("total", "total_s")):
            ours = " ".join("%8s" % f(m.get(key)) for m in ms)
            seedv = ""
            if st:
                vals = st[0] if row == "setup" else st[1] if row == "solve" else [x + y for x, y in zip(*st)]
                seedv = " ".join("%6.3f" % v for v in vals)
            P("%-28s %-6s %s || seed %s" % (label if row == "setup" else "", row, ours, seedv))
        P("%-28s %-6s %s" % ("", "its", " ".join("%8s" % its(m) for m in ms)))
    P()
if "5" in E["TABLES"]:
    have_v = os.access(E["VALIDATOR"], os.X_OK)
    P("Table 5: preconditioners (setup s / solve s / iterations / total s); PETSc columns from hybrid-validate spai%s" % ("" if have_v else " (not built here: n/a)"))
    for label, seed, args in cases:
        cols = {}
        for pc in ("spai", "jacobi", "none", "ilu0"):
            extra = ["output.matrix=A.petsc", "output.rhs=b.petsc", "output.preconditioner=M.mtx"] if pc == "spai" and have_v else []  # only the validator reads them
            cols["ours " + pc] = run("%s-t5-%s" % (label, pc), ranks[0], args + ["solver.precond=" + pc] + extra)
        # SPAI with the ParaSails-like options (pattern of the thresholded A squared, diagonal
        # scaling): where the default pattern is too thin (sherman5, watt_2, ...)
        cols["ours spai2"] = run("%s-t5-spai2" % label, ranks[0], args + ["solver.precond=spai", "spai.levels=2",
                                                                        "spai.scale=diag", "spai.max_col=64"])
        petsc = {}
        if have_v and cols["ours spai"].get("_exit") in (0, 3, 4) and os.path.exists(os.path.join(cols["ours spai"]["_dir"], "M.mtx")):
            d = cols["ours spai"]["_dir"]
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            p = subprocess.run([E["VALIDATOR"], "spai", "-A", "A.petsc", "-b", "b.petsc", "-M", "M.mtx",
                                "-iters", str(cols["ours spai"].get("iterations", -1))], cwd=d,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
            vt = p.stdout.decode(errors="replace")
            log.write("==== hybrid-validate spai in %s (exit %d)\n%s\n" % (d, p.returncode, vt))
            for ln in vt.splitlines():
                w = ln.split()
                if w and w[0] in ("setup", "solve", "iterations", "total") and len(w) == 6:
                    petsc[w[0]] = w[1:]
        P("%s" % label)
        hdr = ["ours SPAI", "ours Jacobi", "ours none", "ours ILU(0)", "SPAI L2+diag", "PETSc+our M", "ParaSails", "ILU(0)", "PETSc Jacobi", "PETSc none"]
        P("  %-10s" % "" + "".join("%13s" % h for h in hdr) + ("   || seed: CSRILU SSPAI-VCL GSPAI HybridSPAI" if seed else ""))
        st = SEED.get(seed, {}).get("t5")
        for i, (row, key) in enumerate((("setup", "setup_s"), ("solve", "solve_s"), ("iterations", None), ("total", "total_s"))):
            vals = []
            for pc in ("spai", "jacobi", "none", "ilu0", "spai2"):
                m = cols["ours " + pc]
                vals.append(its(m) if key is None else f(m.get(key), "%.4f"))
            vals += petsc.get(row, ["n/a"] * 5)
            sv = ("   || " + " ".join("%8s" % f(v, "%s" if isinstance(v, (str, int)) else "%.3f") for v in st[i])) if st else ""
            P("  %-10s" % row + "".join("%13s" % v for v in vals) + sv)
    P()
if "6" in E["TABLES"]:
    table6()
tables.close()

# Table 4 as CSV, and its speed-up curves (setup and total over ranks; the seed's over threads,
# relative to 1 thread) when matplotlib is there
if t4:
    with open(os.path.join(out, "table4.csv"), "w") as fc:
        fc.write("matrix,ranks,setup_s,solve_s,total_s,iterations\n")
        for label, (ms, st) in t4.items():
            for r, m in zip(ranks, ms):
                fc.write("%s,%d,%s,%s,%s,%s\n" % (label, r, m.get("setup_s", ""), m.get("solve_s", ""),
                                                 m.get("total_s", ""), m.get("iterations", "")))
    sys.path.insert(0, E["JOBSDIR"])
    import hyplot   # jobs/hyplot.py: the plotting tool shared with report.py
    plt = hyplot.mpl()
    if plt is None:
        print("plots: skipped (python3 has no matplotlib; make deps installs it)")
    if plt:
        fig, axs = plt.subplots(1, 2, figsize=(12, 4.4))
        cols = hyplot.colours(len(t4))
        dev = "backend " + E["BACKEND"]
        for ax, key, idx, title in ((axs[0], "setup_s", 0, "spai (seed 001): SPAI setup speed-up, %s" % dev),
                                    (axs[1], "total_s", None, "spai (seed 001): setup + BiCGSTAB speed-up, %s" % dev)):
            for k, (label, (ms, st)) in enumerate(t4.items()):
                col = cols[k]
                base = ms[0].get(key) if ms and ms[0].get("_exit") == 0 else None
                pts = [(r, base / m[key]) for r, m in zip(ranks, ms) if base and m.get(key) and m.get("_exit") == 0]
                if pts:
                    ax.plot(*zip(*pts), "-o", ms=3, color=col, label="ours " + label)
                if st:
                    v = st[0] if idx == 0 else [x + y for x, y in zip(*st)]
                    thr = [1, 2, 4, 8]  # the seed's Table 4 columns after "GPU": 1, 2, 4, 8 threads
                    ax.plot(thr, [v[1] / x for x in v[1:]], "--", color=col, alpha=0.6)
            ax.plot(ranks, ranks, ":", color="grey", lw=0.8, label="ideal")
            ax.set_xscale("log", base=2)
            ax.set(xlabel="ranks (ours) / threads (seed, dashed)", ylabel="speed-up over 1 rank (time ratio)", title=title)
            ax.grid(True, alpha=0.3)
        axs[1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        fig.savefig(os.path.join(out, "table4_speedup.png"), dpi=110, bbox_inches="tight")
        plt.close(fig)
        print("plots: %s" % os.path.join(out, "table4_speedup.png"))
print("tables: %s (run logs: %s)" % (os.path.join(out, "tables.txt"), os.path.join(out, "runs.log")))
if mismatch:
    fail("%d generated run(s) differ from the stencil table: %s" % (len(mismatch), mismatch[0]))
EOF
