/* lle.c - workload "lle": locally linear embedding (seed 004).  Every rank holds all points
 * (generated identically or read by rank 0 and broadcast); each rank finds the K nearest
 * neighbours and the reconstruction weights of its block of query points on its backend;
 * the rows of W are gathered on rank 0, which finds the d + 1 smallest eigenpairs of
 * M = (I - W)^T (I - W) on the host for either backend through the eigensolver table
 * (lle_eig.h: bsvd, shift-invert, dense), drops the constant vector and writes the
 * embedding.  The graph and the embedding are the same for any rank count (ties broken by
 * index; M assembled in a fixed order).  This file: the keys, the typed options, the story. */
#include "workload.h"
#include "lle.h"
#include "lle_eig.h"
#include "k_lle.h"

#include <stdlib.h>
#include <string.h>

static const cfg_key lle_keys[] = {
  { "lle", "dataset", CFG_ENUM, "swissroll", 0, 0, "swissroll|scurve|uniform|file",
    "points: scikit-learn's make_swiss_roll / make_s_curve (same values for the same seed), uniform in [0,1)^ambient_dim (KNN benchmarks), or a file" },
  { "lle", "stage", CFG_ENUM, "all", 0, 0, "all|knn|weights", "stop after this stage (knn / weights: benchmarks of the first stages)" },
  { "lle", "file", CFG_STR, "", 0, 0, NULL, "dataset = file: CSV (optional header line) or .npy (float32/float64)" },
  { "lle", "color_column", CFG_ENUM, "none", 0, 0, "none|last", "dataset = file: the last column is a colour for the plot" },
  { "lle", "n", CFG_INT, "2000", 3, 2e9, NULL, "number of generated points" },
  { "lle", "hole", CFG_BOOL, "false", 0, 0, NULL, "dataset = swissroll: scikit-learn's make_swiss_roll(hole=True) (same values for the same seed)" },
  { "lle", "noise", CFG_REAL, "0", 0, 1e6, NULL, "standard deviation of the generators' Gaussian noise" },
  { "lle", "ambient_dim", CFG_INT, "0", 0, 4096, NULL,
    "lift the points into this many dimensions by a seeded random orthonormal map (0: keep)" },
  { "lle", "k", CFG_INT, "10", 1, 64, NULL, "neighbours per point (K)" },
  { "lle", "dim", CFG_INT, "2", 1, 32, NULL, "embedding dimension d (< k)" },
  { "lle", "method", CFG_ENUM, "standard", 0, 0, "standard|ltsa|hessian|modified",
    "scikit-learn's LocallyLinearEmbedding methods: standard (barycentric weights, M = (I - W)^T (I - W)), ltsa (local tangent space alignment), hessian (Hessian eigenmaps, needs k > d (d + 3) / 2), modified (multiple weights per point); ltsa, hessian and modified assemble M from one local block per point" },
  { "lle", "modified_tol", CFG_REAL, "1e-12", 0, 1e6, NULL, "method = modified: a Householder vector shorter than this is taken as 0 (scikit-learn's modified_tol)" },
  { "lle", "hessian_tol", CFG_REAL, "1e-4", 0, 1e6, NULL, "method = hessian: a local null-space column whose sum is below this in magnitude is not normalised (scikit-learn's hessian_tol)" },
  { "lle", "reg", CFG_REAL, "1e-3", 0, 1e6, NULL, "regularisation of the local Gram matrix: reg * trace(G) (reg when the trace is 0)" },
  { "lle", "knn", CFG_ENUM, "auto", 0, 0, "auto|brute|kdtree|grid",
    "neighbour search: brute (backend kernel, query blocks over ranks), kdtree (host), grid (exact uniform-grid cell search on the backend, dimension <= 8), auto: grid for dimension <= 3 and n >= 100000 on CUDA, dimension <= 4 and n >= 50000 on the host backend, else kdtree on the host backend for dimension <= 8 (on CUDA below lle.auto_host_n points too), else brute; the kdtree's queries run on the rank's threads" },
  { "lle", "weights", CFG_ENUM, "auto", 0, 0, "auto|backend|host",
    "method = standard: where the reconstruction weights are computed: backend (its kernel: the device on CUDA, one thread on the host backend), host (the rank's threads on the host, the host kernel's values), auto (host on a device backend below lle.auto_host_n points, else backend)" },
  { "lle", "auto_host_n", CFG_INT, "50000", 0, 2147483647, NULL,
    "on a device backend (CUDA), below this many points lle.knn = auto takes the host kd-tree (dimension <= 8) and lle.weights = auto the host, both on the rank's threads: the device's fixed costs (allocations, copies, first launches) lose at small N (0: never)" },
  { "lle", "knn_host", CFG_ENUM, "kdtree", 0, 0, "kdtree|grid",
    "the search lle.knn = auto takes on a device backend below lle.auto_host_n points, on the rank's threads: the host kd-tree (dimension <= 8; its top levels built on one thread) or the host grid (dimension <= 4, else the kd-tree; its cells sorted on one thread, O(n)); the same lists" },
  { "lle", "precision", CFG_ENUM, "fp64", 0, 0, "fp64|fp32", "brute-force distances: FP64 or FP32, both in the direct form sum (x - y)^2" },
  { "lle", "knn_warmup", CFG_BOOL, "false", 0, 0, NULL, "benchmarks: the neighbour search run once untimed before the knn phase (the device's first-use costs, kernel loading and memory pool, left out as torch's warm-up leaves them)" },
  { "lle", "eigensolver", CFG_ENUM, "auto", 0, 0, "bsvd|chol-nd|shift-invert|dense|gpu-chol|auto",
    "auto (the default): chol-nd from lle.auto_cnd_n points (default 20000: where the H200 figures show it winning), bsvd below, the choice printed (lle: eigensolver = auto: ...) and recorded (metrics.eigensolver); "
    "bsvd: UMFPACK LU of B = I - W (+ one diagonal entry), M^+ = B^+ B^+T with the constant vector deflated, subspace iteration, M never assembled; "
    "shift-invert: CHOLMOD factorisation of M + tau I and subspace iteration; dense: LAPACK on the n x n matrix (small n, reference); "
    "chol-nd: the same iteration with a CHOLMOD supernodal Cholesky of M + tau I (A A^T from A = B^T, M never assembled) in a geometric nested-dissection order of the points (O(n log n)), the block's solves in one call; "
    "gpu-chol: shift-invert subspace iteration on the device, cuSOLVER sparse Cholesky of P (M + tau I) P^T (CUDA backend only); "
    "gpu-chol lost to bsvd on the H200 at N = 20k and 1M" },
  { "lle", "auto_cnd_n", CFG_INT, "20000", 0, 2147483647, NULL,
    "eigensolver = auto: chol-nd from this many points, bsvd below (0: always chol-nd); the H200's 16 cores with the own factor: chol-nd won at every size measured, eigen N = 20k 0.155 s against 0.174, 100k 0.64 s against 1.19, 1M 5.9 s against 13-15" },
  { "lle", "gpu_ordering", CFG_ENUM, "colamd", 0, 0, "colamd|metis|symamd",
    "gpu-chol: the fill-reducing order of M, on the host: colamd (CHOLMOD's COLAMD from the pattern of B = I - W alone) or metis / symamd (cuSOLVER's host METIS nested dissection / symamd of M's pattern; experiments)" },
  { "lle", "nd_leaf", CFG_INT, "64", 2, 1e6, NULL,
    "chol-nd: the nested dissection leaves segments of at most this many points unsplit" },
  { "lle", "cnd_solve_cols", CFG_INT, "0", 0, 64, NULL,
    "chol-nd: right-hand sides a solve call: 0, the whole block in one call (its BLAS on the rank's threads); c > 0, calls of c columns each, run on the rank's threads with one BLAS thread each (the same arithmetic at any thread count)" },
  { "lle", "cnd_blas_threads", CFG_INT, "0", 0, 1024, NULL,
    "chol-nd: BLAS threads of the numeric Cholesky factor: with cnd_factor = own, of the top separators' dpotrf / dtrsm (0: run.blas_threads where set, else the rank's threads); with cnd_factor = cholmod, of all of it (0: run.blas_threads where set, else min(4, the size rule of the other solvers): CHOLMOD's many small supernodal dsyrk / dgemm / dpotrf calls lose with more, H200 N = 1M: 54.7 s at 16 threads, 6.9 s at 4, 8.6 s at 1); the block solves keep the size rule" },
  { "lle", "cnd_factor", CFG_ENUM, "own", 0, 0, "own|cholmod",
    "chol-nd: the numeric Cholesky factor on CHOLMOD's supernodal analysis: own (kernels/host/lle_chol.c: left-looking supernodal, tree-parallel: subtrees on the rank's threads with one BLAS thread each, the top separators split over the threads, their dpotrf / dtrsm on lle.cnd_blas_threads) or cholmod (CHOLMOD's own, sequential over the supernodes, its BLAS on lle.cnd_blas_threads)" },
  { "lle", "cnd_top", CFG_ENUM, "auto", 0, 0, "auto|blas|device|tiles",
    "chol-nd, cnd_factor = own: the top supernodes (above the tree's cut) and every supernode's dpotrf / dtrsm: auto (device where the backend has it, i.e. CUDA, from lle.auto_device_n points, else tiles); device (the subtrees by tiles on the host's threads, the top supernodes assembled and updated from below there, then shipped to the device, updated among themselves by cuBLAS DGEMM and factored by cuSOLVER dpotrf / cuBLAS dtrsm, and shipped back; the tree cut as for 16 threads whatever the rank's: the same factor at any thread count; H200 N = 1M: the top 0.553 s against 0.896 s by tiles; refused on a backend without it, exit 1); tiles (64-wide tiles, right-looking; the top supernodes' tiles on the rank's threads, one BLAS thread throughout: the factor the same bit for bit at any thread count whatever run.blas_threads; H200 N = 1M: numeric 1.65 s, its top 0.87 s) or blas (one call each; the top supernodes' on up to lle.cnd_blas_threads OpenBLAS threads: numeric 2.29 s, its top 1.54 s)" },
  { "lle", "auto_device_n", CFG_INT, "200000", 0, 2147483647, NULL,
    "lle.cnd_top = auto and lle.iter_block = auto take the device (where the backend has one) from this many points: below it their fixed costs lose (H200 mid run: the device iteration block 0.13 s against the driver's 0.013 s at N = 20k; 0.40 s against 0.78 s at 1M)" },
  { "lle", "cnd_below", CFG_ENUM, "auto", 0, 0, "auto|device|host",
    "chol-nd with the top supernodes on the device (lle.cnd_top = device, or auto on CUDA): their updates from the supernodes below the cut: device (the below supernodes' rows in the top packed by the subtree phase, shipped once, applied on the device by a kernel a top column a block) or host (applied on the rank's threads before the top blocks go up); auto (the default): device wherever the top is on the device (H200, N = 1M: numeric 0.99 s, its top 0.35 s, against 1.19 s, top 0.56 s, with host and cnd_solve_top = host in session 7's final run at 6a00730; 0.93 s, top 0.34 s, in the 2026-12-02 06:28 run at 80c0879)" },
  { "lle", "cnd_solve_top", CFG_ENUM, "auto", 0, 0, "auto|device|host",
    "chol-nd with the top supernodes and the updates from below on the device (lle.cnd_top = device or auto on CUDA, lle.cnd_below = device or auto): the block solves' top part (forward and backward through the top supernodes, with the tails' updates) on the device, the factored top kept there (device; the host sends the block's rows at the top and tails' columns and gets the top rows back each solve), or on the rank's threads (host); auto (the default): device wherever the updates from below are (H200, session 7 final run at 6a00730, N = 1M: block solves 0.661 s against 0.682 s)" },
  { "lle", "cnd_top_copy", CFG_ENUM, "pinned", 0, 0, "pageable|pinned",
    "chol-nd with the top supernodes on the device: how their blocks and the tails from below go up: pinned (the default: through two 32 MB pinned buffers that the rank's threads fill while the other's DMA runs; H200 N = 1M, 14:27 run at 5f1ee7b: eigen 2.70 / 2.53 s in two runs against pageable's 2.37 s in one, no gain seen within the spread; correct on the H200: lle_gpu_chol_nd's pinned variant passed at b8a85d5 and 5f1ee7b; the pageable path moved 1038.6 MB up in 0.276 s in the 06:28 run at 80c0879) or pageable (cudaMemcpyAsync from the host's arrays, the driver's own staging on one thread)" },
  { "lle", "cnd_top_assembly", CFG_ENUM, "auto", 0, 0, "auto|device|host",
    "chol-nd with the top supernodes and the updates from below on the device (lle.cnd_top = device or auto on CUDA, lle.cnd_below = device or auto): where the top supernodes' blocks of P (A A^T + tau I) P^T are assembled: device (the rank's threads build only the top columns' entry lists, the products in the host's order, and those go up; the device zeroes the blocks and adds them, a thread a column: the same blocks bit for bit, a few bytes a nonzero moved instead of the dense blocks: H200 N = 1M at 084edf1, 464 MB moved against 1039 MB, the lists 0.008 s on the threads against the assembly's 0.034 s, the top 0.215 s against 0.233 s) or host (zeroed and assembled in L's values on the threads, the blocks copied up); auto (the default): device wherever the updates from below are" },
  { "lle", "cnd_top_open", CFG_ENUM, "beside", 0, 0, "after|beside",
    "chol-nd with the top supernodes on the device (lle.cnd_top = device or auto on CUDA): when their engine is set up (its ~1 GB of device buffers at N = 1M, the pinned staging, events and pair lists) and, with the updates from below there, the tails' host buffer page-locked (so that the tails go up in one DMA, not through the staging): beside the subtree phase (the default: on a thread of its own while the rank's threads factor the subtrees; on more than one rank, on rank 0, which runs the top) or after it, in the top phase (the staging for the tails). The same factor bit for bit either way" },
  { "lle", "cnd_top_warm", CFG_BOOL, "true", 0, 0, NULL,
    "chol-nd with the top's engine opened beside the subtree phase (lle.cnd_top_open = beside): the open also runs the top's work once on its own buffers (unit blocks, zero tails; its own stream and cuBLAS / cuSOLVER handles) while the rank's threads factor the subtrees, so that the libraries' kernels are loaded before the top needs them (each process loads them on first use, from their files in a machine's first run): H200 N = 1M, the top's own device work 0.027 s with it against 0.049-0.056 s without (0.141-0.165 s in a machine's first run), the top at 2 ranks 0.080-0.086 s against 0.105-0.117 s; the device is idle in that phase, but where the subtree phase is shorter than the warm-up the top waits for it (N = 200k: 0.011 s, the top still 0.049 s against 0.076). Nothing it writes is read by the factor: the same factor bit for bit either way" },
  { "lle", "eig_ranks", CFG_ENUM, "auto", 0, 0, "auto|1|all",
    "chol-nd: the ranks that share the eigen-solve: all (every rank builds B and runs the same order, symbolic analysis and plan; the plan's subtrees are split over the ranks by their flops, each rank factors its subtrees and does their part of every block solve, rank 0 the top supernodes (on its device where one rank puts them there) and the iteration's QR / Rayleigh-Ritz: the same factor, solves and embedding bit for bit as on one rank), 1 (rank 0 alone, the other ranks wait), auto (all on more than one rank); spread only with lle.cnd_factor = own, lle.cnd_solve_cols = 0 and lle.method = standard (all refuses other settings, auto takes 1 there); another solver (auto below lle.auto_cnd_n points: bsvd) runs on rank 0" },
  { "lle", "eig_top", CFG_ENUM, "rank0", 0, 0, "rank0|spread",
    "chol-nd spread over the ranks (lle.eig_ranks): rank0 (the supernodes above the one-rank cut of the tree on rank 0, the other ranks the subtrees below it: the same factor bit for bit as one rank) or spread (the tree cut for the ranks first, two subtrees a rank by flops; each rank factors its subtrees with their own top, on its device where one rank puts the top there, their solves' top on its threads; rank 0 only the separators above the ranks' subtrees: bit for bit the same on the host by tiles, within rounding where the device takes other supernodes)" },
  { "lle", "cnd_cut", CFG_REAL, "1", 1, 64, NULL,
    "chol-nd, cnd_factor = own: how deep the supernodal tree is cut: a subtree is split while it is heavier than the flops below the cut / (threads x cnd_cut); 1 (default) balances the subtrees over the rank's threads, larger moves more supernodes into the top (with cnd_top = device: more of the factor on the device, more bytes moved); the host's factor is the same bit for bit at any cut" },
  { "lle", "pool_spin_us", CFG_INT, "0", 0, 1000000, NULL,
    "the host thread pools (chol-nd's order, factor and solves; bsvd's solves and products; the kd-tree's queries and the host weights): microseconds a waiting thread spins (CPU pauses, then sched_yield) before it sleeps on a condition variable; longer keeps the threads awake between a phase's many small jobs at the cost of busy cores; 0 (auto): 2000 below 200000 points (H200, N = 20k, 8 threads: eigen 0.071 s against 0.092 s with 60), 60 from there" },
  { "lle", "cnd_below_gemm", CFG_INT, "64", 0, 1000000, NULL,
    "chol-nd with the updates from below on the device (lle.cnd_below = device or auto): the pairs of a top supernode and a tail from below whose tail has at least this many columns go through one cuBLAS DGEMM each and a scatter, after the kernel that does the rest a top column a block; 0: all by the kernel. At N = 1M the 1289 pairs with 64 columns or more hold 98.7% of the 2.1e10 FMAs. The factor is the same at any rank and thread count, not bit for bit the kernel's" },
  { "lle", "cnd_small", CFG_INT, "32", 0, 64, NULL,
    "chol-nd, cnd_factor = own: the dpotrf / dtrsm of diagonal blocks (the factor's tiles, the solves' triangular solves) with fewer columns than this by plain loops instead of LAPACK / BLAS calls, whose fixed costs exceed the work of small blocks (N = 20k: 1127 of 1375 supernodes have at most 16 columns; H200 mid run at 20k: block solves 0.016 s against 0.021 s with 0, the numeric factor the same); 0: every block through LAPACK / BLAS; changes the last bits, not the thread-count invariance" },
  { "lle", "iter_products", CFG_ENUM, "blocks", 0, 0, "blocks|columns",
    "bsvd / chol-nd with the driver's iteration (lle.iter_block = driver): the products M V = B^T (B V) by blocks of 8 columns, rows split over the threads, B^T made beside the factorisation (blocks), or a column a thread, two sweeps of B a column (columns); the same bits either way" },
  { "lle", "iter_open", CFG_ENUM, "beside", 0, 0, "after|beside",
    "bsvd / chol-nd with the iteration's block work on the backend's engine (lle.iter_block): when the engine is set up (B up, B^T made, the blocks and workspaces, the first calls' fixed costs): beside the factorisation (the default: on a thread of its own, on CUDA with a stream and handles of its own; H200 N = 1M: the iteration block work 0.327 s against 0.510 s after it, the same digest: bsvd in the session 8 mid run at b8a85d5, 2026-12-02 07:25-07:33) or after it" },
  { "lle", "iter_block", CFG_ENUM, "auto", 0, 0, "auto|backend|driver|rows",
    "bsvd / chol-nd: where the subspace iteration's block work runs (the projection of the constant vector, the QR, M V = B^T B V, H = V^T M V, V Y and M V Y, the residuals; the solves and the p x p eigenproblem stay on the host): backend (the backend's engine: on CUDA the device, the block crossing once an iteration each way; on the host a sequential C + LAPACK one), driver (the driver's own loop on the rank's threads), auto (backend where it is a device, from lle.auto_device_n points, else driver), "
    "rows (chol-nd: the block split by rows over the ranks that share its solves, lle.eig_ranks, each rank its rows' part of every step on its threads: fixed 4096-row blocks, own loops, CholeskyQR3, the reductions' partials a block added in block order on every rank, V and B V all-gathered for M V; rank 0 keeps the p x p eigenproblem and gathers the block for each solve: the same embedding bit for bit at any rank and thread count, not the driver's bits; on one rank its threads; bsvd (auto below lle.auto_cnd_n points): the driver; H200 at 5f1ee7b, 2 ranks sharing the GPU: rank 0 alone 12.3% of its eigen-solve against 24.8% at 1M but eigen 5.31 s against 4.57 s, the rows' steps 1.57 s on the host against the device engine's 0.35 s; 100k 27.4% against the driver's 43.9%, eigen 0.50 against 0.49 s)" },
  { "lle", "cnd_solve_trsm", CFG_ENUM, "tiles", 0, 0, "tiles|blas",
    "chol-nd, cnd_factor = own: the block solves' triangular solves with the top supernodes of at least 256 columns: tiles (64-row tiles, the updates below / above each tile on the rank's threads: the same bits at any thread count) or blas (one dtrsm each on one thread)" },
  { "lle", "cnd_symbolic", CFG_ENUM, "auto", 0, 0, "auto|tree|steps|cholmod",
    "chol-nd: the symbolic analysis of M: auto (the default: tree from 100000 points, steps below, where tree's fixed costs on the threads would not pay: on a 2-core host, 2 threads, best of 3, 2026-12-02 at d5e811b, N = 20k 0.018 s either way, 100k 0.091 s by tree against 0.105 by steps, 300k 0.248 against 0.307), tree (cholmod_analyze's own steps through CHOLMOD's public functions, its three serial transposes of A on the rank's threads, its etree and column counts by CHOLMOD's own calls on the nested-dissection order's subtrees side by side on the rank's threads and on the top separators (with a virtual vertex a subtree's part) after them, and its supernodal pattern, super_symbolic2, by a pass over the supernodal tree's subtrees on the rank's threads: the same factor bit for bit), steps (the same with CHOLMOD's serial super_symbolic2) or cholmod (one cholmod_l_analyze call); cnd_check runs cholmod_analyze too (steps for cholmod) and compares them field by field" },
  { "lle", "cnd_check", CFG_BOOL, "false", 0, 0, NULL,
    "chol-nd: after the factorisation, its backward error on one seeded probe z, ||P (M + tau I) P^T z - L L^T z|| / ||P (M + tau I) P^T z||, printed and recorded (cnd_factor_check; costs about two solves)" },
  { "lle", "ordering", CFG_ENUM, "amd", 0, 0, "amd|metis|cholmod|best",
    "bsvd: UMFPACK's fill-reducing ordering of B + B^T: amd (fast analysis) or metis (fewer flops, N = 1M: 28% fewer, 2.6x the analysis time); cholmod, best: UMFPACK's own choices (experiments)" },
  { "lle", "threads", CFG_INT, "0", 0, 8, NULL,
    "bsvd: threads of the block solves and B^T B products (0: the rank's threads: OMP_NUM_THREADS, SLURM_CPUS_PER_TASK or its CPU affinity; at most 8)" },
  { "lle", "cholmod_ordering", CFG_ENUM, "auto", 0, 0, "auto|amd|metis|nesdis",
    "shift-invert: CHOLMOD's ordering of M (auto: CHOLMOD's default choice; experiments)" },
  { "lle", "cholmod_supernodal", CFG_ENUM, "auto", 0, 0, "auto|simplicial|supernodal",
    "shift-invert: CHOLMOD's factorisation kind (auto: CHOLMOD's choice by the fill; experiments)" },
  { "lle", "tol", CFG_REAL, "1e-14", 1e-16, 1e-2, NULL, "an eigenpair is converged when ||M v - lambda v|| <= tol * ||M||_1" },
  { "lle", "maxit", CFG_INT, "500", 1, 1e6, NULL, "subspace iterations at most" },
  { "lle", "trust_k", CFG_INT, "5", 1, 1000, NULL, "neighbours of the trustworthiness figure" },
  { "lle", "trust_sample", CFG_INT, "1000", 0, 1e9, NULL,
    "trustworthiness over this many seeded query points (all when n is smaller; 0: not computed)" },
  { "lle", "trust_max_n", CFG_INT, "200000", 0, 2e9, NULL, "skip trustworthiness above this n (it costs sample x n)" },
  { "lle", "transform", CFG_STR, "", 0, 0, NULL,
    "embed these new points (CSV with an optional header line, or .npy) as scikit-learn's transform does: barycentric weights (reg as in training) on their k nearest training points, applied to the embedding; written to output.transformed" },
  { "output", "transformed", CFG_STR, "", 0, 0, NULL, "lle: the lle.transform points' embedding (CSV with a header line, or .npy by extension)" },
  { "output", "embedding", CFG_STR, "", 0, 0, NULL, "lle: write the n x d embedding here (CSV with a header line, or .npy by extension)" },
  { "output", "matrix", CFG_STR, "", 0, 0, NULL, "write the workload's matrix here (PETSc binary by extension .petsc/.bin/.dat, else Matrix Market)" },
  { "output", "eigvecs", CFG_STR, "", 0, 0, NULL, "lle: the d+1 eigenvectors of M as an n x (d+1) Matrix Market array (for hybrid-validate lle)" },
  { "output", "points", CFG_STR, "", 0, 0, NULL, "lle: write the (generated or read) points as CSV, the colour t last" },
  { "output", "neighbors", CFG_STR, "", 0, 0, NULL, "lle: the n x k neighbour indices as .npy (int32), ascending distance" },
  { "output", "eigvals", CFG_STR, "", 0, 0, NULL, "lle: the d+1 eigenvalues as a Matrix Market vector" },
  CFG_END
};

