#!/usr/bin/env bash
# jobs/spai-tables.sh - the HybridSPAI paper's Tables 3, 4 and 5 (seed 001) on the matrices this
# project has, with the seed's figures printed beside ours.
#
#   jobs/spai-tables.sh [--small|--full] [--build DIR] [--ranks "1 2 4 8"] [--backend B]
#                       [--tables 345] [--out DIR]
#
# --small (default; CI, a workstation): the real SuiteSparse matrices in ../shared/matrices and
#   the generated analogues of the paper's matrices at 1/100 of their rows, ranks "1 2".
# --full (the GPU machine): generated analogues at the paper's sizes (Table 2), ranks "1 2 4 8"
#   (more ranks than GPUs share devices; that is reported by hybrid).
# Analogues (generated matrices with the paper's rows and about its nonzeros per row, not the
#   paper's matrices): venkat01 (27.5 per row), cfd2 (25.0) -> convdiff3d27 (~26-27), cfd2 at
#   peclet 1 and venkat01 at 0.5 so that they differ at every size; t2em (5.0) -> convdiff2d;
#   apache2 (6.7), thermal2 (7.0) -> poisson3d (~7); G3_circuit (4.8) -> poisson2d (~5);
#   imagesensor (12.2) -> convdiff2d (5: no 13-point generator yet); rows rounded down to a
#   square/cube grid.
# Table 3: BiCGSTAB without / with SPAI (iterations, solve seconds).  Table 4: SPAI setup, solve
#   and total seconds over the rank counts.  Table 5: preconditioners (setup, solve, iterations,
#   total): ours (SPAI, Jacobi, none, ILU(0), SPAI with levels 2 + diagonal scaling) from hybrid,
#   and PETSc's (BCGS with our M, ParaSails,
#   ILU(0), Jacobi, none) from hybrid-validate spai when it was built (n/a otherwise).
# Environment: MPIEXEC (default: the one CMake found), TAU (default 0.99 generated / 0.8 files).
# Writes $OUT/tables.txt (default spai-tables-out/), $OUT/table4.csv, $OUT/table4_speedup.png (speed-up
# of setup and of setup + solve over ranks, the seed's over threads dashed; needs matplotlib) and
# the run logs/records beside it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=small build="" ranks="" backend=auto tables=345 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --small) mode=small ;;
    --full) mode=full ;;
    --build) build=$2; shift ;;
    --ranks) ranks=$2; shift ;;
    --backend) backend=$2; shift ;;
    --tables) tables=$2; shift ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "spai-tables: error: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
  shift
done
if [ -z "$build" ]; then
  for b in build-gpu build; do [ -x "$root/$b/hybrid" ] && { build=$root/$b; break; }; done
fi
[ -n "$build" ] && [ -x "$build/hybrid" ] || { echo "spai-tables: error: no hybrid binary (give --build DIR)" >&2; exit 1; }
build=$(cd "$build" && pwd)
[ -n "$ranks" ] || { [ $mode = full ] && ranks="1 2 4 8" || ranks="1 2"; }
out=${out:-$PWD/spai-tables-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
MPIEXEC=${MPIEXEC:-$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null)}
export MPIEXEC=${MPIEXEC:-mpiexec} HYBRID=$build/hybrid VALIDATOR=$build/hybrid-validate
export MODE=$mode RANKS=$ranks BACKEND=$backend TABLES=$tables OUTDIR=$out JOBSDIR=$here
export MATRICES=${HY_SHARED_MATRICES:-$root/../shared/matrices} TAU=${TAU:-}
exec "${HYBRID_PYTHON:-python3}" - <<'EOF'
import glob, json, os, shlex, subprocess, sys, time

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
 "imagesensor": dict(n=118758, nnz=1446396, gen="convdiff2d", t3=(">10000", None, 52, 1.036),
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

cases = []  # (label, seed name or None, args)
for name, s in SEED.items():
    rows = s["n"] if mode == "full" else max(1000, s["n"] // 100)
    tau = E.get("TAU") or "0.99"
    cases.append(("%s~%s" % (s["gen"], name), name,
                  ["matrix.source=generate", "matrix.generator=" + s["gen"], "matrix.size=%d" % rows,
                   "matrix.peclet=%g" % s.get("pe", 0.5), "spai.tau=" + tau]))
if mode == "small" and os.path.isdir(E["MATRICES"]):
    for f in REAL:
        p = os.path.join(E["MATRICES"], f)
        if os.path.exists(p):
            cases.append((f.split(".")[0], None, ["matrix.source=file", "matrix.file=" + p,
                                                  "spai.tau=" + (E.get("TAU") or "0.8")]))

log = open(os.path.join(out, "runs.log"), "a")

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

tables = open(os.path.join(out, "tables.txt"), "w")  # written as the rows come
def P(s=""):
    print(s, flush=True)
    tables.write(s + "\n")
    tables.flush()

P("HybridSPAI tables (seed 001): mode %s, backend %s, ranks %s, binary %s" % (mode, E["BACKEND"], E["RANKS"], E["HYBRID"]))
P("seed figures: GTX 1080 Ti, the SuiteSparse matrices of its Table 2; ours: the matrices named (generated analogues '~name')")
P("iterations: N converged, >N not converged after N, brk N breakdown at iteration N, N* true residual > 10 tol")
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
EOF
