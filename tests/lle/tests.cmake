# lle: generators vs scikit-learn, embedding vs scikit-learn (Procrustes), rank-count
# invariance, duplicates, KNN lists against a numpy brute force, the eigen-residual verdict
# ([debug] perturb), a rank failing alone inside a stage, bad input; GPU comparisons only with
# HYBRID_GPU_TESTS.  A missing scikit-learn fails lle_sklearn unless the fixtures are declared
# optional (-DHYBRID_TEST_FIXTURES=optional: then it skips, exit 77).
set(LLE_ALLOW_SKIP "")
if(HYBRID_TEST_FIXTURES STREQUAL "optional")
  set(LLE_ALLOW_SKIP --allow-skip)
endif()
set(LLE_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/lle_check.py --hybrid $<TARGET_FILE:hybrid>
  --mpiexec ${MPIEXEC_EXECUTABLE} "--np-flag=${MPIEXEC_NUMPROC_FLAG}" "--preflags=${MPIEXEC_PREFLAGS}"
  ${LLE_ALLOW_SKIP})
foreach(chk generators sklearn ranks duplicates knn verdict keys methods transform host_threads chol_nd_small)
  add_test(NAME lle_${chk} COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_${chk} ${chk})
  set_tests_properties(lle_${chk} PROPERTIES LABELS "unit" TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
set_tests_properties(lle_ranks lle_knn lle_methods lle_transform PROPERTIES LABELS "unit;mpi" PROCESSORS 3)

# the error bound of CUDA's FP32 KNN filter (k_lle_kf_bounds), checked on the host pair by pair
add_executable(test_lle_kf ${CMAKE_CURRENT_LIST_DIR}/test_lle_kf.c)
target_link_libraries(test_lle_kf PRIVATE hybrid_core m)
add_test(NAME lle_kf_bound COMMAND test_lle_kf)   # the exit code decides (1: a pair outside the bound)
# the persistent thread pool chol-nd's order, factor and solves run on (kernels/host/lle_pool.c):
# every job's task once per thread, barriers, ranges, the sleep / wake path; a hang fails (alarm)
add_executable(test_lle_pool ${CMAKE_CURRENT_LIST_DIR}/test_lle_pool.c)
target_link_libraries(test_lle_pool PRIVATE hybrid_core m)
add_test(NAME lle_pool COMMAND test_lle_pool)   # the exit code decides
set_tests_properties(lle_pool PROPERTIES LABELS unit TIMEOUT 150 PROCESSORS 2)
set_tests_properties(lle_kf_bound PROPERTIES LABELS unit TIMEOUT 60)

# chol-nd's top phase on another engine (k_lle_chol_top) against the host's top: this file's BLAS
# version of the device algorithm (the same lists and steps); the CUDA one is lle_gpu_chol_top.
# On the host also the factor and a solve split over 2 / 3 simulated ranks as chol-nd over the
# ranks does it (eig_top = rank0 and spread; each rank's arrays NaN where the exchanges bring
# nothing): the pieces from their owners the whole factor's and solve's bit for bit (a tail not
# sent fails 12 of its checks)
add_executable(test_lle_chol_top ${CMAKE_CURRENT_LIST_DIR}/test_lle_chol_top.c)
target_link_libraries(test_lle_chol_top PRIVATE hybrid_core m)
add_test(NAME lle_chol_top_engine COMMAND ${HY_RUNCASE} --exit 0 --timeout 100
  --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAIL" -- $<TARGET_FILE:test_lle_chol_top> host)
set_tests_properties(lle_chol_top_engine PROPERTIES LABELS unit TIMEOUT 120)
# the iteration engine's start-block QR and final residuals (bsub_orth, bsub_resid) against
# plain loops on a random B and blocks (a fresh seed each run, printed); the CUDA one is lle_gpu_bsub
add_executable(test_lle_bsub ${CMAKE_CURRENT_LIST_DIR}/test_lle_bsub.c)
target_link_libraries(test_lle_bsub PRIVATE hybrid_core m)
add_test(NAME lle_bsub_engine COMMAND ${HY_RUNCASE} --exit 0 --timeout 100
  --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAIL" -- $<TARGET_FILE:test_lle_bsub> host)
set_tests_properties(lle_bsub_engine PROPERTIES LABELS unit TIMEOUT 120)
# jobs/lle_scale_table.py (the scale mode's table) on made-up logs: slopes and sums parsed and compared
add_test(NAME lle_scale_table COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_scale_table.py)
set_tests_properties(lle_scale_table PROPERTIES LABELS unit TIMEOUT 60)

# One rank fails alone inside a stage ([debug] fail_rank + fail_stage, hy_debug_point): the
# job ends within 10 s with that rank's message and the code.  eigen is the longest stage (rank
# 0 alone while the others wait in the next collective); knn the longest distributed one.
if(HY_MPIEXEC_VERSION MATCHES "HYDRA")   # MPICH's mpiexec exits with MPI_Abort's code
  set(LLE_ABORT3 3)
  set(LLE_ABORT5 5)
else()
  set(LLE_ABORT3 nonzero)
  set(LLE_ABORT5 nonzero)
endif()
foreach(np 2 3)
  hy_case(NAME lle_fail_eigen_rank0_np${np} RANKS ${np} EXIT ${LLE_ABORT3} TIMEOUT 30
    EXPECT "hybrid: rank 0 on [^ :]+: injected failure \\(\\[debug\\] fail_rank = 0, fail_stage = eigen\\)"
    REJECT "^PASSED" "^FAILED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=lle lle.n=4000 lle.trust_sample=0 debug.fail_rank=0 debug.fail_stage=eigen debug.fail_code=3)
  math(EXPR last "${np} - 1")
  hy_case(NAME lle_fail_knn_rank${last}_np${np} RANKS ${np} EXIT ${LLE_ABORT5} TIMEOUT 30
    EXPECT "hybrid: rank ${last} on [^ :]+: injected failure \\(\\[debug\\] fail_rank = ${last}, fail_stage = knn\\)"
    REJECT "^PASSED" "^FAILED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=lle lle.n=4000 lle.trust_sample=0 debug.fail_rank=${last} debug.fail_stage=knn)
  # chol-nd spread over the ranks (lle.eig_ranks = auto): the last rank fails alone in eigen
  hy_case(NAME lle_fail_eigen_cnd_rank${last}_np${np} RANKS ${np} EXIT ${LLE_ABORT3} TIMEOUT 30
    EXPECT "hybrid: rank ${last} on [^ :]+: injected failure \\(\\[debug\\] fail_rank = ${last}, fail_stage = eigen\\)"
    REJECT "^PASSED" "^FAILED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=lle lle.n=4000 lle.trust_sample=0 lle.eigensolver=chol-nd debug.fail_rank=${last} debug.fail_stage=eigen debug.fail_code=3)
endforeach()

# (lle.eigensolver's default is auto: bsvd below lle.auto_cnd_n = 20000 points, the choice printed and recorded)
hy_case(NAME lle_default RANKS 1 JSON EXPECT "PASSED: lle" "trustworthiness 0\\.99" "eigensolver bsvd"
  "lle: eigensolver = auto: bsvd \\(n = 1000 < lle.auto_cnd_n = 20000\\)"
  RUNCASE --json-field config.lle.eigensolver=auto --json-field metrics.eigensolver=bsvd
  ARGS run.workload=lle lle.n=1000 output.embedding=e.csv)
# the in-binary PNG plot is gone (jobs/hyplot.py draws from the embedding file): output.plot is
# an unknown key now, refused naming it
hy_case(NAME lle_plot_key_gone RANKS 1 EXIT 1 EXPECT "key 'plot' is not known in section \\[output\\]"
  ARGS run.workload=lle lle.n=1000 output.plot=e.png)
hy_case(NAME lle_scurve_2ranks RANKS 2 JSON EXPECT "PASSED: lle" "scurve, n = 1200"
  ARGS run.workload=lle lle.dataset=scurve lle.n=1200 lle.k=9 lle.knn=brute)
hy_case(NAME lle_lifted RANKS 1 EXPECT "in 16 dimensions" "PASSED: lle"
  ARGS run.workload=lle lle.n=800 lle.ambient_dim=16 lle.knn=brute lle.precision=fp32)
hy_case(NAME lle_grid_2ranks RANKS 2 JSON EXPECT "neighbours by grid \\(FP64 direct form\\)" "PASSED: lle"
  ARGS run.workload=lle lle.n=3000 lle.knn=grid lle.trust_sample=0)
# lle.knn = auto on the host: the grid from D <= 4, N >= 50,000 (the kd-tree below, brute force above D = 8)
hy_case(NAME lle_auto_grid RANKS 1 EXPECT "lle: neighbours by grid \\(FP64 direct form\\), weights on host" "PASSED: lle"
  ARGS run.workload=lle lle.dataset=uniform lle.ambient_dim=4 lle.n=50000 lle.stage=knn)
hy_case(NAME lle_auto_kdtree RANKS 1 EXPECT "lle: neighbours by kdtree \\(host\\)" "PASSED: lle"
  ARGS run.workload=lle lle.dataset=uniform lle.ambient_dim=4 lle.n=49999 lle.stage=knn)
hy_case(NAME lle_auto_kdtree_d5 RANKS 1 EXPECT "lle: neighbours by kdtree \\(host\\)" "PASSED: lle"
  ARGS run.workload=lle lle.dataset=uniform lle.ambient_dim=5 lle.n=50000 lle.stage=knn)
hy_case(NAME lle_bad_grid_dim RANKS 2 EXIT 1
  EXPECT "key 'lle.knn' = grid: the data has 16 dimensions, the grid search takes at most 8"
  REJECT "^PASSED"
  ARGS run.workload=lle lle.n=500 lle.ambient_dim=16 lle.knn=grid)
# large N: W gathered on rank 0 through one MPI count (n x k, or n x k^2 local-block values)
# beyond 2^31 - 1 is refused before any point is generated; 1 rank is not limited by it
hy_case(NAME lle_bad_gather_count RANKS 2 EXIT 1 TIMEOUT 30
  EXPECT "key 'lle.n' = 250000000: on 2 ranks W's n x 10 = 2500000000 values .* at most 2\\^31 - 1 .*n <= 214748364\\)"
  REJECT "^PASSED" "^data "
  ARGS run.workload=lle lle.n=250000000 lle.k=10)
hy_case(NAME lle_bad_gather_count_ltsa RANKS 2 EXIT 1 TIMEOUT 30
  EXPECT "key 'lle.n' = 25000000: on 2 ranks W's n x 100 = 2500000000 values \\(lle.k = 10, ltsa\\)"
  REJECT "^PASSED"
  ARGS run.workload=lle lle.n=25000000 lle.k=10 lle.method=ltsa)
# lle.knn_warmup: one untimed search first, the same graph (the digest of the run without it)
hy_case(NAME lle_knn_warmup RANKS 2 EXPECT "knn graph digest 32afc2921c0e8b97" "PASSED: lle: stage knn"
  ARGS run.workload=lle lle.n=3000 lle.stage=knn lle.knn=brute lle.knn_warmup=true)
hy_case(NAME lle_bad_k_ge_n RANKS 1 EXIT 1 EXPECT "lle.k.*must be below lle.n"
  ARGS run.workload=lle lle.n=10 lle.k=10)
hy_case(NAME lle_bad_hessian_k RANKS 1 EXIT 1
  EXPECT "key 'lle.k'.*= 5: lle.method = hessian needs k > d \\(d \\+ 3\\) / 2 = 5 \\(d = lle.dim = 2\\)"
  ARGS run.workload=lle lle.method=hessian lle.k=5 lle.dim=2)
hy_case(NAME lle_hessian_k_min RANKS 1 EXPECT "PASSED: lle" "hessian blocks on"
  ARGS run.workload=lle lle.method=hessian lle.k=6 lle.dim=2 lle.n=600 lle.trust_sample=0)
hy_case(NAME lle_bad_hole_scurve RANKS 1 EXIT 1 EXPECT "key 'lle.hole'.*needs lle.dataset = swissroll \\(it is scurve\\)"
  ARGS run.workload=lle lle.dataset=scurve lle.hole=true)
hy_case(NAME lle_bad_transformed_alone RANKS 1 EXIT 1 EXPECT "key 'output.transformed'.*needs lle.transform"
  ARGS run.workload=lle output.transformed=t.csv)
hy_case(NAME lle_bad_transform_dims RANKS 2 EXIT 2
  EXPECT "small.csv: lle.transform points have 2 coordinates, the training points 3"
  ARGS run.workload=lle lle.n=500 lle.transform=${CMAKE_CURRENT_LIST_DIR}/data/small.csv)
hy_case(NAME lle_bad_d_ge_k RANKS 1 EXIT 1 EXPECT "lle.dim.*must be below lle.k"
  ARGS run.workload=lle lle.k=3 lle.dim=3)
# eigensolver = gpu-chol needs a device sparse Cholesky: refused on the host backend before the
# run's work (no neighbour line), exit 1; auto is bsvd there (same embedding digest as bsvd)
hy_case(NAME lle_bad_gpu_chol_host RANKS 2 EXIT 1
  EXPECT "lle.eigensolver = gpu-chol: the host backend has no device sparse Cholesky \\(run.backend = cuda; on the host: bsvd"
  REJECT "^PASSED" "lle: neighbours by"
  ARGS run.workload=lle lle.n=500 run.backend=host lle.eigensolver=gpu-chol)
hy_case(NAME lle_bad_gpu_ordering RANKS 1 EXIT 1
  EXPECT "key 'lle.gpu_ordering' = 'nd' is not allowed; allowed: one of colamd\\|metis\\|symamd"
  ARGS run.workload=lle lle.gpu_ordering=nd)
# (the digest of an explicit bsvd run, not a fixed value: the embedding's last bits move with the
# BLAS, 1dc22af1be2a9bca with the reference BLAS, another with OpenBLAS)
set(HY_LLE_AUTO run.workload=lle lle.n=2000 run.backend=host lle.trust_sample=0 output.record=false)
add_test(NAME lle_auto_eig_host COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/same_figure.py
  --figure "embedding digest ([0-9a-f]+)" --expect "lle: eigensolver bsvd \\(UMFPACK" --expect "^PASSED: lle"
  --workdir ${HY_TEST_OUT}/lle_auto_eig_host
  -- ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} ${HY_LLE_AUTO} lle.eigensolver=auto
  ::: ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} ${HY_LLE_AUTO} lle.eigensolver=bsvd)
set_tests_properties(lle_auto_eig_host PROPERTIES LABELS unit TIMEOUT 120)
# auto from lle.auto_cnd_n points is chol-nd: the same embedding as an explicit chol-nd run
add_test(NAME lle_auto_eig_cnd COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/same_figure.py
  --figure "embedding digest ([0-9a-f]+)" --expect "lle: eigensolver chol-nd \\(CHOLMOD" --expect "^PASSED: lle"
  --workdir ${HY_TEST_OUT}/lle_auto_eig_cnd
  -- ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} ${HY_LLE_AUTO} lle.eigensolver=auto lle.auto_cnd_n=2000
  ::: ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} ${HY_LLE_AUTO} lle.eigensolver=chol-nd)
set_tests_properties(lle_auto_eig_cnd PROPERTIES LABELS unit TIMEOUT 120)
# auto's default crossover (lle.auto_cnd_n = 20000, from the H200 figures): chol-nd from 20000 points, bsvd below;
# auto is the key's default (no lle.eigensolver given), its choice printed and recorded (metrics.eigensolver)
hy_case(NAME lle_auto_eig_default_cnd RANKS 1 JSON EXPECT "lle: eigensolver chol-nd \\(CHOLMOD" "PASSED: lle"
  "lle: eigensolver = auto: chol-nd \\(n = 20000 >= lle.auto_cnd_n = 20000\\)"
  RUNCASE --json-field config.lle.eigensolver=auto --json-field metrics.eigensolver=chol-nd
  ARGS run.workload=lle lle.n=20000 lle.trust_sample=0)
hy_case(NAME lle_auto_eig_default_bsvd RANKS 1 JSON EXPECT "lle: eigensolver bsvd \\(UMFPACK" "PASSED: lle"
  "lle: eigensolver = auto: bsvd \\(n = 19999 < lle.auto_cnd_n = 20000\\)"
  RUNCASE --json-field config.lle.eigensolver=auto --json-field metrics.eigensolver=bsvd
  ARGS run.workload=lle lle.n=19999 lle.trust_sample=0)
# an explicit solver prints no auto line and records itself
hy_case(NAME lle_explicit_eig_no_auto_line RANKS 1 JSON EXPECT "lle: eigensolver bsvd \\(UMFPACK" "PASSED: lle"
  REJECT "eigensolver = auto" RUNCASE --json-field metrics.eigensolver=bsvd
  ARGS run.workload=lle lle.n=20000 lle.trust_sample=0 lle.eigensolver=bsvd)
# chol-nd's order (a level's splits and the subtrees on threads) is the same at 8 threads and 1:
# the same embedding digest (BLAS at one thread in both runs: with OpenBLAS, lle.threads = 8 also
# threads CHOLMOD's supernodal BLAS calls, which sum in another order and move the digest)
add_test(NAME lle_chol_nd_threads COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/same_figure.py
  --figure "embedding digest ([0-9a-f]+)" --expect "lle: eigensolver chol-nd \\(CHOLMOD" --expect "^PASSED: lle"
  --workdir ${HY_TEST_OUT}/lle_chol_nd_threads
  -- ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=8 run.blas_threads=1
  ::: ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=1 run.blas_threads=1)
set_tests_properties(lle_chol_nd_threads PROPERTIES LABELS unit TIMEOUT 120)
hy_case(NAME lle_bad_auto_cnd_n RANKS 1 EXIT 1
  EXPECT "key 'lle.auto_cnd_n' = '-1' is out of range; allowed: an integer in \\[0, 2147483647\\]"
  ARGS run.workload=lle lle.eigensolver=auto lle.auto_cnd_n=-1)
# the gpu_eig checker itself, without a GPU: host shift-invert in gpu-chol's place
add_test(NAME lle_gpu_eig_checker COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_eig_checker
  --gpu-spec host:shift-invert gpu_eig)
set_tests_properties(lle_gpu_eig_checker PROPERTIES LABELS "mpi" TIMEOUT 300 PROCESSORS 2)
# eigensolver = chol-nd (CHOLMOD supernodal Cholesky of M + tau I in the geometric nested-
# dissection order) against bsvd at N = 2000 and 20000 (graph, eigenvalues within the residual
# bound, residuals <= 1e-14 ||M||_1, subspace angle, Procrustes <= 1e-10, scikit-learn dense at
# 2000), its parts line, no fallback, the same embedding at 2 and 3 ranks
add_test(NAME lle_chol_nd COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_chol_nd --gpu-spec host:chol-nd gpu_eig)
set_tests_properties(lle_chol_nd PROPERTIES LABELS "unit;mpi" TIMEOUT 300 PROCESSORS 3)
# chol-nd spread over the ranks (lle.eig_ranks = auto / all): bit for bit the one-rank run at 2 and
# 3 ranks (digest, embedding file, eigenpairs, iterations, the factor's and a solve's probe errors
# with the factor gathered), its phase lines; lle.eig_ranks = 1 keeps rank 0 alone; fresh seed
add_test(NAME lle_chol_nd_ranks COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_chol_nd_ranks chol_nd_ranks)
set_tests_properties(lle_chol_nd_ranks PROPERTIES LABELS "unit;mpi" TIMEOUT 300 PROCESSORS 3)
# lle.iter_block = rows (the iteration's block work by rows over chol-nd's ranks): bit for bit the
# one-rank run at 2 and 3 ranks (and eig_ranks = 1), within the residuals of the driver's loop;
# the rank-0-alone line without the rows' share; fresh seed
add_test(NAME lle_chol_nd_rows COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_chol_nd_rows chol_nd_rows)
set_tests_properties(lle_chol_nd_rows PROPERTIES LABELS "unit;mpi" TIMEOUT 300 PROCESSORS 3)
hy_case(NAME lle_bad_iter_rows_solver RANKS 1 EXIT 1
  EXPECT "key 'lle.iter_block' = rows is chol-nd's iteration by rows over its ranks: it needs lle.eigensolver = chol-nd or auto \\(it is bsvd\\)"
  ARGS run.workload=lle lle.iter_block=rows lle.eigensolver=bsvd)
hy_case(NAME lle_bad_eig_top RANKS 1 EXIT 1
  EXPECT "key 'lle.eig_top' = 'all' is not allowed; allowed: one of rank0\\|spread"
  ARGS run.workload=lle lle.eig_top=all)
hy_case(NAME lle_bad_eig_ranks RANKS 1 EXIT 1
  EXPECT "key 'lle.eig_ranks' = '2' is not allowed; allowed: one of auto\\|1\\|all"
  ARGS run.workload=lle lle.eig_ranks=2)
hy_case(NAME lle_bad_eig_ranks_solver RANKS 1 EXIT 1
  EXPECT "key 'lle.eig_ranks' = all spreads chol-nd's factor over the ranks: it needs lle.eigensolver = chol-nd or auto"
  ARGS run.workload=lle lle.eig_ranks=all lle.eigensolver=bsvd)
hy_case(NAME lle_bad_eig_ranks_cols RANKS 1 EXIT 1
  EXPECT "key 'lle.eig_ranks' = all .* it needs lle.cnd_solve_cols = 0"
  ARGS run.workload=lle lle.eig_ranks=all lle.eigensolver=chol-nd lle.cnd_solve_cols=2)
hy_case(NAME lle_bad_eig_ranks_factor RANKS 1 EXIT 1
  EXPECT "key 'lle.eig_ranks' = all .* it needs lle.cnd_factor = own"
  ARGS run.workload=lle lle.eig_ranks=all lle.eigensolver=auto lle.cnd_factor=cholmod)
# (chol-nd's [debug] perturb verdict: lle_verdict)
# lle.cnd_solve_cols = 2 / 3 (calls of c columns on threads) against the one-call solve
add_test(NAME lle_chol_nd_cols COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_chol_nd_cols chol_nd_cols)
set_tests_properties(lle_chol_nd_cols PROPERTIES LABELS "unit" TIMEOUT 300)
# CHOLMOD's numeric factor never on the size rule's BLAS threads (8 at N = 40k, lle.threads = 8;
# 16 at 1M on the H200, 6x slower than 4): at most 4 by default, lle.cnd_blas_threads exactly;
# the order on the rank's threads (lle.threads); the own factor: its subtrees on the rank's
# threads, its top's dpotrf / dtrsm on as many BLAS threads
hy_case(NAME lle_chol_nd_factor_blas RANKS 1
  EXPECT "BLAS threads 8\\)" "order threads 8, numeric factor BLAS threads 4\n" "PASSED: lle"
  REJECT "own tree-parallel"
  ARGS run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=8 lle.cnd_factor=cholmod)
hy_case(NAME lle_chol_nd_factor_own_threads RANKS 1
  EXPECT "order threads 8, numeric factor BLAS threads 8\n" "own tree-parallel supernodal: [0-9]+ subtree.s. on 8 thread.s." "PASSED: lle"
  ARGS run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=8 lle.cnd_top=blas)
hy_case(NAME lle_chol_nd_factor_tiles_threads RANKS 1
  EXPECT "order threads 8, numeric factor BLAS threads 1\n" "own tree-parallel supernodal: [0-9]+ subtree.s. on 8 thread.s..*by tiles on the threads" "PASSED: lle"
  ARGS run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=8)
hy_case(NAME lle_chol_nd_factor_blas3 RANKS 1
  EXPECT "order threads 2, numeric factor BLAS threads 3\n" "PASSED: lle"
  ARGS run.workload=lle lle.n=3000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=2 lle.cnd_blas_threads=3 lle.cnd_top=blas)
hy_case(NAME lle_bad_cnd_blas_threads RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_blas_threads' = '-1' is out of range; allowed: an integer in \\[0, 1024\\]"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_blas_threads=-1)
# the own tree-parallel numeric factor (lle.cnd_factor = own) against CHOLMOD's: see lle_check.py chol_nd_factor
add_test(NAME lle_chol_nd_factor COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_chol_nd_factor chol_nd_factor)
set_tests_properties(lle_chol_nd_factor PROPERTIES LABELS "unit" TIMEOUT 300)
# the symbolic analysis by steps (lle.cnd_symbolic = steps: cholmod_analyze's steps with its
# transposes on the threads) is cholmod_analyze's field by field (lle.cnd_check runs both and
# compares Perm, ColCount, super, pi, px, s, the sizes, flops and nnz(L)); both give the same
# embedding digest at 3 threads
hy_case(NAME lle_chol_nd_symbolic RANKS 1
  EXPECT "chol-nd symbolic check: the analysis by steps and cholmod_analyze's are the same \\(field 0\\)"
         "chol-nd symbolic analysis by steps" "PASSED: lle"
  REJECT "DIFFER"
  ARGS run.workload=lle lle.n=20000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=3 lle.cnd_check=true
       lle.cnd_symbolic=steps)
# lle.cnd_symbolic = tree (the supernodal pattern by a pass over the supernodal tree's subtrees
# on the threads, lle_eig_cnd_super.c; from 2 threads the etree and counts over the order's
# subtrees, lle_eig_cnd_counts.c) is cholmod_analyze's field by field on random ND trees:
# seeds, sizes, leaf sizes (the tree's shape), thread counts 1 / 2 / 3 / 8, an S-curve, and two
# clusters (a forest: several roots, an empty separator); its children's rows left out, a list
# left unsorted, or the top's virtual vertices left out fails them (tests/tools/mutations.txt)
foreach(_c "20000;3;64;11;swissroll" "7000;8;16;2027;swissroll" "30000;2;256;90210;scurve" "12000;1;64;4242;swissroll")
  list(GET _c 0 _n)
  list(GET _c 1 _t)
  list(GET _c 2 _leaf)
  list(GET _c 3 _seed)
  list(GET _c 4 _ds)
  if(_t GREATER 1)
    set(_how "etree and counts: the order's subtrees on the threads [0-9.]+, the top [0-9.]+")
  else()
    set(_how "transposes [0-9.]+, etree [0-9.]+, postorder")
  endif()
  hy_case(NAME lle_chol_nd_symbolic_tree_${_n}_t${_t} RANKS 1
    EXPECT "chol-nd symbolic check: the analysis by tree \\(the supernodal pattern on the threads\\) and cholmod_analyze's are the same \\(field 0\\)"
           "chol-nd symbolic analysis by steps, the supernodal pattern over the tree on the threads: .*${_how}" "PASSED: lle"
    REJECT "DIFFER"
    ARGS run.workload=lle lle.n=${_n} lle.threads=${_t} lle.nd_leaf=${_leaf} run.seed=${_seed} lle.dataset=${_ds}
         lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.cnd_check=true lle.cnd_symbolic=tree)
endforeach()
hy_case(NAME lle_chol_nd_symbolic_tree_forest RANKS 1
  EXPECT "chol-nd symbolic check: the analysis by tree \\(the supernodal pattern on the threads\\) and cholmod_analyze's are the same \\(field 0\\)"
         "etree and counts: the order's subtrees on the threads" "PASSED: lle"
  REJECT "DIFFER"
  ARGS run.workload=lle lle.dataset=file lle.file=${CMAKE_SOURCE_DIR}/tests/lle/data/two_clusters.csv lle.threads=2 lle.nd_leaf=8
       lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.cnd_check=true lle.cnd_symbolic=tree)
add_test(NAME lle_chol_nd_symbolic_digest COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/same_figure.py
  --figure "embedding digest ([0-9a-f]+)" --expect "chol-nd symbolic analysis by (steps|cholmod_analyze)" --expect "^PASSED: lle"
  --workdir ${HY_TEST_OUT}/lle_chol_nd_symbolic_digest
  -- ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=3 run.blas_threads=1 lle.cnd_symbolic=steps
  ::: ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=3 run.blas_threads=1 lle.cnd_symbolic=cholmod)
set_tests_properties(lle_chol_nd_symbolic_digest PROPERTIES LABELS unit TIMEOUT 120)
# the solves' top triangular solves: tiles (the default; lle_chol_nd_factor checks them at 1, 2,
# 3 and 8 threads) and one dtrsm each (blas): the same embedding at 3 threads and 1 with blas too
add_test(NAME lle_chol_nd_solve_trsm_blas COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/same_figure.py
  --figure "embedding digest ([0-9a-f]+)" --expect "the solves' top triangular solves one dtrsm each" --expect "^PASSED: lle"
  --workdir ${HY_TEST_OUT}/lle_chol_nd_solve_trsm_blas
  -- ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=3 run.blas_threads=1 lle.cnd_solve_trsm=blas
  ::: ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=40000 lle.trust_sample=0 output.record=false lle.eigensolver=chol-nd lle.threads=1 run.blas_threads=1 lle.cnd_solve_trsm=blas)
set_tests_properties(lle_chol_nd_solve_trsm_blas PROPERTIES LABELS unit TIMEOUT 120)
hy_case(NAME lle_bad_cnd_solve_trsm RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_solve_trsm' = 'lapack' is not allowed; allowed: one of tiles.blas"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_solve_trsm=lapack)
hy_case(NAME lle_bad_cnd_symbolic RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_symbolic' = 'own' is not allowed; allowed: one of auto.tree.steps.cholmod"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_symbolic=own)
hy_case(NAME lle_bad_cnd_factor RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_factor' = 'blas' is not allowed; allowed: one of own.cholmod"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_factor=blas)
hy_case(NAME lle_bad_cnd_top RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_top' = 'lapack' is not allowed; allowed: one of auto.blas.device.tiles"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_top=lapack)
# lle.cnd_cut: a deeper cut, more top supernodes, the same embedding bit for bit on the host
add_test(NAME lle_chol_nd_cut COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_chol_nd_cut --gpu-spec host:x chol_nd_cut)
set_tests_properties(lle_chol_nd_cut PROPERTIES LABELS "unit" TIMEOUT 300)
hy_case(NAME lle_bad_cnd_cut RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_cut' = '0.5' is out of range; allowed: a number in \\[1, 64\\]"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_cut=0.5)
hy_case(NAME lle_bad_auto_device_n RANKS 1 EXIT 1
  EXPECT "key 'lle.auto_device_n' = '-1' is out of range; allowed: an integer in \\[0, 2147483647\\]"
  ARGS run.workload=lle lle.auto_device_n=-1)
hy_case(NAME lle_bad_cnd_solve_top RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_solve_top' = 'gpu' is not allowed; allowed: one of auto.device.host"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_solve_top=gpu)
# lle.iter_open = beside: the iteration's engine opened on a thread of its own during the
# factorisation (the host engine here; CUDA: lle_gpu_iter_block's variant): the same embedding
# as opened after it, chol-nd and bsvd, and the line says it was taken
foreach(_e chol-nd bsvd)
  add_test(NAME lle_iter_open_beside_${_e} COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/same_figure.py
    --figure "embedding digest ([0-9a-f]+)" --expect "the engine opened beside the factorisation" --expect "^PASSED: lle"
    --workdir ${HY_TEST_OUT}/lle_iter_open_beside_${_e}
    -- ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=20000 lle.trust_sample=0 output.record=false lle.eigensolver=${_e} lle.threads=2 lle.iter_block=backend lle.iter_open=beside
    ::: ${HY_MPIEXEC} 1 ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} ${HY_BIN} run.workload=lle lle.n=20000 lle.trust_sample=0 output.record=false lle.eigensolver=${_e} lle.threads=2 lle.iter_block=backend lle.iter_open=after)
  set_tests_properties(lle_iter_open_beside_${_e} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()
hy_case(NAME lle_bad_iter_open RANKS 1 EXIT 1
  EXPECT "key 'lle.iter_open' = 'early' is not allowed; allowed: one of after.beside"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.iter_open=early)
hy_case(NAME lle_bad_cnd_top_copy RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_top_copy' = 'mapped' is not allowed; allowed: one of pageable.pinned"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_top_copy=mapped)
hy_case(NAME lle_bad_cnd_top_open RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_top_open' = 'early' is not allowed; allowed: one of after.beside"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_top_open=early)
hy_case(NAME lle_bad_cnd_top_warm RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_top_warm' = 'cold' is not a boolean; allowed: true or false"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_top_warm=cold)
hy_case(NAME lle_bad_cnd_below_gemm RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_below_gemm' = '-1' is out of range; allowed: an integer in \\[0, 1000000\\]"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_below_gemm=-1)
hy_case(NAME lle_bad_cnd_top_assembly RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_top_assembly' = 'gpu' is not allowed; allowed: one of auto.device.host"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_top_assembly=gpu)
hy_case(NAME lle_bad_cnd_below RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_below' = 'gpu' is not allowed; allowed: one of auto.device.host"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_below=gpu)
# the iteration's block work on the backend's engine (the host's sequential one) against the
# driver's loop, bsvd and chol-nd (lle_check.py iter_block); GPU: lle_gpu_iter_block
add_test(NAME lle_iter_block COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_iter_block --gpu-spec host:x iter_block)
set_tests_properties(lle_iter_block PROPERTIES LABELS "unit" TIMEOUT 300)
hy_case(NAME lle_bad_iter_block RANKS 1 EXIT 1
  EXPECT "key 'lle.iter_block' = 'device' is not allowed; allowed: one of auto.backend.driver.rows"
  ARGS run.workload=lle lle.iter_block=device)
# the top supernodes on the device: refused on the host backend before any work
hy_case(NAME lle_bad_cnd_top_device_host RANKS 2 EXIT 1
  EXPECT "lle.cnd_top = device: the host backend has no device Cholesky for chol-nd's top supernodes \\(run.backend = cuda; on the host: auto, tiles or blas\\)"
  REJECT "^PASSED" "lle: neighbours by"
  ARGS run.workload=lle lle.n=500 run.backend=host lle.eigensolver=chol-nd lle.cnd_top=device)
hy_case(NAME lle_bad_cnd_check RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_check' = 'maybe' is not a boolean; allowed: true or false"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_check=maybe)
hy_case(NAME lle_bad_cnd_solve_cols RANKS 1 EXIT 1
  EXPECT "key 'lle.cnd_solve_cols' = '65' is out of range; allowed: an integer in \\[0, 64\\]"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.cnd_solve_cols=65)
# the smallest leaves (2 points): splits that make no progress (a side holding the whole
# segment after the refinement) become leaves instead of recursing forever; 2 threads
hy_case(NAME lle_chol_nd_leaf2 RANKS 1 EXPECT "eigensolver chol-nd \\(CHOLMOD" "PASSED: lle: 3 eigenpairs converged"
  REJECT "fallback" ARGS run.workload=lle lle.n=3000 lle.trust_sample=0 lle.eigensolver=chol-nd lle.nd_leaf=2 lle.threads=2)
hy_case(NAME lle_bad_nd_leaf RANKS 1 EXIT 1 EXPECT "key 'lle.nd_leaf' = '1' is out of range; allowed: an integer in \\[2, 1000000\\]"
  ARGS run.workload=lle lle.eigensolver=chol-nd lle.nd_leaf=1)
hy_case(NAME lle_bad_file_nan RANKS 2 EXIT 2 EXPECT "nan.csv:3: column 2 is nan"
  ARGS run.workload=lle lle.dataset=file lle.file=${CMAKE_CURRENT_LIST_DIR}/data/nan.csv lle.k=2 lle.dim=1)
hy_case(NAME lle_bad_file_small RANKS 1 EXIT 2 EXPECT "need more than 4 points"
  ARGS run.workload=lle lle.dataset=file lle.file=${CMAKE_CURRENT_LIST_DIR}/data/small.csv lle.k=4 lle.dim=1)
hy_case(NAME lle_bad_file_missing RANKS 1 EXIT 2 EXPECT "cannot open the point file"
  ARGS run.workload=lle lle.dataset=file lle.file=/nonexistent/p.csv)
hy_case(NAME lle_shift_invert RANKS 1 JSON EXPECT "PASSED: lle" "eigensolver shift-invert" "M = .*nonzeros"
  ARGS run.workload=lle lle.n=3000 lle.eigensolver=shift-invert lle.trust_sample=0)
hy_case(NAME lle_bsvd_fallback RANKS 1 JSON
  EXPECT "bsvd: 2 of 3 eigenpairs .*falling back to shift-invert" "eigensolver shift-invert \\(fallback\\)" "PASSED: lle"
  ARGS run.workload=lle lle.dataset=file lle.file=${CMAKE_CURRENT_LIST_DIR}/data/two_clusters.csv lle.trust_sample=0)
hy_case(NAME lle_config_ini RANKS 1 EXPECT "eigensolver bsvd" "lle: eigensolver = auto: bsvd" "PASSED: lle"
  ARGS ${CMAKE_SOURCE_DIR}/config/lle.ini lle.n=3000)
# config/lle.ini from auto_cnd_n points: chol-nd (what its N = 1M run gets), the host's top by tiles
hy_case(NAME lle_config_ini_cnd RANKS 1 EXPECT "lle: eigensolver = auto: chol-nd" "eigensolver chol-nd \\(CHOLMOD" "PASSED: lle"
  ARGS ${CMAKE_SOURCE_DIR}/config/lle.ini lle.n=20000 run.backend=host output.record=false)
hy_case(NAME lle_not_converged RANKS 1 EXIT 4 JSON EXPECT "FAILED: lle: eigenpairs not converged"
  ARGS run.workload=lle lle.n=1500 lle.maxit=1 lle.tol=1e-16)

if(TARGET hybrid-validate)
  add_test(NAME lle_validate_slepc COMMAND ${LLE_CHECK} --validate=$<TARGET_FILE:hybrid-validate>
    --workdir ${HY_TEST_OUT}/lle_validate validate)
  set_tests_properties(lle_validate_slepc PROPERTIES LABELS "validate;mpi" TIMEOUT 300 PROCESSORS 2)
endif()

if(HYBRID_GPU_TESTS)
  add_test(NAME lle_gpu_vs_host COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu gpu)
  set_tests_properties(lle_gpu_vs_host PROPERTIES LABELS "gpu" TIMEOUT 600)
  # gpu-chol (device sparse Cholesky) against the host's bsvd: eigenvalues, residuals,
  # subspace, Procrustes (also vs scikit-learn dense), parts line, 2 / 3 ranks sharing the GPU
  add_test(NAME lle_gpu_eig COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_eig gpu_eig)
  set_tests_properties(lle_gpu_eig PROPERTIES LABELS "gpu" TIMEOUT 600)
  # chol-nd's top supernodes on the device (lle_chol_cuda.cu) against the host's top: probe
  # backward error, values within 1e-12 of max |L|, the solve's backward error, a zero pivot's column
  add_test(NAME lle_gpu_chol_top COMMAND ${HY_RUNCASE} --exit 0 --timeout 100 --need-gpus 1
    --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAIL" -- $<TARGET_FILE:test_lle_chol_top> cuda)
  set_tests_properties(lle_gpu_chol_top PROPERTIES LABELS "gpu" TIMEOUT 120 SKIP_RETURN_CODE 77)
  add_test(NAME lle_gpu_bsub COMMAND ${HY_RUNCASE} --exit 0 --timeout 100 --need-gpus 1
    --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAIL" -- $<TARGET_FILE:test_lle_bsub> cuda)
  set_tests_properties(lle_gpu_bsub PROPERTIES LABELS "gpu" TIMEOUT 120 SKIP_RETURN_CODE 77)
  # chol-nd on CUDA (its top supernodes on the device) against the host's bsvd as lle_chol_nd
  # does, and against cnd_top = tiles on the same backend; 2 / 3 ranks sharing the GPU
  add_test(NAME lle_gpu_chol_nd COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_chol_nd --gpu-spec cuda:chol-nd gpu_eig)
  set_tests_properties(lle_gpu_chol_nd PROPERTIES LABELS "gpu" TIMEOUT 600)
  # the iteration's block work on the device (lle_bsub_cuda.cu; auto and backend) against the driver's loop
  add_test(NAME lle_gpu_iter_block COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_iter_block --gpu-spec cuda:x iter_block)
  set_tests_properties(lle_gpu_iter_block PROPERTIES LABELS "gpu" TIMEOUT 300)
  # chol-nd spread over 2 and 3 ranks sharing the GPU (the top, and its updates from below and the
  # solves' top, on rank 0's device): bit for bit the one-rank run (lle_check.py chol_nd_ranks)
  add_test(NAME lle_gpu_chol_nd_ranks COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_chol_nd_ranks --gpu-spec cuda:ranks chol_nd_ranks)
  set_tests_properties(lle_gpu_chol_nd_ranks PROPERTIES LABELS "gpu" TIMEOUT 300)
  # lle.cnd_cut on CUDA: more of the factor on the device, the same embedding within Procrustes 1e-10
  add_test(NAME lle_gpu_chol_nd_cut COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_chol_nd_cut --gpu-spec cuda:x chol_nd_cut)
  set_tests_properties(lle_gpu_chol_nd_cut PROPERTIES LABELS "gpu" TIMEOUT 300)
  add_test(NAME lle_gpu_knn COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_knn gpu_knn)
  set_tests_properties(lle_gpu_knn PROPERTIES LABELS "gpu" TIMEOUT 600)
  add_test(NAME lle_gpu_grid COMMAND ${LLE_CHECK} --workdir ${HY_TEST_OUT}/lle_gpu_grid gpu_grid)
  set_tests_properties(lle_gpu_grid PROPERTIES LABELS "gpu" TIMEOUT 600)
  hy_case(NAME lle_gpu_2ranks RANKS 2 LABELS gpu EXPECT "PASSED: lle" "weights on cuda"
    ARGS run.workload=lle run.backend=cuda lle.n=100000 lle.k=10 lle.trust_sample=0 lle.eigensolver=bsvd)
  hy_case(NAME lle_gpu_modified_2ranks RANKS 2 LABELS gpu EXPECT "PASSED: lle" "modified blocks on cuda" "transform: 2000 new point"
    ARGS run.workload=lle run.backend=cuda lle.n=20000 lle.k=10 lle.method=modified lle.trust_sample=0 lle.eigensolver=bsvd
    lle.transform=${CMAKE_CURRENT_LIST_DIR}/data/new2000.csv)
endif()

# the seed's experiments in CI mode (small sizes, host): tables + PNG; the exit code decides (a
# failed run, or a method's disparity to scikit-learn above 1e-6, exits 4); the tables' figures
# against the runs' records and the embedding PNGs (tests/lle/experiments_check.py)
add_test(NAME lle_experiments_ci COMMAND ${HY_RUNCASE} --exit 0 --expect "PASSED: lle experiments, 0 failed run"
  --expect "scikit-learn's methods, N = 500" --expect "experiments_check: ok" --workdir ${HY_TEST_OUT}/lle_experiments_ci
  -- sh -c "\"$0\" \"$1\" --hybrid \"$2\" --mode ci --out \"$3\" && \"$0\" \"$4\" \"$3\""
  ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/jobs/lle_experiments.py $<TARGET_FILE:hybrid>
  ${HY_TEST_OUT}/lle_experiments_ci/out ${CMAKE_CURRENT_LIST_DIR}/experiments_check.py)
set_tests_properties(lle_experiments_ci PROPERTIES LABELS "slow" TIMEOUT 600)