/* Fill o from the configuration (every key lle reads, read here once).  Local. */
void lle_opts_from_cfg(const hy_cfg *c, lle_opts *o) {
  memset(o, 0, sizeof *o);
  o->dataset = cfg_enum(c, "lle.dataset");
  o->dataset_name = cfg_str(c, "lle.dataset");
  o->file = cfg_str(c, "lle.file");
  o->color_last = cfg_is(c, "lle.color_column", "last");
  o->n = cfg_int(c, "lle.n");
  o->noise = cfg_real(c, "lle.noise");
  o->hole = cfg_bool(c, "lle.hole");
  o->ambient_dim = (int)cfg_int(c, "lle.ambient_dim");
  o->stage = cfg_enum(c, "lle.stage");
  o->stage_name = cfg_str(c, "lle.stage");
  o->k = (int)cfg_int(c, "lle.k");
  o->dim = (int)cfg_int(c, "lle.dim");
  o->nev = o->dim + 1;
  o->reg = cfg_real(c, "lle.reg");
  o->method = cfg_enum(c, "lle.method");
  o->method_name = cfg_str(c, "lle.method");
  o->hessian_tol = cfg_real(c, "lle.hessian_tol");
  o->modified_tol = cfg_real(c, "lle.modified_tol");
  o->knn = cfg_enum(c, "lle.knn");
  o->fp32 = cfg_is(c, "lle.precision", "fp32");
  o->knn_warmup = cfg_bool(c, "lle.knn_warmup");
  o->weights = cfg_is(c, "lle.weights", "host") ? LLE_WEIGHTS_HOST : cfg_is(c, "lle.weights", "backend") ? LLE_WEIGHTS_BACKEND : LLE_WEIGHTS_AUTO;
  o->auto_host_n = cfg_int(c, "lle.auto_host_n");
  o->knn_host_grid = cfg_is(c, "lle.knn_host", "grid");
  o->eigensolver = cfg_str(c, "lle.eigensolver");
  o->ordering = cfg_str(c, "lle.ordering");
  o->chol_ordering = cfg_str(c, "lle.cholmod_ordering");
  o->chol_supernodal = cfg_str(c, "lle.cholmod_supernodal");
  o->gpu_ordering = cfg_str(c, "lle.gpu_ordering");
  o->nd_leaf = (int)cfg_int(c, "lle.nd_leaf");
  o->cnd_solve_cols = (int)cfg_int(c, "lle.cnd_solve_cols");
  o->auto_cnd_n = cfg_int(c, "lle.auto_cnd_n");
  o->cnd_blas_threads = (int)cfg_int(c, "lle.cnd_blas_threads");
  o->cnd_own = cfg_is(c, "lle.cnd_factor", "own");
  o->cnd_check = cfg_bool(c, "lle.cnd_check");
  o->cnd_sym = cfg_is(c, "lle.cnd_symbolic", "auto") ? -1 : cfg_is(c, "lle.cnd_symbolic", "tree") ? 2
              : cfg_is(c, "lle.cnd_symbolic", "steps") ? 1 : 0;
  o->cnd_solve_tiles = cfg_is(c, "lle.cnd_solve_trsm", "tiles");
  o->cnd_tiles = !cfg_is(c, "lle.cnd_top", "blas");   /* the subtrees by tiles with device and auto too */
  o->cnd_below = !cfg_is(c, "lle.cnd_below", "host");   /* auto: device where the top is (cnd_numeric) */
  o->cnd_solve_top = !cfg_is(c, "lle.cnd_solve_top", "host");
  o->cnd_top_copy = cfg_is(c, "lle.cnd_top_copy", "pinned");
  o->cnd_top_asm = !cfg_is(c, "lle.cnd_top_assembly", "host");   /* auto: device where the updates from below are */
  o->cnd_top_open = cfg_is(c, "lle.cnd_top_open", "beside");
  o->cnd_top_warm = cfg_bool(c, "lle.cnd_top_warm");
  o->auto_device_n = cfg_int(c, "lle.auto_device_n");
  o->cnd_cut = cfg_real(c, "lle.cnd_cut");
  o->pool_spin_us = (int)cfg_int(c, "lle.pool_spin_us");
  o->iter_columns = cfg_is(c, "lle.iter_products", "columns");
  o->iter_open_beside = cfg_is(c, "lle.iter_open", "beside");
  o->eig_ranks = cfg_is(c, "lle.eig_ranks", "1") ? 1 : cfg_is(c, "lle.eig_ranks", "all") ? -1 : 0;
  o->cnd_small = (int)cfg_int(c, "lle.cnd_small");
  o->cnd_below_gemm = (int)cfg_int(c, "lle.cnd_below_gemm");
  o->eig_spread = cfg_is(c, "lle.eig_top", "spread");
  o->iter_block = cfg_is(c, "lle.iter_block", "backend") ? 1 : cfg_is(c, "lle.iter_block", "auto") ? -1
                  : cfg_is(c, "lle.iter_block", "rows") ? 2 : 0;
  o->cnd_device = cfg_is(c, "lle.cnd_top", "device") ? 1 : cfg_is(c, "lle.cnd_top", "auto") ? -1 : 0;
  o->threads = (int)cfg_int(c, "lle.threads");
  o->tol = cfg_real(c, "lle.tol");
  o->maxit = (int)cfg_int(c, "lle.maxit");
  o->trust_k = (int)cfg_int(c, "lle.trust_k");
  o->trust_sample = cfg_int(c, "lle.trust_sample");
  o->trust_max_n = cfg_int(c, "lle.trust_max_n");
  o->seed = (uint32_t)cfg_int(c, "run.seed");
  o->transform = cfg_str(c, "lle.transform");
  o->out_transformed = cfg_str(c, "output.transformed");
  o->out_embedding = cfg_str(c, "output.embedding");
  o->out_matrix = cfg_str(c, "output.matrix");
  o->out_eigvecs = cfg_str(c, "output.eigvecs");
  o->out_eigvals = cfg_str(c, "output.eigvals");
  o->out_points = cfg_str(c, "output.points");
  o->out_neighbors = cfg_str(c, "output.neighbors");
}

/* Cross-key rules.  Local (rank 0). */
static int lle_check(hy_cfg *c) {
  lle_opts o;
  lle_opts_from_cfg(c, &o);
  if (o.dim >= o.k) return cfg_err(c, "lle.dim", "= %d must be below lle.k = %d (the local weights span at most k - 1 directions)", o.dim, o.k);
  if (o.method == LLE_HESSIAN && o.k <= o.dim * (o.dim + 3) / 2)
    return cfg_err(c, "lle.k", "= %d: lle.method = hessian needs k > d (d + 3) / 2 = %d (d = lle.dim = %d)", o.k,
                   o.dim * (o.dim + 3) / 2, o.dim);
  if (o.hole && o.dataset != LLE_SWISSROLL)
    return cfg_err(c, "lle.hole", "= true needs lle.dataset = swissroll (it is %s)", o.dataset_name);
  if (o.out_transformed[0] && !o.transform[0])
    return cfg_err(c, "output.transformed", "needs lle.transform (the points to embed)");
  if (o.transform[0] && o.stage != LLE_STAGE_ALL)
    return cfg_err(c, "lle.transform", "needs lle.stage = all (it uses the embedding)");
  if (o.dataset == LLE_FILE && !o.file[0]) return cfg_err(c, "lle.file", "is required when lle.dataset = file");
  if (o.dataset != LLE_FILE) {
    if (o.k >= o.n) return cfg_err(c, "lle.k", "= %d must be below lle.n = %lld", o.k, (long long)o.n);
    if (o.n > INT32_MAX) return cfg_err(c, "lle.n", "= %lld exceeds 2^31 - 1 points", (long long)o.n);
  }
  if (o.eig_ranks < 0) {   /* all: the spread chol-nd must be possible */
    const char *why = !strcmp(o.eigensolver, "chol-nd") || !strcmp(o.eigensolver, "auto") ? NULL : "lle.eigensolver = chol-nd or auto";
    if (!why && !o.cnd_own) why = "lle.cnd_factor = own";
    if (!why && o.cnd_solve_cols) why = "lle.cnd_solve_cols = 0";
    if (!why && o.method != LLE_STANDARD) why = "lle.method = standard";
    if (why) return cfg_err(c, "lle.eig_ranks", "= all spreads chol-nd's factor over the ranks: it needs %s (or lle.eig_ranks = auto | 1)", why);
  }
  if (o.iter_block == 2 && strcmp(o.eigensolver, "chol-nd") && strcmp(o.eigensolver, "auto"))
    return cfg_err(c, "lle.iter_block", "= rows is chol-nd's iteration by rows over its ranks: it needs lle.eigensolver = chol-nd "
                   "or auto (it is %s)", o.eigensolver);
  if (o.ambient_dim > 0 && o.ambient_dim < 3 && (o.dataset == LLE_SWISSROLL || o.dataset == LLE_SCURVE))
    return cfg_err(c, "lle.ambient_dim", "= %d is below the generators' 3 dimensions", o.ambient_dim);
  return HY_OK;
}

/* The workload: load -> build (KNN, weights, W on rank 0) -> solve (eigenpairs, rank 0) ->
 * check -> report.  Collective. */
static int lle_run(hy_ctx *ctx) {
  lle_opts o;
  lle_opts_from_cfg(ctx->cfg, &o);
  lle_info info;
  memset(&info, 0, sizeof info);
  if (!strcmp(o.eigensolver, "gpu-chol") && !k_lle_eig_ops_get(&ctx->be)->eig_si)   /* same on every rank */
    return hy_err(HY_EUSAGE, "lle.eigensolver = gpu-chol: the %s backend has no device sparse Cholesky "
                  "(run.backend = cuda; on the host: bsvd, shift-invert, dense or auto)", ctx->be.name);
  if (o.iter_block == 1 && !k_lle_eig_ops_get(&ctx->be)->bsub_open)   /* same on every rank */
    return hy_err(HY_EUSAGE, "lle.iter_block = backend: the %s backend has no engine for the iteration's block work "
                  "(lle.iter_block = driver or auto)", ctx->be.name);
  if (o.cnd_device > 0 && !k_lle_eig_ops_get(&ctx->be)->chol_top)   /* same on every rank */
    return hy_err(HY_EUSAGE, "lle.cnd_top = device: the %s backend has no device Cholesky for chol-nd's top "
                  "supernodes (run.backend = cuda; on the host: auto, tiles or blas)", ctx->be.name);

  HY_CALL(lle_load(ctx, &o, &info));
  lle_report_data(ctx, &o, &info);

  HY_CALL(lle_build(ctx, &o, &info));
  lle_report_build(ctx, &o, &info);

  int rc = HY_OK;
  if (o.stage == LLE_STAGE_ALL && ctx->rank != 0 && lle_eig_ranks(ctx, &o, info.data.n) > 1)
    rc = lle_solve(ctx, &o, &info);   /* their part of rank 0's chol-nd */
  if (o.stage == LLE_STAGE_ALL && ctx->rank == 0) {   /* rank 0 (the others above); agreed below */
    rc = lle_solve(ctx, &o, &info);
    if (rc == HY_OK) rc = lle_check_result(ctx, &o, &info);
    if (rc == HY_OK) lle_report_solve(ctx, &o, &info);
    if (rc == HY_OK) rc = lle_write_outputs(&o, &info);
    if (rc == HY_OK) lle_report_trust(ctx, &o, &info);
  }
  lle_info_free(&info);
  HY_CALL(hy_agree(ctx->comm, rc));

  return lle_report_verdict(ctx, &o, &info);
}

static const char lle_default[] =
  "; embedded default: Swiss roll, n = 2000, k = 10, d = 2\n"
  "[run]\nworkload = lle\n"
  "[lle]\ndataset = swissroll\nn = 2000\nk = 10\ndim = 2\n";

const hy_workload lle_workload = {
  .name = "lle",
  .summary = "locally linear embedding: KNN (brute/kdtree/grid), weights, shift-invert eigenpairs of (I-W)^T(I-W)",
  .keys = lle_keys, .check = lle_check, .run = lle_run, .default_config = lle_default,
};
