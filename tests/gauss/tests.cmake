# gauss: Gaussian elimination / blocked LU (app/gauss).  Host backend in CI; CUDA vs host
# comparisons only with -DHYBRID_GPU_TESTS=ON (label gpu).  All small: n <= 300, <= 4 ranks.
set(GAUSS_T ${CMAKE_CURRENT_LIST_DIR})
set(GAUSS_DRIVER ${Python3_EXECUTABLE} ${GAUSS_T}/gauss_driver.py)
set(GAUSS_SWEEP ${Python3_EXECUTABLE} ${GAUSS_T}/sweep_check.py --mpiexec=${MPIEXEC_EXECUTABLE}
    --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN})
set(GAUSS_PASS "HPL scaled residual [0-9.e+-]+ < 16" "^PASSED: gauss")
set(GAUSS_NONAN "(^|[^_a-zA-Z])([Nn]a[Nn]|[Ii]nf)([^a-zA-Z]|$)")

# every algorithm at 1, 2, 3 and 4 ranks (blocked: grids 1x1, 1x2, 2x1, 1x3, 2x2), n not a
# multiple of nb nor of the grid; residual PASSED and a JSON record
foreach(alg naive stepwise blocked)
  set(mat random)
  set(nsz 203)
  if(alg STREQUAL "naive")
    set(mat diagdom)   # no pivoting: a matrix that does not need it
  endif()
  if(NOT alg STREQUAL "blocked")
    set(nsz 101)       # a collective per row: keep the busy-polling MPI runs short
  endif()
  foreach(spec "1:1x1" "2:1x2" "2:2x1" "3:1x3" "4:2x2")
    string(REPLACE ":" ";" sp "${spec}")
    list(GET sp 0 np)
    list(GET sp 1 grid)
    if(NOT alg STREQUAL "blocked")
      if(grid STREQUAL "1x2" OR grid STREQUAL "1x3" OR grid STREQUAL "2x2")
        set(grid "${np}x1")
      endif()
      if(grid STREQUAL "2x1" AND NOT np EQUAL 2)
        continue()
      endif()
    endif()
    if(TEST gauss_${alg}_${grid})
      continue()
    endif()
    hy_case(NAME gauss_${alg}_${grid} RANKS ${np} JSON
      EXPECT ${GAUSS_PASS} "T/V +N +NB +P +Q +Time +Gflops" "Gflops per rank"
      REJECT ${GAUSS_NONAN}
      ARGS run.workload=gauss gauss.algorithm=${alg} gauss.grid=${grid} gauss.n=${nsz} gauss.nb=16
           gauss.matrix=${mat} run.seed=7)
  endforeach()
endforeach()

# x identical (1e-12 relative) across rank counts and grids, every algorithm and precision
foreach(alg naive stepwise blocked)
  set(mat random)
  if(alg STREQUAL "naive")
    set(mat diagdom)
  endif()
  set(nsz 157)
  if(alg STREQUAL "blocked")
    set(runs "1:gauss.grid=1x1" "2:gauss.grid=1x2" "2:gauss.grid=2x1" "3:gauss.grid=1x3" "4:gauss.grid=2x2")
  else()
    set(runs "1:" "2:" "3:" "4:")
    set(nsz 77)
  endif()
  foreach(prec double mixed single)
    set(tol 1e-12)
    if(prec STREQUAL "single")
      set(tol 1e-5)   # FP32 factors: the same operations, GEMM splits round differently
    endif()
    add_test(NAME gauss_ranks_${alg}_${prec}
      COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_ranks_${alg}_${prec} --tol ${tol} --runs ${runs} --
              run.workload=gauss gauss.algorithm=${alg} gauss.precision=${prec} gauss.n=${nsz}
              gauss.nb=12 gauss.matrix=${mat} run.seed=11)
    set_tests_properties(gauss_ranks_${alg}_${prec} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 4)
  endforeach()
endforeach()

# GMRES-IR on a well-conditioned matrix: x identical (1e-12) across rank counts and grids, every
# algorithm (rows algorithms: 1..3 ranks, a collective per row)
foreach(alg naive stepwise blocked)
  set(mat random)
  if(alg STREQUAL "naive")
    set(mat diagdom)
  endif()
  if(alg STREQUAL "blocked")
    set(runs "1:gauss.grid=1x1" "2:gauss.grid=1x2" "2:gauss.grid=2x1" "4:gauss.grid=2x2")
  else()
    set(runs "1:" "2:" "3:")
  endif()
  add_test(NAME gauss_ranks_${alg}_mixed_gmres
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_ranks_${alg}_mixed_gmres --tol 1e-12 --runs ${runs}
            --expect "refine gmres: 0 classic, [1-9][0-9]* GMRES-IR with [1-9][0-9]* GMRES iteration"
            --reject "fallback" --
            run.workload=gauss gauss.algorithm=${alg} gauss.precision=mixed gauss.refine=gmres
            gauss.n=77 gauss.nb=12 gauss.matrix=${mat} run.seed=11)
  set_tests_properties(gauss_ranks_${alg}_mixed_gmres PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 4)
endforeach()
# the same with left preconditioning (GMRES on (LU)^-1 A d = (LU)^-1 r).  Tolerance 1e-10: the
# FP32 LU's bits depend on the GEMM's blocking of each grid's block shapes with a blocked BLAS
# (OpenBLAS; the reference BLAS sums every element in one order and gives equal x), and x is
# refined only to HPL's threshold (scaled residual < 16, a backward error ~16 n eps = 2.7e-13;
# times cond_inf(A) = 3.0e3 here, a bound of ~8e-10): OpenBLAS 0.3.21 gives 4.6e-12 between 1x1 and 1x2
add_test(NAME gauss_ranks_blocked_mixed_gmres_left
  COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
          --workdir ${HY_TEST_OUT}/gauss_ranks_blocked_mixed_gmres_left --tol 1e-10
          --runs "1:gauss.grid=1x1" "2:gauss.grid=1x2" "4:gauss.grid=2x2"
          --expect "refine gmres: 0 classic, [1-9][0-9]* GMRES-IR with [1-9][0-9]* GMRES iteration"
          --expect "[0-9]+ GMRES iteration.s., preconditioned residual reduced" --reject "fallback" --
          run.workload=gauss gauss.precision=mixed gauss.refine=gmres gauss.gmres_precond=left
          gauss.n=77 gauss.nb=12 run.seed=11)
set_tests_properties(gauss_ranks_blocked_mixed_gmres_left PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 4)

# ill-conditioned (matrix = illcond, kappa_2 = 1e9: kappa u_32 ~ 60 > 1 > kappa u_32^2): classical
# refinement stagnates and falls back to FP64; GMRES-IR reaches the HPL threshold without the
# fallback, reporting its iterations (FGMRES by default; left-preconditioned GMRES as well);
# auto switches from classic to GMRES-IR.  1, 2, 4 ranks.
set(GAUSS_ILL run.workload=gauss gauss.precision=mixed gauss.matrix=illcond gauss.cond=1e9
    gauss.n=96 gauss.nb=32 run.seed=5)
foreach(spec "1:1x1" "2:1x2" "4:2x2")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 np)
  list(GET sp 1 grid)
  hy_case(NAME gauss_illcond_classic_${grid} RANKS ${np} JSON
    EXPECT ${GAUSS_PASS} "kappa_2\\(A\\) = 1e\\+09"
      "mixed: refinement did not reach the threshold in [0-9]+ step"
      "refine classic: [1-9][0-9]* classic, 0 GMRES-IR with 0 GMRES iteration.*then FP64 fallback"
    REJECT ${GAUSS_NONAN}
    RUNCASE --json-field metrics.fp64_fallback=1 --json-field metrics.gmres_iterations=0
            --json-field metrics.refine_method=classic
    ARGS ${GAUSS_ILL} gauss.refine=classic gauss.grid=${grid})
  hy_case(NAME gauss_illcond_gmres_${grid} RANKS ${np} JSON
    EXPECT ${GAUSS_PASS} "mixed: GMRES-IR step 0: [0-9]+ FGMRES iteration.s., true residual"
      "refine gmres: 0 classic, [1-9][0-9]* GMRES-IR with [1-9][0-9]* GMRES iteration\\(s\\)\\)$"
    REJECT ${GAUSS_NONAN} "fallback" "falling back"
    RUNCASE --json-field metrics.fp64_fallback=0 --json-field metrics.refine_classic_steps=0
            --json-field metrics.refine_method=gmres
    ARGS ${GAUSS_ILL} gauss.refine=gmres gauss.grid=${grid})
endforeach()
hy_case(NAME gauss_illcond_gmres_left_1x1 RANKS 1 JSON
  EXPECT ${GAUSS_PASS} "mixed: GMRES-IR step 0: [0-9]+ GMRES iteration.s., preconditioned residual"
    "refine gmres: 0 classic, [1-9][0-9]* GMRES-IR with [1-9][0-9]* GMRES iteration\\(s\\)\\)$"
  REJECT ${GAUSS_NONAN} "fallback" "falling back"
  RUNCASE --json-field metrics.fp64_fallback=0
  ARGS ${GAUSS_ILL} gauss.refine=gmres gauss.gmres_precond=left)
hy_case(NAME gauss_illcond_auto_1x1 RANKS 1 JSON
  EXPECT ${GAUSS_PASS} "classical refinement stagnates at step [0-9]+ .*switching to GMRES-IR"
    "refine auto: [1-9][0-9]* classic, [1-9][0-9]* GMRES-IR with [1-9][0-9]* GMRES iteration\\(s\\), switched from classic\\)$"
  REJECT ${GAUSS_NONAN} "fallback" "falling back"
  RUNCASE --json-field metrics.fp64_fallback=0 --json-field metrics.refine_switched_to_gmres=1
  ARGS ${GAUSS_ILL} gauss.refine=auto)
# the same ill-conditioned system solved by GMRES-IR on 1x1, 1x2, 2x2 (+ left-preconditioned on
# 1x2) and by FP64 LU: x agrees to 1e-3.  Any x passing the HPL check has backward error
# <= 16 n eps, so forward error <= kappa * 16 n eps = 3.4e-4 (up to norm-equivalence constants):
# 1e-12 on x is out of reach at kappa = 1e9 (measured: ~3e-5, FGMRES stops near the threshold).
# The matrix is the same on every grid (||A||_inf printed to 7 digits)
add_test(NAME gauss_illcond_gmres_ranks
  COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
          --workdir ${HY_TEST_OUT}/gauss_illcond_gmres_ranks --tol 1e-3
          --runs "1:gauss.grid=1x1" "2:gauss.grid=1x2" "4:gauss.grid=2x2" "1:gauss.precision=double"
                 "2:gauss.grid=1x2 gauss.gmres_precond=left"
          --expect "A.._inf = 2.243868e\\+00" --reject "fallback" -- ${GAUSS_ILL} gauss.refine=gmres)
set_tests_properties(gauss_illcond_gmres_ranks PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 4)

# a matrix that needs pivoting (zero diagonal): stepwise and blocked pass, naive reports step 0
foreach(np 1 2)
  foreach(alg stepwise blocked)
    hy_case(NAME gauss_zerodiag_${alg}_${np} RANKS ${np} EXPECT ${GAUSS_PASS}
      ARGS run.workload=gauss gauss.algorithm=${alg} gauss.matrix=file
           gauss.file=${GAUSS_T}/zerodiag.mtx gauss.rhs=ones gauss.nb=4)
  endforeach()
  hy_case(NAME gauss_zerodiag_naive_${np} RANKS ${np} EXIT 3
    EXPECT "exactly singular at column 0 .*no pivoting" "FAILED: numerical"
    REJECT ${GAUSS_NONAN}
    ARGS run.workload=gauss gauss.algorithm=naive gauss.matrix=file gauss.file=${GAUSS_T}/zerodiag.mtx)
  # singular (row 4 = row 1 + row 2): exit 3 naming the column, on every algorithm
  foreach(alg naive stepwise blocked)
    hy_case(NAME gauss_singular_${alg}_${np} RANKS ${np} EXIT 3 JSON
      EXPECT "singular at column [0-9]+" "FAILED: numerical"
      REJECT ${GAUSS_NONAN} "PASSED"
      ARGS run.workload=gauss gauss.algorithm=${alg} gauss.matrix=file
           gauss.file=${GAUSS_T}/singular.mtx gauss.nb=2)
  endforeach()
endforeach()
# mixed: a singular matrix fails in FP32 and in the FP64 fallback alike
hy_case(NAME gauss_singular_mixed RANKS 1 EXIT 3 EXPECT "falling back to FP64" "singular at column"
  ARGS run.workload=gauss gauss.precision=mixed gauss.matrix=file gauss.file=${GAUSS_T}/singular.mtx)
# GMRES-IR finds a huge x with a small HPL residual on a singular matrix: the kappa lower bound
# ||A|| ||x|| / ||b|| >= 1 / (n eps) sends it to the FP64 factorization, which names the column
hy_case(NAME gauss_singular_mixed_gmres RANKS 1 EXIT 3
  EXPECT "numerically singular in FP64; falling back to FP64" "singular at column"
  REJECT "PASSED"
  ARGS run.workload=gauss gauss.precision=mixed gauss.refine=gmres gauss.matrix=file
       gauss.file=${GAUSS_T}/singular.mtx)

# precisions and inputs
hy_case(NAME gauss_mixed_blocked_2 RANKS 2 JSON
  EXPECT ${GAUSS_PASS} "mixed: [0-9]+ refinement step" "eps = 2.220e-16"
    "refine auto: [1-9][0-9]* classic, 0 GMRES-IR with 0 GMRES"
  ARGS run.workload=gauss gauss.precision=mixed gauss.n=250 gauss.nb=32)
hy_case(NAME gauss_single_blocked_1 RANKS 1 EXPECT ${GAUSS_PASS} "eps = 1.192e-07"
  ARGS run.workload=gauss gauss.precision=single gauss.n=250 gauss.nb=32)
hy_case(NAME gauss_mixed_stepwise_2 RANKS 2 EXPECT ${GAUSS_PASS} "mixed: [0-9]+ refinement step"
  ARGS run.workload=gauss gauss.algorithm=stepwise gauss.precision=mixed gauss.n=120)
hy_case(NAME gauss_managed_naive_1 RANKS 1 EXPECT ${GAUSS_PASS} "memory managed"
  ARGS run.workload=gauss gauss.algorithm=naive gauss.memory=managed gauss.matrix=diagdom gauss.n=100)
hy_case(NAME gauss_rhs_file RANKS 2 EXPECT ${GAUSS_PASS} "rhs file"
  ARGS run.workload=gauss gauss.matrix=file gauss.file=${GAUSS_T}/zerodiag.mtx gauss.rhs=file
       gauss.rhs_file=${GAUSS_T}/zerodiag_b.mtx gauss.nb=4)
hy_case(NAME gauss_outputs RANKS 2 EXPECT ${GAUSS_PASS} "wrote matrix A.mtx" "wrote rhs b.petsc"
  "wrote solution x.mtx"
  ARGS run.workload=gauss gauss.n=40 gauss.nb=8 output.matrix=A.mtx output.rhs=b.petsc
       output.solution=x.mtx)
hy_case(NAME gauss_compare_host RANKS 1 EXPECT ${GAUSS_PASS} "reference: LAPACK dgetrf"
  "compare: blocked factor .* ratio" "fraction|of DGEMM"
  ARGS run.workload=gauss gauss.n=200 gauss.nb=32 gauss.compare_cusolver=true gauss.gemm_n=128)

# bad keys: exit 1 naming the key
hy_case(NAME gauss_bad_grid RANKS 2 EXIT 1 EXPECT "gauss.grid' = 3x3 needs 9 ranks, but the run has 2"
  ARGS run.workload=gauss gauss.grid=3x3)
hy_case(NAME gauss_bad_grid_rows RANKS 2 EXIT 1 EXPECT "gauss.grid' = 1x2: algorithm naive"
  ARGS run.workload=gauss gauss.algorithm=naive gauss.grid=1x2)
hy_case(NAME gauss_bad_algorithm RANKS 1 EXIT 1 EXPECT "gauss.algorithm" "naive.stepwise.blocked"
  ARGS run.workload=gauss gauss.algorithm=lu)
hy_case(NAME gauss_bad_managed RANKS 1 EXIT 1 EXPECT "gauss.memory' = managed applies to"
  ARGS run.workload=gauss gauss.memory=managed)
hy_case(NAME gauss_bad_file RANKS 1 EXIT 1 EXPECT "gauss.matrix' = file needs gauss.file"
  ARGS run.workload=gauss gauss.matrix=file)
hy_case(NAME gauss_missing_file RANKS 2 EXIT 2 EXPECT "nonexistent.mtx"
  ARGS run.workload=gauss gauss.matrix=file gauss.file=nonexistent.mtx)
hy_case(NAME gauss_bad_n RANKS 1 EXIT 1 EXPECT "gauss.n"
  ARGS run.workload=gauss gauss.n=0)
hy_case(NAME gauss_bad_refine RANKS 1 EXIT 1 EXPECT "gauss.refine" "classic.gmres.auto"
  ARGS run.workload=gauss gauss.precision=mixed gauss.refine=newton)
hy_case(NAME gauss_bad_illcond_n RANKS 1 EXIT 1 EXPECT "gauss.n' = 4096: matrix = illcond .*n <= 2048"
  ARGS run.workload=gauss gauss.matrix=illcond gauss.n=4096)

# the blocked LU's broadcast paths on the host: MPI (what the host backend uses), the
# device-collective path (NCCL on a GPU) run through the host backend's MPI emulation
# ([debug] host_coll = true, a test hook), grids 1x2, 2x1, 2x2, FP64 and mixed: the same x to
# rounding level; gauss.bcast = nccl where there are no device collectives is a config error
foreach(spec "2:1x2:double" "2:1x2:mixed" "2:2x1:double" "2:2x1:mixed" "3:3x1:double" "4:2x2:double")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 np)
  list(GET sp 1 grid)
  list(GET sp 2 prec)
  # the same arithmetic on both paths: the same x to the last bit (tolerance 0)
  add_test(NAME gauss_bcast_paths_${grid}_${prec}
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_bcast_paths_${grid}_${prec} --tol 0
            --runs "${np}:gauss.bcast=mpi" "${np}:gauss.bcast=auto"
            --expect "^gauss: panel broadcasts: (mpi|emulated) "
            -- run.workload=gauss run.backend=host gauss.algorithm=blocked gauss.precision=${prec}
               gauss.grid=${grid} gauss.n=203 gauss.nb=16 gauss.repeat=2 run.seed=7 debug.host_coll=true)
  set_tests_properties(gauss_bcast_paths_${grid}_${prec} PROPERTIES LABELS "mpi" TIMEOUT 120
    PROCESSORS ${np})
endforeach()
foreach(grid 1x2 2x1)
  hy_case(NAME gauss_bcast_emulated_${grid} RANKS 2
    EXPECT ${GAUSS_PASS} "^gauss: panel broadcasts: emulated \\(\\[debug\\] host_coll test hook"
    ARGS run.workload=gauss run.backend=host gauss.n=203 gauss.nb=16 gauss.grid=${grid} gauss.bcast=nccl
         debug.host_coll=true)
endforeach()
hy_case(NAME gauss_bcast_mpi_host RANKS 2
  EXPECT ${GAUSS_PASS} "^gauss: panel broadcasts: mpi \\(host memory\\): host backend"
  ARGS run.workload=gauss run.backend=host gauss.n=203 gauss.nb=16 gauss.grid=1x2)
hy_case(NAME gauss_bcast_nccl_host RANKS 2 EXIT 1
  EXPECT "gauss.bcast = nccl: device collectives are not available here: host backend \\(allowed here: auto or mpi\\)"
         "^FAILED: usage or configuration error \\(exit 1\\)"
  REJECT "^PASSED"
  ARGS run.workload=gauss run.backend=host gauss.n=203 gauss.nb=16 gauss.grid=1x2 gauss.bcast=nccl)

# the seed's tables, CI size (host: GPU columns n/a): the script's exit code (0: every run
# passed) and its figures, parsed (tests/gauss/seed_tables_check.py); with every gauss run made
# to fail ([debug] perturb through tests/gauss/perturbed_bin.sh) the script exits 4 and names them
add_test(NAME gauss_seed_tables
  COMMAND ${HY_RUNCASE} --exit 0 --expect "tables done" --expect "seed_tables_check: ok" --reject "FAIL"
          -- sh -c "bash \"$0\" --bin \"$1\" --max 128 --reps 1 --out \"$2\" && \"$3\" \"$4\" \"$2\" 128"
             ${CMAKE_SOURCE_DIR}/jobs/gauss-seed-tables.sh ${HY_BIN} ${HY_TEST_OUT}/gauss_seed_tables
             ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/seed_tables_check.py)
set_tests_properties(gauss_seed_tables PROPERTIES LABELS "unit" TIMEOUT 120)
add_test(NAME gauss_seed_tables_failed_runs
  COMMAND ${HY_RUNCASE} --exit 4 --expect "tables done" --expect "\\| +FAIL +"
          --expect "gauss-seed-tables.sh: 6 run\\(s\\) failed .*serial\\.16 \\(exit 4\\)"
          -- bash ${CMAKE_SOURCE_DIR}/jobs/gauss-seed-tables.sh --bin ${CMAKE_CURRENT_LIST_DIR}/perturbed_bin.sh
             --max 64 --reps 1 --out ${HY_TEST_OUT}/gauss_seed_tables_failed_runs)
set_tests_properties(gauss_seed_tables_failed_runs PROPERTIES LABELS "unit" TIMEOUT 120
  ENVIRONMENT "HY_REAL_BIN=$<TARGET_FILE:hybrid>")

# against PETSc (validate/ builds hybrid-validate when PETSc is found); the validator is
# OpenMPI-linked: run directly (singleton), never through this build's mpiexec
if(TARGET hybrid-validate)
  foreach(alg naive stepwise blocked)
    set(mat random)
    if(alg STREQUAL "naive")
      set(mat diagdom)
    endif()
    foreach(np 1 2)
      set(ext .mtx)
      if(np EQUAL 2)
        set(ext .petsc)
      endif()
      add_test(NAME gauss_validate_${alg}_${np}
        COMMAND ${GAUSS_DRIVER} validate --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
                --validator $<TARGET_FILE:hybrid-validate> --ranks ${np} --ext ${ext}
                --workdir ${HY_TEST_OUT}/gauss_validate_${alg}_${np} --tol 1e-8 --
                run.workload=gauss gauss.algorithm=${alg} gauss.matrix=${mat} gauss.n=120
                gauss.nb=16 run.seed=5)
      set_tests_properties(gauss_validate_${alg}_${np} PROPERTIES LABELS "validate" TIMEOUT 120
        PROCESSORS ${np})
    endforeach()
  endforeach()
endif()

# GPU: the CUDA backend against the host backend, every algorithm and precision (1 and 2 ranks)
if(HYBRID_GPU_TESTS)
  foreach(alg naive stepwise blocked)
    set(mat random)
    if(alg STREQUAL "naive")
      set(mat diagdom)
    endif()
    foreach(prec double single mixed)
      set(tol 1e-11)
      if(prec STREQUAL "single")
        set(tol 2e-4)
      endif()
      foreach(np 1 2)
        add_test(NAME gauss_gpu_${alg}_${prec}_${np}
          COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
                  --workdir ${HY_TEST_OUT}/gauss_gpu_${alg}_${prec}_${np} --tol ${tol}
                  --runs "${np}:run.backend=host" "${np}:run.backend=cuda" --
                  run.workload=gauss gauss.algorithm=${alg} gauss.precision=${prec} gauss.n=300
                  gauss.nb=64 gauss.matrix=${mat} run.seed=3)
        set_tests_properties(gauss_gpu_${alg}_${prec}_${np} PROPERTIES LABELS "gpu" TIMEOUT 300
          PROCESSORS ${np})
      endforeach()
    endforeach()
  endforeach()
  # managed memory on the device (seed: USM) and a larger blocked run with the GPU's nb
  hy_case(NAME gauss_gpu_managed RANKS 1 LABELS gpu EXPECT ${GAUSS_PASS} "backend cuda"
    ARGS run.workload=gauss run.backend=cuda gauss.algorithm=naive gauss.memory=managed
         gauss.matrix=diagdom gauss.n=1000)
  hy_case(NAME gauss_gpu_blocked_4096 RANKS 1 LABELS gpu EXPECT ${GAUSS_PASS} "backend cuda"
    ARGS run.workload=gauss run.backend=cuda gauss.n=4100 gauss.nb=512)
  hy_case(NAME gauss_gpu_blocked_4096_2 RANKS 2 LABELS gpu EXPECT ${GAUSS_PASS} "backend cuda"
    ARGS run.workload=gauss run.backend=cuda gauss.n=4100 gauss.nb=512 gauss.grid=1x2)
  hy_case(NAME gauss_gpu_compare RANKS 1 LABELS gpu EXPECT ${GAUSS_PASS} "reference: cuSOLVER dgetrf"
    ARGS run.workload=gauss run.backend=cuda gauss.n=2048 gauss.compare_cusolver=true gauss.gemm_n=2048)
  # GMRES-IR on the device: the ill-conditioned system of the host tests (n = 96) on host and
  # CUDA (1 and 2 ranks), x to the forward-error bound (see gauss_illcond_gmres_ranks), no FP64
  # fallback.  (At n = 300 with kappa 1e9 GMRES-IR stagnates on host and GPU alike, ~0.96 per
  # 50-iteration step, and falls back to FP64: seen on the H200 at 96d7b10.)
  foreach(np 1 2)
    add_test(NAME gauss_gpu_illcond_gmres_${np}
      COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_gpu_illcond_gmres_${np} --tol 1e-3
              --runs "${np}:run.backend=host" "${np}:run.backend=cuda"
              --expect "refine gmres: 0 classic, [1-9][0-9]* GMRES-IR" --reject "fallback" --
              ${GAUSS_ILL} gauss.refine=gmres)
    set_tests_properties(gauss_gpu_illcond_gmres_${np} PROPERTIES LABELS "gpu" TIMEOUT 300
      PROCESSORS ${np})
  endforeach()
  # blocked LU on 2 GPUs: the panel / U broadcasts through NCCL on device buffers and through
  # host-staged MPI (gauss.bcast), grids 1x2 (L broadcast along the row) and 2x1 (U broadcast
  # down the column), n not a multiple of nb; each run prints its path and passes HPL's check,
  # and the solutions of both paths agree with the host backend's
  if(HYBRID_HAVE_NCCL)
    set(GAUSS_BC_PATHS nccl mpi)
  else()
    set(GAUSS_BC_PATHS mpi)
    hy_case(NAME gauss_gpu_bcast_auto_nonccl RANKS 2 LABELS gpu
      EXPECT ${GAUSS_PASS} "^gauss: panel broadcasts: mpi \\(host-staged\\): this build has no NCCL"
      ARGS run.workload=gauss run.backend=cuda gauss.n=1000 gauss.nb=128 gauss.grid=1x2)
  endif()
  foreach(path IN LISTS GAUSS_BC_PATHS)
    if(path STREQUAL "nccl")
      set(bc_line "^gauss: panel broadcasts: nccl \\(")
    else()
      set(bc_line "^gauss: panel broadcasts: mpi \\(host-staged\\): gauss.bcast = mpi")
    endif()
    foreach(grid 1x2 2x1)
      foreach(prec double mixed)
        # NCCL needs one device per rank: those cases skip on a one-GPU machine
        if(path STREQUAL "nccl")
          set(bc_need RUNCASE --need-gpus 2)
        else()
          set(bc_need "")
        endif()
        hy_case(NAME gauss_gpu_bcast_${path}_${grid}_${prec} RANKS 2 LABELS gpu TIMEOUT 300 ${bc_need}
          EXPECT ${GAUSS_PASS} "backend cuda" "grid ${grid}, nb 128" "${bc_line}"
          ARGS run.workload=gauss run.backend=cuda gauss.n=1000 gauss.nb=128 gauss.grid=${grid}
               gauss.precision=${prec} gauss.bcast=${path} gauss.repeat=2 run.seed=11)
        set_tests_properties(gauss_gpu_bcast_${path}_${grid}_${prec} PROPERTIES SKIP_RETURN_CODE 77)
      endforeach()
    endforeach()
  endforeach()
  # the transports against the host backend: MPI on any machine, NCCL (one device per rank)
  # only with 2 GPUs (gauss_gpu_bcast_compare_nccl skips on one)
  foreach(path IN LISTS GAUSS_BC_PATHS)
    set(bc_runs "2:run.backend=host gauss.grid=1x2"
                "2:run.backend=cuda gauss.grid=1x2 gauss.bcast=${path}"
                "2:run.backend=cuda gauss.grid=2x1 gauss.bcast=${path}")
    if(path STREQUAL "nccl")
      set(bc_name gauss_gpu_bcast_compare_nccl)
      set(bc_need --need-gpus 2)
    else()
      set(bc_name gauss_gpu_bcast_compare)
      set(bc_need "")
    endif()
    add_test(NAME ${bc_name}
      COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/${bc_name} --tol 1e-11 ${bc_need}
              --runs ${bc_runs} --expect "^gauss: panel broadcasts: " --
              run.workload=gauss gauss.algorithm=blocked gauss.n=1000 gauss.nb=128 run.seed=11)
    set_tests_properties(${bc_name} PROPERTIES LABELS "gpu" TIMEOUT 300 PROCESSORS 2 SKIP_RETURN_CODE 77)
  endforeach()
  # two ranks on one device (CUDA_VISIBLE_DEVICES=0): NCCL cannot put one device twice in a
  # communicator, so auto takes MPI and says why, and nccl asked for is a configuration error
  hy_case(NAME gauss_gpu_bcast_shared_auto RANKS 2 LABELS gpu TIMEOUT 300
    EXPECT ${GAUSS_PASS} "^gauss: panel broadcasts: mpi \\(host-staged\\): (ranks share a device|this build has no NCCL)"
    ARGS run.workload=gauss run.backend=cuda gauss.n=1000 gauss.nb=128 gauss.grid=1x2)
  set_tests_properties(gauss_gpu_bcast_shared_auto PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=0")
  hy_case(NAME gauss_gpu_bcast_shared_nccl RANKS 2 LABELS gpu EXIT 1 TIMEOUT 300
    EXPECT "gauss.bcast = nccl: device collectives are not available here: (ranks share a device|this build has no NCCL)"
    ARGS run.workload=gauss run.backend=cuda gauss.n=1000 gauss.nb=128 gauss.grid=1x2 gauss.bcast=nccl)
  set_tests_properties(gauss_gpu_bcast_shared_nccl PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=0")
  # TF32 tensor cores: classical refinement stalls (kappa u_tf32 > 1), auto switches to GMRES-IR
  # and reaches the FP64 threshold without the fallback
  hy_case(NAME gauss_gpu_tf32_gmres RANKS 1 LABELS gpu JSON
    EXPECT ${GAUSS_PASS} "backend cuda" "refine auto: [0-9]+ classic, [0-9]+ GMRES-IR"
    REJECT "fallback" "falling back"
    RUNCASE --json-field metrics.fp64_fallback=0
    ARGS run.workload=gauss run.backend=cuda gauss.precision=mixed gauss.tensor=tf32
         gauss.refine=auto gauss.n=8192)
  # HPL-MxP FP16 with gauss.tensor = tf32 (the FP32 TRSM's L^-1 product and the panel's GEMMs on
  # TF32 tensor cores too: the 462 ms of SIMT FP32 TRSM at n = 98304): GMRES-IR to FP64 without
  # the fallback, the rate line printed; the fused panel with as many rows a block as fit
  hy_case(NAME gauss_gpu_hplmxp_fp16_tensor_tf32 RANKS 1 LABELS gpu JSON TIMEOUT 300
    EXPECT ${GAUSS_PASS} "^hpl-mxp: low fp16" REJECT "fallback" "falling back"
    RUNCASE --json-field metrics.fp64_fallback=0
    ARGS run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
         gauss.refine=gmres gauss.tensor=tf32 gauss.n=8192)
  hy_case(NAME gauss_gpu_hplmxp_fp16_fused_rows RANKS 1 LABELS gpu JSON TIMEOUT 300
    EXPECT ${GAUSS_PASS} "^hpl-mxp: low fp16" REJECT "fallback" "falling back"
    RUNCASE --json-field metrics.fp64_fallback=0
    ARGS run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
         gauss.refine=gmres gauss.panel=fused gauss.panel_rows=65536 gauss.n=8192)
  # gauss.pivoting = none on the device (the no-pivot base blocks: one block factors the top
  # square in shared memory, the rows below solved one thread a row; no row swaps): HPL-MxP FP16
  # against the host's no-pivot emulation (n = 2000: step-0 residual within 4x, x within 1e-9)
  # and against the device's partial pivoting (n = 8193: a ragged last block; within 2x, and 8x
  # with tensor = tf32: the panel's GEMMs and the U TRSM on TF32 tensor cores round L21 and U12
  # too - the H200 at b8a85d5, 12-02 07:25: 1.924e5 vs 9.702e5, 5.04x, 2 GMRES iterations
  # instead of 1 - where at 98304 it was 1.3x), no fallback;
  # FP32 on the diagonally dominant matrix against the host (3e-3, as the fused panel's test), host
  # pivots with lookahead 0 and base blocks of 8; the zero-diagonal matrix falls back to FP64
  add_test(NAME gauss_gpu_hplmxp_nopiv_vs_host
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_hplmxp_nopiv_vs_host
            --runs "1:run.backend=host" "1:run.backend=cuda" --
            run.workload=gauss gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16 gauss.pivoting=none
            gauss.refine=gmres gauss.n=2000 gauss.nb=128 run.seed=9)
  set_tests_properties(gauss_gpu_hplmxp_nopiv_vs_host PROPERTIES LABELS "gpu" TIMEOUT 300)
  foreach(spec "partial:2:" "tf32:8:gauss.tensor=tf32")
    string(REPLACE ":" ";" sp "${spec}")
    list(GET sp 0 what)
    list(GET sp 1 ratio)
    list(LENGTH sp nsp)
    set(extra "")
    if(nsp GREATER 2)
      list(GET sp 2 extra)
    endif()
    add_test(NAME gauss_gpu_hplmxp_nopiv_vs_${what}
      COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
              --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_gpu_hplmxp_nopiv_vs_${what} --ratio ${ratio}
              --runs "1:gauss.pivoting=partial" "1:gauss.pivoting=none ${extra}" --
              run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
              gauss.refine=gmres gauss.n=8193 gauss.nb=512 run.seed=9)
    set_tests_properties(gauss_gpu_hplmxp_nopiv_vs_${what} PROPERTIES LABELS "gpu" TIMEOUT 300)
  endforeach()
  # gauss.panel_sms (the main stream's GEMMs and TRSM on all but 16 multiprocessors through
  # cublasSetSmCountTarget, read back): the same HPL-MxP system as without it, step-0 residuals
  # within 2x, x within 1e-9, the line printed
  add_test(NAME gauss_gpu_hplmxp_nopiv_panel_sms
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_hplmxp_nopiv_panel_sms --ratio 2
            --runs "1:gauss.panel_sms=0" "1:gauss.panel_sms=16" --
            run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
            gauss.pivoting=none gauss.tensor=tf32 gauss.refine=gmres gauss.n=8193 gauss.nb=512 run.seed=9)
  set_tests_properties(gauss_gpu_hplmxp_nopiv_panel_sms PROPERTIES LABELS "gpu" TIMEOUT 300)
  hy_case(NAME gauss_gpu_panel_sms_line RANKS 1 LABELS gpu TIMEOUT 60 EXPECT ${GAUSS_PASS}
    "gauss: panel_sms = 8: the main stream's GEMMs and TRSM on all but 8 multiprocessors"
    ARGS run.workload=gauss run.backend=cuda gauss.precision=mixed gauss.pivoting=none gauss.matrix=hplmxp
         gauss.low=fp16 gauss.refine=gmres gauss.panel_sms=8 gauss.n=3000 gauss.nb=256)
  add_test(NAME gauss_gpu_nopiv_single
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_nopiv_single --tol 3e-3
            --runs "1:run.backend=host" "1:run.backend=cuda"
                   "1:run.backend=cuda gauss.pivots=host gauss.lookahead=0 gauss.panel_nb=8"
            -- run.workload=gauss gauss.precision=single gauss.pivoting=none gauss.matrix=diagdom
               gauss.n=3001 gauss.nb=256 run.seed=3)
  set_tests_properties(gauss_gpu_nopiv_single PROPERTIES LABELS "gpu" TIMEOUT 300)
  hy_case(NAME gauss_gpu_nopiv_zerodiag RANKS 1 LABELS gpu TIMEOUT 60 EXPECT ${GAUSS_PASS}
    "the FP32 factorization failed \\(matrix is exactly singular at column 0" "falling back to FP64"
    ARGS run.workload=gauss run.backend=cuda gauss.matrix=file gauss.file=${GAUSS_T}/zerodiag.mtx
         gauss.rhs=ones gauss.nb=4 gauss.precision=mixed gauss.pivoting=none)
  # HPL-MxP on the device: the trailing GEMMs on tensor cores (cublasGemmEx: FP16 / BF16 inputs,
  # FP32 sums; TF32 compute type), GMRES-IR to FP64 without the fallback; the device's x agrees
  # with the host emulation's within HPL's threshold (both pass), the rate line is printed
  foreach(low fp16 bf16 tf32)
    hy_case(NAME gauss_gpu_hplmxp_${low} RANKS 1 LABELS gpu JSON TIMEOUT 300
      EXPECT ${GAUSS_PASS} "backend cuda" "^hpl-mxp: low ${low}, matrix hplmxp: [0-9.e+-]+ Gflops"
      REJECT "fallback" "falling back"
      RUNCASE --json-field metrics.fp64_fallback=0 --json-field metrics.low=${low}
      ARGS run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed
           gauss.low=${low} gauss.refine=gmres gauss.n=8192)
  endforeach()
  # HPL-MxP on the device against the host's emulation of the rounding, n = 2000, the same nb:
  # the first GMRES-IR residual (of the FP16 / BF16-updated LU's x) within 4x of the host's (an
  # unrounded FP32 update is 10-1000x smaller), both refined to FP64 without the fallback, x
  # within 1e-9, the hpl-mxp rate parsed and equal to HPL's count over the line's Time
  foreach(low fp16 bf16)
    add_test(NAME gauss_gpu_hplmxp_vs_host_${low}
      COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
              --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_gpu_hplmxp_vs_host_${low}
              --runs "1:run.backend=host" "1:run.backend=cuda" --
              run.workload=gauss gauss.matrix=hplmxp gauss.precision=mixed gauss.low=${low}
              gauss.refine=gmres gauss.n=2000 gauss.nb=128 run.seed=9)
    set_tests_properties(gauss_gpu_hplmxp_vs_host_${low} PROPERTIES LABELS "gpu" TIMEOUT 300)
  endforeach()
  # gauss_gpu_prec_cases(NAME COMMON RUN...): the runs RUN... (the driver's "R:ARGS") with the
  # arguments COMMON, once in FP64 (NAME_double: x within 1e-11 of the first run's) and once in
  # FP32 (NAME_single: 3e-3; at n = 3000 two correct FP32 solves differ by ~kappa eps_32, the
  # 18:15 H200 run: 7.9e-4 and 5.6e-4 with every residual PASSED; each run's HPL residual with
  # FP32 eps must pass)
  function(gauss_gpu_prec_cases name common)
    separate_arguments(common)
    foreach(prec double single)
      set(tol 1e-11)
      if(prec STREQUAL "single")
        set(tol 3e-3)
      endif()
      add_test(NAME ${name}_${prec}
        COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
                --workdir ${HY_TEST_OUT}/${name}_${prec} --tol ${tol} --runs ${ARGN} --
                run.workload=gauss gauss.precision=${prec} ${common})
      set_tests_properties(${name}_${prec} PROPERTIES LABELS "gpu" TIMEOUT 300)
    endforeach()
  endfunction()
  # the recursive panel LU on the device (pivots on the device, cuSOLVER blocks of panel_nb,
  # cuBLAS TRSM + GEMM) against the host's vendor panel (and the device's vendor panel)
  gauss_gpu_prec_cases(gauss_gpu_panel_recursive "gauss.n=3000 gauss.nb=256 run.seed=3"
    "1:run.backend=host gauss.panel=vendor" "1:run.backend=cuda gauss.panel=recursive"
    "1:run.backend=cuda gauss.panel=recursive gauss.panel_nb=16" "1:run.backend=cuda gauss.panel=vendor")
  # gauss.lookahead = 0 | 1 and gauss.pivots = host | device on the device (side stream, pivots
  # and swap plans on the device, one swap launch per step) against the host, n = 3001 that nb =
  # 256 does not divide; HPL-MxP FP16 with lookahead 0 / host pivots against lookahead 1 / device
  # pivots (the same rounding: step-0 residuals within 4x, x within 1e-9)
  gauss_gpu_prec_cases(gauss_gpu_lookahead "gauss.n=3001 gauss.nb=256 run.seed=3"
    "1:run.backend=host gauss.lookahead=0 gauss.pivots=host"
    "1:run.backend=cuda gauss.lookahead=0 gauss.pivots=host"
    "1:run.backend=cuda gauss.lookahead=1 gauss.pivots=host"
    "1:run.backend=cuda gauss.lookahead=0 gauss.pivots=device"
    "1:run.backend=cuda gauss.lookahead=1 gauss.pivots=device"
    "1:run.backend=cuda gauss.lookahead=1 gauss.pivots=device gauss.panel=recursive")
  # gauss.trace on the device (events on the main and the side stream, nothing synchronised):
  # the parts parsed, >= 0, summing to the printed factor time, within [0.5, 1.05] x the run's
  # factor time, the quarters and the record agreeing, the GEMM rates x times = HPL's
  # trailing-update count within 2%, x as without the trace; FP64 at n = 8193 (nb = 512 does
  # not divide it) and HPL-MxP FP16 (its low copies)
  foreach(spec "double|gauss.n=8193 gauss.nb=512|1e-12"
               "hplmxp_fp16|gauss.n=8193 gauss.nb=512 gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16 gauss.refine=gmres|1e-9")
    string(REPLACE "|" ";" sp "${spec}")
    list(GET sp 0 what)
    list(GET sp 1 args)
    list(GET sp 2 tol)
    separate_arguments(args)
    add_test(NAME gauss_gpu_trace_${what}
      COMMAND ${GAUSS_DRIVER} trace --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
              --bin ${HY_BIN} --workdir ${HY_TEST_OUT}/gauss_gpu_trace_${what} --ranks 1 --tol ${tol} --flops --
              run.workload=gauss run.backend=cuda run.seed=3 ${args})
    set_tests_properties(gauss_gpu_trace_${what} PROPERTIES LABELS "gpu" TIMEOUT 300)
  endforeach()
  # gauss.update_chunks on the device (each chunk's swaps + TRSM (+ HPL-MxP's low copy of U) on
  # the aux stream beside the GEMMs of the chunks before it): x within 1e-10 (FP64) / 1e-9
  # (HPL-MxP FP16) of one chunk with 4 and 16 chunks, 4 with lookahead 0, 3 with host pivots,
  # 2 with the aux stream and the lookahead panel's stream (gauss.side_priority = same) at the
  # main stream's priority; every run PASSED; then the trace with 4 chunks (the aux stream's line,
  # parts summing to the factor, the GEMM rates x times = HPL's count)
  foreach(spec "double|gauss.n=8193 gauss.nb=512|1e-10"
               "hplmxp_fp16|gauss.n=8193 gauss.nb=512 gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16 gauss.refine=gmres|1e-9")
    string(REPLACE "|" ";" sp "${spec}")
    list(GET sp 0 what)
    list(GET sp 1 args)
    list(GET sp 2 tol)
    separate_arguments(args)
    add_test(NAME gauss_gpu_update_chunks_${what}
      COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_gpu_update_chunks_${what} --tol ${tol}
              --runs "1:gauss.update_chunks=1" "1:gauss.update_chunks=4" "1:gauss.update_chunks=16"
                     "1:gauss.update_chunks=4 gauss.lookahead=0" "1:gauss.update_chunks=3 gauss.pivots=host"
                     "1:gauss.update_chunks=2 gauss.update_priority=same gauss.side_priority=same"
              -- run.workload=gauss run.backend=cuda run.seed=3 ${args})
    set_tests_properties(gauss_gpu_update_chunks_${what} PROPERTIES LABELS "gpu" TIMEOUT 300)
    add_test(NAME gauss_gpu_trace_chunks_${what}
      COMMAND ${GAUSS_DRIVER} trace --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
              --bin ${HY_BIN} --workdir ${HY_TEST_OUT}/gauss_gpu_trace_chunks_${what} --ranks 1 --tol ${tol}
              --flops --chunks 4 -- run.workload=gauss run.backend=cuda run.seed=3 ${args} gauss.update_chunks=4)
    set_tests_properties(gauss_gpu_trace_chunks_${what} PROPERTIES LABELS "gpu" TIMEOUT 300)
  endforeach()
  # gauss.lookahead_low = tf32 on the device (the lookahead GEMM by cublasGemmEx's TF32 compute
  # type on the FP32 data) against the default 16-bit lookahead GEMM: step-0 residuals within
  # 2x, x within 1e-9, both without the fallback
  add_test(NAME gauss_gpu_hplmxp_lookahead_tf32
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_hplmxp_lookahead_tf32 --ratio 2
            --runs "1:gauss.lookahead_low=low" "1:gauss.lookahead_low=tf32" --
            run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
            gauss.refine=gmres gauss.n=3001 gauss.nb=256 run.seed=9)
  set_tests_properties(gauss_gpu_hplmxp_lookahead_tf32 PROPERTIES LABELS "gpu" TIMEOUT 300)
  add_test(NAME gauss_gpu_lookahead_hplmxp_fp16
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_lookahead_hplmxp_fp16
            --runs "1:gauss.lookahead=0 gauss.pivots=host" "1:gauss.lookahead=1 gauss.pivots=device" --
            run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
            gauss.refine=gmres gauss.n=3001 gauss.nb=256 run.seed=9)
  set_tests_properties(gauss_gpu_lookahead_hplmxp_fp16 PROPERTIES LABELS "gpu" TIMEOUT 300)
  # gauss.panel = fused on the device (cooperative base-block kernel, one grid barrier per
  # column, rows in shared memory): FP32 at n = 3001 against the host's vendor panel (3e-3, as
  # the recursive panel), FP64 at n = 8192 (11 thread blocks of 745 rows in the first panel's
  # base blocks) against the device's vendor panel (1e-10), device and host pivots, lookahead 0
  # and 1, base blocks of 8, gauss.panel_rows (rows per thread block: as many as shared memory
  # holds - FP32 3001 rows in 2 blocks, FP64 as the default - and 300 / 200: 11 / 41 blocks);
  # HPL-MxP FP16 fused against vendor (same rounding: step-0 residuals within 4x, x within 1e-9)
  add_test(NAME gauss_gpu_panel_fused_single
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_panel_fused_single --tol 3e-3
            --runs "1:run.backend=host gauss.panel=vendor" "1:run.backend=cuda gauss.panel=fused"
                   "1:run.backend=cuda gauss.panel=fused gauss.pivots=host gauss.lookahead=0"
                   "1:run.backend=cuda gauss.panel=fused gauss.panel_rows=65536"
                   "1:run.backend=cuda gauss.panel=fused gauss.panel_rows=300"
            -- run.workload=gauss gauss.precision=single gauss.n=3001 gauss.nb=256 run.seed=3)
  set_tests_properties(gauss_gpu_panel_fused_single PROPERTIES LABELS "gpu" TIMEOUT 300)
  add_test(NAME gauss_gpu_panel_fused_double
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_panel_fused_double --tol 1e-10
            --runs "1:gauss.panel=vendor" "1:gauss.panel=fused" "1:gauss.panel=fused gauss.pivots=host"
                   "1:gauss.panel=fused gauss.lookahead=0 gauss.panel_nb=8"
                   "1:gauss.panel=fused gauss.panel_vendor_rows=4000" "1:gauss.panel=fused gauss.panel_vendor_short=4000"
                   "1:gauss.panel=fused gauss.panel_rows=65536" "1:gauss.panel=fused gauss.panel_rows=200"
            -- run.workload=gauss run.backend=cuda gauss.n=8192 gauss.nb=512 run.seed=3)
  set_tests_properties(gauss_gpu_panel_fused_double PROPERTIES LABELS "gpu" TIMEOUT 300)
  # gauss.panel = auto at n = 16384 (fused from there, nb 512): the panels of at most n / 2 rows
  # (the default bound 16384, capped at n / 2) by the vendor's getrf, the count printed; 0 none
  hy_case(NAME gauss_gpu_panel_vendor_short_auto RANKS 1 LABELS gpu JSON TIMEOUT 120 EXPECT ${GAUSS_PASS}
    "^gauss: panels \\(last factorization\\): 16 of 32 by the vendor's getrf \\(at most gauss.panel_vendor_short = 8192 rows\\), the rest by panel fused"
    ARGS run.workload=gauss run.backend=cuda gauss.n=16384)
  hy_case(NAME gauss_gpu_panel_vendor_short_none RANKS 1 LABELS gpu TIMEOUT 120 EXPECT ${GAUSS_PASS}
    REJECT "^gauss: panels \\(last factorization\\)"
    ARGS run.workload=gauss run.backend=cuda gauss.n=16384 gauss.panel_vendor_short=0)
  # gauss.panel_sync = flags (the default: each candidate's key its own flag, polled) against grid
  # (a grid barrier per column): the same pivots and factors, so x bit for bit (--tol 0), FP64
  # and FP32, 11 blocks (the default rows) and 41 (panel_rows = 200: lanes polling 2 blocks each
  # from 33); and the base block's kernels (gauss.panel_kernel = shared, registers: 16 blocks of
  # 512 rows; the default auto takes registers here) bit for bit the same
  foreach(prec double single)
    add_test(NAME gauss_gpu_panel_sync_${prec}
      COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_gpu_panel_sync_${prec} --tol 0
              --runs "1:gauss.panel_sync=grid" "1:gauss.panel_sync=flags" "1:"
                     "1:gauss.panel_rows=200 gauss.panel_sync=grid" "1:gauss.panel_rows=200"
                     "1:gauss.panel_kernel=shared" "1:gauss.panel_kernel=registers"
              --
              run.workload=gauss run.backend=cuda gauss.panel=fused gauss.precision=${prec} gauss.n=8192
              gauss.nb=512 run.seed=4)
    set_tests_properties(gauss_gpu_panel_sync_${prec} PROPERTIES LABELS "gpu" TIMEOUT 300)
  endforeach()
  add_test(NAME gauss_gpu_panel_fused_hplmxp_fp16
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_gpu_panel_fused_hplmxp_fp16
            --runs "1:gauss.panel=vendor" "1:gauss.panel=fused" --
            run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16
            gauss.refine=gmres gauss.n=8192 gauss.nb=512 run.seed=9)
  set_tests_properties(gauss_gpu_panel_fused_hplmxp_fp16 PROPERTIES LABELS "gpu" TIMEOUT 300)
  # a sweep on the device: every line parsed and recorded, one combination alone the same
  add_test(NAME gauss_gpu_sweep COMMAND ${GAUSS_SWEEP} --ranks 1 --workdir ${HY_TEST_OUT}/gauss_gpu_sweep
    --n 1000,3000 --nb 128,256 --grid 1x1 --single 3 -- run.workload=gauss run.backend=cuda run.seed=5)
  set_tests_properties(gauss_gpu_sweep PROPERTIES LABELS "gpu" TIMEOUT 300)
  hy_case(NAME gauss_gpu_hplmxp_fp16_2gpu RANKS 2 LABELS gpu JSON TIMEOUT 300
    EXPECT ${GAUSS_PASS} "backend cuda" "^hpl-mxp: low fp16"
    REJECT "fallback" "falling back"
    ARGS run.workload=gauss run.backend=cuda gauss.matrix=hplmxp gauss.precision=mixed
         gauss.low=fp16 gauss.refine=gmres gauss.n=8192 gauss.grid=2x1)
endif()

# ---- tests that bite (issue 24) ----
# The host gauss kernels and transport copies against references written in the test (an
# unblocked LU with partial pivoting, loops, exact data moves): tests/gauss/test_gauss_host.c.
add_executable(test_gauss_host ${CMAKE_CURRENT_LIST_DIR}/test_gauss_host.c)
target_link_libraries(test_gauss_host PRIVATE hybrid_core)
add_test(NAME gauss_kernels_host_unit COMMAND ${HY_RUNCASE} --exit 0
  --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAILED" -- $<TARGET_FILE:test_gauss_host>)
set_tests_properties(gauss_kernels_host_unit PROPERTIES LABELS unit TIMEOUT 30)

# Pivoting decides the answer: a permuted triangle (one candidate row per step), a negative
# largest entry among tiny positive ones, swaps at known steps; x against LAPACK (numpy) to
# 1e-10, stepwise at 1/2/3 ranks, blocked (nb 8: swaps within and across panels and process
# rows) on 1x1, 2x1, 3x1, 1x2 (tests/gauss/pivot_check.py)
foreach(spec "stepwise:1:auto" "stepwise:2:auto" "stepwise:3:auto" "blocked:1:1x1" "blocked:2:2x1"
             "blocked:3:3x1" "blocked:2:1x2")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 alg)
  list(GET sp 1 np)
  list(GET sp 2 grid)
  set(name gauss_pivot_${alg}_np${np})
  if(NOT grid STREQUAL "auto")
    set(name gauss_pivot_${alg}_${grid})
  endif()
  add_test(NAME ${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/pivot_check.py --mpiexec ${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --ranks ${np} --bin ${HY_BIN} --workdir ${HY_TEST_OUT}/${name}
            -- run.backend=host gauss.algorithm=${alg} gauss.grid=${grid} gauss.nb=8)
  set(lab unit)
  if(np GREATER 1)
    set(lab mpi)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${lab}" TIMEOUT 120 PROCESSORS ${np})
endforeach()

# A wrong solution fed to the verdict ([debug] perturb = 1e-3 scales x after the solve): FAILED,
# exit 4, and the figure that decided is HPL's scaled residual, parsed from the residual line,
# the verdict and the record (>= 16), while the unscaled ||Ax - b||_inf stays below 16 (so a
# verdict on the unscaled residual would pass)
foreach(spec "blocked:1" "blocked:3" "stepwise:2" "naive:2")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 alg)
  list(GET sp 1 np)
  hy_case(NAME gauss_perturb_${alg}_np${np} RANKS ${np} EXIT 4 JSON
    EXPECT "^\\[debug\\] perturb = 0\\.001: x scaled by 1 \\+ perturb before the check"
           "^FAILED: gauss ${alg} double n=300: HPL scaled residual [0-9.e+]+ >= 16$"
    REJECT "^PASSED"
    RUNCASE --expect-num "16::^\\|\\|Ax-b\\|\\|_oo/\\(eps\\*\\(\\|\\|A\\|\\|_oo\\*\\|\\|x\\|\\|_oo\\+\\|\\|b\\|\\|_oo\\)\\*N\\) = ([0-9.]+) \\.+ FAILED$"
            --expect-num "16::^FAILED: .*HPL scaled residual ([0-9.e+]+) >= 16$"
            --expect-num ":16:^\\|\\|Ax-b\\|\\|_oo = ([0-9.e+-]+),"
            --json-num validation.value=16: --json-field validation.passed=false
            --json-field validation.threshold=16
    ARGS run.workload=gauss run.backend=host gauss.algorithm=${alg} gauss.matrix=diagdom gauss.n=300
         debug.perturb=1e-3)
endforeach()

# One rank fails alone inside the factor stage (the longest; [debug] fail_rank + fail_stage =
# factor, hy_debug_point half-way through the elimination / blocked LU): the job ends within
# 10 s with that rank's message and the code (MPICH's mpiexec returns MPI_Abort's code)
if(HY_MPIEXEC_VERSION MATCHES "HYDRA")
  set(GAUSS_ABORT5 5)
  set(GAUSS_ABORT3 3)
else()
  set(GAUSS_ABORT5 nonzero)
  set(GAUSS_ABORT3 nonzero)
endif()
foreach(np 2 3)
  math(EXPR last "${np} - 1")
  hy_case(NAME gauss_fail_factor_blocked_np${np} RANKS ${np} EXIT ${GAUSS_ABORT5} TIMEOUT 30
    EXPECT "hybrid: rank ${last} on [^ :]+: injected failure \\(\\[debug\\] fail_rank = ${last}, fail_stage = factor\\)"
    REJECT "^PASSED" "^FAILED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=gauss run.backend=host gauss.algorithm=blocked gauss.n=600 gauss.nb=16
         debug.fail_rank=${last} debug.fail_stage=factor)
  hy_case(NAME gauss_fail_factor_stepwise_np${np} RANKS ${np} EXIT ${GAUSS_ABORT3} TIMEOUT 30
    EXPECT "hybrid: rank 0 on [^ :]+: injected failure \\(\\[debug\\] fail_rank = 0, fail_stage = factor\\)"
    REJECT "^PASSED" "^FAILED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=gauss run.backend=host gauss.algorithm=stepwise gauss.n=120
         debug.fail_rank=0 debug.fail_stage=factor debug.fail_code=3)
endforeach()

# HPL-MxP on the host: matrix = hplmxp (diagonally dominant as HPL-MxP's generator), the blocked
# LU in FP32 with its trailing GEMMs' inputs rounded to low (the host emulates the rounding,
# FP32 sums), GMRES-IR in FP64 to HPL's threshold without the FP64 fallback.  The first residual
# (of the low-precision LU's x) of fp32 is below 4e6; the rounded formats' stand out from fp32's
# by a ratio (gauss_hplmxp_rounding: fp16 / tf32 >= 1.4x, bf16 >= 4x fp32's at the same grid), so
# skipping the rounding fails them; a fixed lower bound (4e6) held for the reference BLAS only
# (OpenBLAS's FP32 GEMM rounds less: fp16 3.0e6, fp32 1.8e6)
foreach(spec "fp32:1:1x1::4e6" "fp16:1:1x1::" "bf16:2:2x1::" "tf32:3:1x3::")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 low)
  list(GET sp 1 np)
  list(GET sp 2 grid)
  list(GET sp 3 lo)
  list(GET sp 4 hi)
  hy_case(NAME gauss_hplmxp_${low}_${grid} RANKS ${np} JSON
    EXPECT ${GAUSS_PASS} "^hpl-mxp: low ${low}, matrix hplmxp: [0-9.e+-]+ Gflops as HPL-MxP reports it"
    REJECT "fallback" "falling back"
    RUNCASE --expect-num "${lo}:${hi}:^mixed: GMRES-IR step 0: scaled residual ([0-9.e+]+)"
            --json-field metrics.fp64_fallback=0 --json-field metrics.low=${low}
            --json-num metrics.hplmxp_gflops=0: --json-num validation.value=0:16
    ARGS run.workload=gauss run.backend=host gauss.matrix=hplmxp gauss.precision=mixed
         gauss.low=${low} gauss.grid=${grid} gauss.refine=gmres gauss.n=400 gauss.nb=32)
endforeach()
add_test(NAME gauss_hplmxp_rounding
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/hplmxp_rounding.py ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} ${HY_BIN} ${HY_TEST_OUT}/gauss_hplmxp_rounding ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS})
set_tests_properties(gauss_hplmxp_rounding PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 3)
hy_case(NAME gauss_bad_low RANKS 1 EXIT 1
  EXPECT "key 'gauss.low' = fp16 rounds the blocked LU's FP32 GEMM inputs: it needs algorithm = blocked and precision = single or mixed"
  ARGS run.workload=gauss gauss.algorithm=stepwise gauss.precision=mixed gauss.low=fp16)

# HPL.dat-style sweeps (gauss.n / nb / grid lists): one run factors every combination in HPL's
# order (grid, n, nb); tests/gauss/sweep_check.py parses every HPL line of the summary and of
# each combination's own block (N NB P Q as asked, Gflops from Time, PASSED exactly when the
# parsed residual < 16), HPL's closing count, the record's "sweep" list field by field and its
# counts and validation, and runs one combination alone: the same residual and line to the
# printed digits and the old single-run record fields.  1, 2 and 3 ranks, n not a multiple of nb
foreach(spec "1|97,130|16,32|1x1|3" "2|97,130|16|1x2,2x1|2" "3|101|8,16|1x3,auto,3x1|5")
  string(REPLACE "|" ";" sp "${spec}")
  list(GET sp 0 np)
  list(GET sp 1 ns)
  list(GET sp 2 nbs)
  list(GET sp 3 grids)
  list(GET sp 4 one)
  set(name gauss_sweep_np${np})
  add_test(NAME ${name} COMMAND ${GAUSS_SWEEP} --ranks ${np} --workdir ${HY_TEST_OUT}/${name}
    --n ${ns} --nb ${nbs} --grid ${grids} --single ${one} --
    run.workload=gauss run.backend=host gauss.algorithm=blocked run.seed=5)
  set_tests_properties(${name} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS ${np})
endforeach()
# every line of a sweep fails ([debug] perturb): each residual line FAILED, exit 4, the
# closing count and record say so, the verdict names the worst residual
add_test(NAME gauss_sweep_perturb_np2 COMMAND ${GAUSS_SWEEP} --ranks 2 --exit 4
  --workdir ${HY_TEST_OUT}/gauss_sweep_perturb_np2 --n 150,200 --nb 16 --grid 1x2 --
  run.workload=gauss run.backend=host gauss.matrix=diagdom debug.perturb=1e-3)
set_tests_properties(gauss_sweep_perturb_np2 PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2
  PASS_REGULAR_EXPRESSION "FAILED: gauss sweep double: 0 of 2 line\\(s\\) passed, worst HPL scaled residual [0-9.e+]+ >= 16\n.*sweep_check: 2 line\\(s\\), ok")
# a list's bad element is named; a sweep refuses what only a single system can do
foreach(spec
    "grid_elem|2|gauss.grid=1x2,2x2|key 'gauss.grid' element 2 = 2x2 needs 4 ranks, but the run has 2"
    "nb_elem|1|gauss.nb=16,0x|key 'gauss.nb' = '16,0x': element 2 \\('0x'\\) is not an integer; allowed: 1 to 64 comma-separated integers, each in \\[0, 65536\\]"
    "n_empty|1|gauss.n=100,,200|key 'gauss.n' = '100,,200': element 2 is empty"
    "output|1|gauss.n=64,96 output.solution=x.mtx|key 'output.solution' = x.mtx: one file, but the sweep \\(gauss.n / nb / grid lists\\) solves 2 systems"
    "file|1|gauss.n=64,96 gauss.matrix=file gauss.file=x.mtx|key 'gauss.n' = 64,96: a list of orders needs a generated matrix"
    "illcond|1|gauss.n=64,4000 gauss.matrix=illcond|key 'gauss.n' = 4000: matrix = illcond")
  string(REPLACE "|" ";" sp "${spec}")
  list(GET sp 0 what)
  list(GET sp 1 np)
  list(GET sp 2 args)
  list(GET sp 3 msg)
  separate_arguments(args)
  hy_case(NAME gauss_sweep_bad_${what} RANKS ${np} EXIT 1 TIMEOUT 30 EXPECT "${msg}" REJECT "^PASSED"
    ARGS run.workload=gauss run.backend=host ${args})
endforeach()

# HPL-MxP's per-step rounding (the L panel and U block row rounded once, to_low, read by every
# trailing GEMM of the step): the same system at 1 rank and on the 2x1 and 1x2 grids, host
# emulation, FP16 and BF16: step-0 residual within 2x, x within 1e-9, the rate line parsed
foreach(low fp16 bf16)
  foreach(grid 2x1 1x2)
    add_test(NAME gauss_hplmxp_compare_${low}_${grid}
      COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
              --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_hplmxp_compare_${low}_${grid} --ratio 2
              --runs "1:gauss.grid=1x1" "2:gauss.grid=${grid}" --
              run.workload=gauss run.backend=host gauss.matrix=hplmxp gauss.precision=mixed
              gauss.low=${low} gauss.refine=gmres gauss.n=300 gauss.nb=32 run.seed=9)
    set_tests_properties(gauss_hplmxp_compare_${low}_${grid} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
  endforeach()
endforeach()
# gauss.lookahead_low = tf32 (HPL-MxP's lookahead GEMM on the FP32 L panel and U columns in TF32,
# no 16-bit copy of those U columns): against the default (every GEMM on the 16-bit copies),
# FP16 and BF16, 1 rank, the 1x2 and the 2x1 grid (two process rows: the U block row is solved
# before the lookahead, the rest of its columns rounded with the rest of the update): both
# PASSED without the fallback, the step-0 residual within 2x (the same LU but for the lookahead
# columns' rounding), x within 1e-9
foreach(spec "fp16:1:1x1" "bf16:2:1x2" "fp16x:2:2x1")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 low)
  list(GET sp 1 np)
  list(GET sp 2 grid)
  string(REPLACE "x" "" lowf "${low}")
  if(NOT grid STREQUAL "2x1")
    set(low ${lowf})
  else()
    set(low ${lowf}_2x1)
  endif()
  add_test(NAME gauss_hplmxp_lookahead_tf32_${low}
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_hplmxp_lookahead_tf32_${low} --ratio 2
            --runs "${np}:gauss.lookahead_low=low" "${np}:gauss.lookahead_low=tf32" --
            run.workload=gauss run.backend=host gauss.matrix=hplmxp gauss.precision=mixed gauss.grid=${grid}
            gauss.low=${lowf} gauss.refine=gmres gauss.n=300 gauss.nb=32 run.seed=9)
  set_tests_properties(gauss_hplmxp_lookahead_tf32_${low} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS ${np})
endforeach()
# gauss.pivoting = none (HPL-MxP's FP32 LU without row exchanges: getrf_rec with no-pivot base
# blocks, no row swaps; here the host's loop): against partial pivoting on the HPL-MxP matrix
# (diagonally dominant: partial pivoting exchanges nothing there, so the same LU up to the
# panels' blocking): both PASSED without the fallback, step-0 residuals within 2x, x within
# 1e-9, the rate line parsed; 1 rank (device pivots, and host pivots with lookahead 0 and update
# chunks), the gathered (2x1) and the in-place (1x2) panel of two ranks, FP16 and BF16
foreach(spec "fp16:1:gauss.grid=1x1" "bf16:1:gauss.grid=1x1 gauss.panel_nb=7"
             "fp16_hostpiv:1:gauss.pivots=host gauss.lookahead=0 gauss.update_chunks=2"
             "fp16_2x1:2:gauss.grid=2x1" "fp16_1x2:2:gauss.grid=1x2")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 what)
  list(GET sp 1 np)
  list(GET sp 2 args)
  string(REGEX REPLACE "_.*" "" low "${what}")
  add_test(NAME gauss_hplmxp_nopiv_${what}
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/hplmxp_compare.py --mpiexec=${MPIEXEC_EXECUTABLE}
            --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_hplmxp_nopiv_${what} --ratio 2
            --runs "1:gauss.pivoting=partial" "${np}:gauss.pivoting=none ${args}" --
            run.workload=gauss run.backend=host gauss.matrix=hplmxp gauss.precision=mixed
            gauss.low=${low} gauss.refine=gmres gauss.n=301 gauss.nb=32 run.seed=9)
  set_tests_properties(gauss_hplmxp_nopiv_${what} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS ${np})
endforeach()
# pivoting = none really exchanges no rows: the zero-diagonal matrix (partial pivoting solves it
# in FP32 without the fallback) stops the FP32 LU at column 0, and mixed falls back to FP64
# (which pivots) and passes; 1 rank and the 2x1 grid
foreach(np 1 2)
  hy_case(NAME gauss_nopiv_zerodiag_${np} RANKS ${np} EXPECT ${GAUSS_PASS}
    "the FP32 factorization failed \\(matrix is exactly singular at column 0" "falling back to FP64"
    ARGS run.workload=gauss run.backend=host gauss.matrix=file gauss.file=${GAUSS_T}/zerodiag.mtx
         gauss.rhs=ones gauss.nb=4 gauss.precision=mixed gauss.pivoting=none gauss.grid=${np}x1)
  hy_case(NAME gauss_partialpiv_zerodiag_${np} RANKS ${np} EXPECT ${GAUSS_PASS} REJECT "fallback" "falling back"
    ARGS run.workload=gauss run.backend=host gauss.matrix=file gauss.file=${GAUSS_T}/zerodiag.mtx
         gauss.rhs=ones gauss.nb=4 gauss.precision=mixed gauss.grid=${np}x1)
endforeach()
hy_case(NAME gauss_bad_panel_sms RANKS 1 EXIT 1
  EXPECT "key 'gauss.panel_sms' = '-1' is out of range; allowed: an integer in \\[0, 1024\\]"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_sms=-1)
hy_case(NAME gauss_bad_pivoting RANKS 1 EXIT 1
  EXPECT "key 'gauss.pivoting' = none factors the blocked LU's FP32 factors without row exchanges: it needs algorithm = blocked and precision = single or mixed"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.pivoting=none)
hy_case(NAME gauss_bad_pivoting_value RANKS 1 EXIT 1 EXPECT "gauss.pivoting" "partial.none"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.precision=mixed gauss.pivoting=full)
# gauss.profile: the split of the factor time printed, each part parsed (>= 0), the printed sum
# theirs, and the sum within [0.5, 1.05] x the factor time of the run (gauss_driver.py profile)
foreach(spec "1:1x1" "2:1x2" "2:2x1")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 np)
  list(GET sp 1 grid)
  add_test(NAME gauss_profile_${grid}
    COMMAND ${GAUSS_DRIVER} profile --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --bin ${HY_BIN} --workdir ${HY_TEST_OUT}/gauss_profile_${grid} --ranks ${np} --
            run.workload=gauss run.backend=host gauss.n=600 gauss.nb=32 gauss.grid=${grid})
  set_tests_properties(gauss_profile_${grid} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS ${np})
endforeach()

# The CUDA backend's panel kernels on the host (no GPU needed): swap_blk_k, the fused base
# block panel_base_k and the no-pivot base block (nopiv_top_k + nopiv_rows_k), a step's planned
# row permutation (swap_plan_k + swap_apply_k: slots by row, reads by source row), their source cut from kernels/cuda and rewritten for a thread-per-CUDA-
# thread emulator (tests/gauss/emu: block barriers, the cooperative grid barrier, warp shuffles and reductions),
# against the swaps done in order and an unblocked getf2 (pivots identical, factors to 1e-12 in
# FP64, several thread blocks, ties; the base block with both gauss.panel_sync ways, the flags'
# scratch kept from launch to launch and checked to be left clear); skipped without a C++20 compiler (tests/gauss/kernel_emu.py)
find_program(HY_EMU_CXX NAMES c++ g++ clang++)
if(HY_EMU_CXX)
  add_test(NAME gauss_cuda_kernels_emu
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/kernel_emu.py --src ${PROJECT_SOURCE_DIR} --cxx ${HY_EMU_CXX}
            --workdir ${HY_TEST_OUT}/gauss_cuda_kernels_emu --reps 4)
  set_tests_properties(gauss_cuda_kernels_emu PROPERTIES LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()

# gauss.trace (time marks on both streams; on the host one stream, in order): the parts of the
# line parsed, >= 0, summing to the printed factor time, within [0.5, 1.05] x the run's factor
# time; the quarters' busy + waiting = factor - first panel, their panels the side stream's;
# the waits hold the panels (one stream); the record's trace_* = the printed; x identical to
# the run without it; one rank: the GEMM rates x times = HPL's trailing-update count within 2%
# (n that nb does not divide, lookahead 0 and 1, HPL-MxP FP16's low copies); 2 ranks: 2x1, 1x2
foreach(spec "1x1|1|gauss.n=601 gauss.nb=48|--flops"
             "1x1_la0|1|gauss.n=601 gauss.nb=48 gauss.lookahead=0|--flops"
             "hplmxp|1|gauss.n=601 gauss.nb=48 gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16 gauss.refine=gmres|--flops"
             "hplmxp_nopiv|1|gauss.n=601 gauss.nb=48 gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16 gauss.refine=gmres gauss.pivoting=none|--flops"
             "2x1|2|gauss.n=400 gauss.nb=32 gauss.grid=2x1|" "1x2|2|gauss.n=400 gauss.nb=32 gauss.grid=1x2|"
             # gauss.update_chunks: the aux stream's line (on the host within the swaps + gemm);
             # two process rows take no chunks (no line)
             "1x1_chunks4|1|gauss.n=601 gauss.nb=48 gauss.update_chunks=4|--flops --chunks 4"
             "1x1_la0_chunks3|1|gauss.n=601 gauss.nb=48 gauss.lookahead=0 gauss.update_chunks=3|--flops --chunks 3"
             "hplmxp_chunks2|1|gauss.n=601 gauss.nb=48 gauss.matrix=hplmxp gauss.precision=mixed gauss.low=fp16 gauss.refine=gmres gauss.update_chunks=2|--flops --chunks 2"
             "1x2_chunks2|2|gauss.n=400 gauss.nb=32 gauss.grid=1x2 gauss.update_chunks=2|--chunks 2"
             "2x1_chunks4|2|gauss.n=400 gauss.nb=32 gauss.grid=2x1 gauss.update_chunks=4|")
  string(REPLACE "|" ";" sp "${spec}")
  list(GET sp 0 what)
  list(GET sp 1 np)
  list(GET sp 2 args)
  list(GET sp 3 fl)
  separate_arguments(args)
  separate_arguments(fl)
  add_test(NAME gauss_trace_${what}
    COMMAND ${GAUSS_DRIVER} trace --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --bin ${HY_BIN} --workdir ${HY_TEST_OUT}/gauss_trace_${what} --ranks ${np} --tol 0
            --sequential ${fl} -- run.workload=gauss run.backend=host run.seed=3 ${args})
  set(lab unit)
  if(np GREATER 1)
    set(lab mpi)
  endif()
  set_tests_properties(gauss_trace_${what} PROPERTIES LABELS "${lab}" TIMEOUT 120 PROCESSORS ${np})
endforeach()

# gauss.panel = recursive (column halves: TRSM + GEMM between, LAPACK getrf on blocks of
# panel_nb): x identical (1e-12) to the vendor panel's, on the in-place (1x1, 1x2) and the
# gathered (2x1) panel, base blocks that do not divide nb; a singular matrix names the same column
add_test(NAME gauss_panel_recursive_ranks
  COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
          --workdir ${HY_TEST_OUT}/gauss_panel_recursive_ranks --tol 1e-12
          --runs "1:gauss.grid=1x1 gauss.panel=vendor" "1:gauss.grid=1x1 gauss.panel_nb=5"
                 "2:gauss.grid=2x1 gauss.panel_nb=16" "2:gauss.grid=1x2 gauss.panel_nb=3"
          -- run.workload=gauss run.backend=host gauss.panel=recursive gauss.n=301 gauss.nb=48 run.seed=13)
set_tests_properties(gauss_panel_recursive_ranks PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
# gauss.lookahead = 0 | 1 and gauss.pivots = host | device (1 rank: pivots left on the device,
# swaps by one planned permutation per step, the singular check after the factorization): x
# within 1e-12 of lookahead 0 with host pivots, vendor and recursive panels, n that nb does not
# divide, FP64 and HPL-MxP FP16; the 2-rank grids with lookahead 0; the padded gauss.lda = auto
# (301 rows: ld 320) against the exact default; a singular matrix names the same column with device
# pivots, either lookahead, every panel
foreach(spec "double:random:" "mixed:hplmxp:gauss.low=fp16 gauss.refine=gmres")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 prec)
  list(GET sp 1 mat)
  list(GET sp 2 extra)
  separate_arguments(extra)
  add_test(NAME gauss_lookahead_pivots_${prec}
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_lookahead_pivots_${prec} --tol 1e-12
            --runs "1:gauss.lookahead=0 gauss.pivots=host" "1:gauss.lookahead=1 gauss.pivots=device"
                   "1:gauss.lookahead=0 gauss.pivots=device" "1:gauss.lookahead=1 gauss.pivots=host"
                   "1:gauss.lookahead=1 gauss.pivots=device gauss.panel=recursive gauss.panel_nb=7"
                   "2:gauss.grid=2x1 gauss.lookahead=0" "2:gauss.grid=1x2 gauss.lookahead=0"
                   "1:gauss.lda=auto" "2:gauss.grid=2x1 gauss.lda=auto"
            -- run.workload=gauss run.backend=host gauss.precision=${prec} gauss.matrix=${mat} ${extra}
               gauss.n=301 gauss.nb=48 run.seed=17)
  set_tests_properties(gauss_lookahead_pivots_${prec} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
endforeach()
# gauss.update_chunks (the trailing update beyond the lookahead panel in chunks; on a GPU each
# chunk's swaps + TRSM on an aux stream beside the previous chunk's GEMM; the host runs them in
# order): x within 1e-12 of one chunk (the GEMMs' and TRSMs' column splits change only
# rounding) with 2, 4 and 16 chunks (a multiple of nb wide at fixed columns: fewer late in the
# factorization), lookahead 0, host pivots, the recursive panel, the aux stream (and
# gauss.side_priority = same, the lookahead panel's stream) at the main stream's priority,
# n that nb does not divide, FP64 and HPL-MxP FP16 (the U block row rounded chunk by chunk);
# 1x2 and 1x3 grids (each rank's columns in chunks) and 2x1 (two process rows: no chunks)
# (HPL-MxP: GMRES-IR would hide a wrong LU in x; every run also takes the default's one
# refinement step of 2 GMRES iterations: a chunk's U left unrounded takes 4)
foreach(spec "double:random::^PASSED" "mixed:hplmxp:gauss.low=fp16 gauss.refine=gmres:1 refinement step\\(s\\), 2 GMRES iteration\\(s\\)")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 prec)
  list(GET sp 1 mat)
  list(GET sp 2 extra)
  list(GET sp 3 want)
  separate_arguments(extra)
  add_test(NAME gauss_update_chunks_${prec}
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_update_chunks_${prec} --tol 1e-12 --expect "${want}"
            --runs "1:gauss.update_chunks=1" "1:gauss.update_chunks=2" "1:gauss.update_chunks=4"
                   "1:gauss.update_chunks=16" "1:gauss.update_chunks=4 gauss.lookahead=0"
                   "1:gauss.update_chunks=3 gauss.pivots=host"
                   "1:gauss.update_chunks=4 gauss.panel=recursive gauss.panel_nb=7"
                   "1:gauss.update_chunks=4 gauss.update_priority=same"
                   "1:gauss.update_chunks=4 gauss.side_priority=same" "1:gauss.side_priority=same"
                   "2:gauss.grid=1x2 gauss.update_chunks=4" "2:gauss.grid=2x1 gauss.update_chunks=4"
                   "3:gauss.grid=1x3 gauss.update_chunks=2"
            -- run.workload=gauss run.backend=host gauss.precision=${prec} gauss.matrix=${mat} ${extra}
               gauss.n=301 gauss.nb=48 run.seed=17)
  set_tests_properties(gauss_update_chunks_${prec} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 3)
endforeach()
hy_case(NAME gauss_bad_update_chunks RANKS 1 EXIT 1
  EXPECT "key 'gauss.update_chunks' = '-1' is out of range; allowed: an integer in \\[0, 16\\]"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.update_chunks=-1)
hy_case(NAME gauss_bad_update_chunks_big RANKS 1 EXIT 1
  EXPECT "key 'gauss.update_chunks' = '17' is out of range; allowed: an integer in \\[0, 16\\]"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.update_chunks=17)
hy_case(NAME gauss_bad_update_priority RANKS 1 EXIT 1 EXPECT "gauss.update_priority" "high.same"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.update_priority=low)
hy_case(NAME gauss_bad_side_priority RANKS 1 EXIT 1 EXPECT "gauss.side_priority" "high.same"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.side_priority=low)
hy_case(NAME gauss_bad_panel_sync RANKS 1 EXIT 1 EXPECT "gauss.panel_sync" "flags.grid"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_sync=barrier)
# gauss.panel_sync is recorded (the host has one way: x as without it)
hy_case(NAME gauss_panel_sync_record RANKS 1 JSON EXPECT ${GAUSS_PASS}
  RUNCASE --json-field metrics.panel_sync=grid
  ARGS run.workload=gauss run.backend=host gauss.panel=fused gauss.n=300 gauss.nb=64 gauss.panel_sync=grid)
hy_case(NAME gauss_bad_panel_kernel RANKS 1 EXIT 1 EXPECT "gauss.panel_kernel" "auto.registers.shared"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_kernel=smem)
# gauss.panel_kernel = registers needs the flags and 512 rows a block (the key named, what else is allowed)
hy_case(NAME gauss_bad_panel_kernel_grid RANKS 1 EXIT 1
  EXPECT "gauss.panel_kernel.*needs gauss.panel_sync = flags and gauss.panel_rows = 0 \\(allowed otherwise: auto, shared\\)"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_kernel=registers gauss.panel_sync=grid)
hy_case(NAME gauss_bad_panel_kernel_rows RANKS 1 EXIT 1 EXPECT "gauss.panel_kernel.*needs gauss.panel_sync = flags and gauss.panel_rows = 0"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_kernel=registers gauss.panel_rows=200)
# gauss.panel_kernel is recorded (the host has one panel: x as without it)
hy_case(NAME gauss_panel_kernel_record RANKS 1 JSON EXPECT ${GAUSS_PASS}
  RUNCASE --json-field metrics.panel_kernel=registers
  ARGS run.workload=gauss run.backend=host gauss.panel=fused gauss.n=300 gauss.nb=64 gauss.panel_kernel=registers)
hy_case(NAME gauss_bad_panel_rows RANKS 1 EXIT 1
  EXPECT "key 'gauss.panel_rows' = '-5' is out of range; allowed: an integer in \\[0, 1048576\\]"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_rows=-5)
foreach(spec "0:vendor" "1:recursive" "1:fused")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 la)
  list(GET sp 1 panel)
  hy_case(NAME gauss_pivots_device_singular_la${la}_${panel} RANKS 1 EXIT 3
    EXPECT "singular at column 4 \\(0-based\\)" "FAILED: numerical"
    REJECT ${GAUSS_NONAN} "PASSED"
    ARGS run.workload=gauss run.backend=host gauss.matrix=file gauss.file=${GAUSS_T}/singular.mtx
         gauss.nb=3 gauss.pivots=device gauss.lookahead=${la} gauss.panel=${panel} gauss.panel_nb=1)
endforeach()
# gauss.panel = fused (recursive halves, base blocks of min(panel_nb, 32) columns by the
# backend's own one-launch LU: here the host's plain loop): x within 1e-12 of the vendor panel's,
# device and host pivots, the in-place (1x1, 1x2) and the gathered (2x1) panel, base blocks
# that do not divide nb
add_test(NAME gauss_panel_fused_ranks
  COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
          --workdir ${HY_TEST_OUT}/gauss_panel_fused_ranks --tol 1e-12
          --runs "1:gauss.grid=1x1 gauss.panel=vendor" "1:gauss.grid=1x1"
                 "1:gauss.grid=1x1 gauss.panel_nb=5 gauss.pivots=host gauss.lookahead=0"
                 "2:gauss.grid=2x1 gauss.panel_nb=16" "2:gauss.grid=1x2 gauss.panel_nb=3"
          -- run.workload=gauss run.backend=host gauss.panel=fused gauss.n=301 gauss.nb=48 run.seed=13)
set_tests_properties(gauss_panel_fused_ranks PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
# gauss.panel_vendor_rows: the panels taller than it by the vendor's getrf, the rest by the
# fused / recursive panel: 4 of the 7 panels of n = 301, nb = 48 have more than 150 rows (the
# count printed by every run), x within 1e-12 of the vendor panel's, device and host pivots,
# the in-place (1x1, 1x2) and the gathered (2x1) panel
add_test(NAME gauss_panel_vendor_rows
  COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
          --workdir ${HY_TEST_OUT}/gauss_panel_vendor_rows --tol 1e-12
          --expect "^gauss: panels \\(last factorization\\): 4 of 7 by the vendor's getrf \\(more than gauss.panel_vendor_rows = 150 rows\\)"
          --runs "1:gauss.panel=vendor" "1:gauss.panel=fused" "1:gauss.panel=fused gauss.pivots=host"
                 "1:gauss.panel=recursive gauss.panel_nb=5" "2:gauss.grid=2x1 gauss.panel=fused"
                 "2:gauss.grid=1x2 gauss.panel=fused"
          -- run.workload=gauss run.backend=host gauss.panel_vendor_rows=150 gauss.n=301 gauss.nb=48 run.seed=13)
set_tests_properties(gauss_panel_vendor_rows PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
# gauss.panel_vendor_short: the panels of at most that many rows (the last ones: 109, 61 and 13
# rows of n = 301, nb = 48) by the vendor's getrf, the rest by the fused / recursive panel, x
# within 1e-12 of the vendor panel's; with panel_vendor_rows as well both rules count
add_test(NAME gauss_panel_vendor_short
  COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
          --workdir ${HY_TEST_OUT}/gauss_panel_vendor_short --tol 1e-12
          --expect "^gauss: panels \\(last factorization\\): 3 of 7 by the vendor's getrf \\(at most gauss.panel_vendor_short = 150 rows\\), the rest by panel (vendor|fused|recursive)"
          --runs "1:gauss.panel=vendor" "1:gauss.panel=fused" "1:gauss.panel=fused gauss.pivots=host"
                 "1:gauss.panel=recursive gauss.panel_nb=5" "2:gauss.grid=2x1 gauss.panel=fused"
          -- run.workload=gauss run.backend=host gauss.panel_vendor_short=150 gauss.n=301 gauss.nb=48 run.seed=13)
set_tests_properties(gauss_panel_vendor_short PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
hy_case(NAME gauss_panel_vendor_both RANKS 1 EXPECT ${GAUSS_PASS}
  "^gauss: panels \\(last factorization\\): 5 of 7 by the vendor's getrf \\(more than gauss.panel_vendor_rows = 250 rows or at most gauss.panel_vendor_short = 150 rows\\), the rest by panel fused"
  ARGS run.workload=gauss run.backend=host gauss.panel=fused gauss.panel_vendor_rows=250 gauss.panel_vendor_short=150
       gauss.n=301 gauss.nb=48 run.seed=13)
hy_case(NAME gauss_bad_panel_vendor_short RANKS 1 EXIT 1
  EXPECT "key 'gauss.panel_vendor_short' = '-2' is out of range"
  ARGS run.workload=gauss run.backend=host gauss.n=64 gauss.panel_vendor_short=-2)
foreach(np 1 2)
  hy_case(NAME gauss_panel_recursive_singular_${np} RANKS ${np} EXIT 3
    EXPECT "singular at column 4 \\(0-based\\)" "FAILED: numerical"
    REJECT ${GAUSS_NONAN} "PASSED"
    ARGS run.workload=gauss run.backend=host gauss.matrix=file gauss.file=${GAUSS_T}/singular.mtx
         gauss.nb=4 gauss.panel=recursive gauss.panel_nb=1)
endforeach()
# gauss.repeat reuses the factors' and the solve's device buffers between runs (gauss_dpark):
# x of the last of 3 runs identical (1e-12) to a single run's, FP64 and mixed, 1 and 2 ranks;
# FP64 factors start from the copy of A made before the timer (blk_prepare), padded (lda = auto:
# the strided copy) or not
foreach(prec double mixed)
  add_test(NAME gauss_repeat_parked_${prec}
    COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
            --workdir ${HY_TEST_OUT}/gauss_repeat_parked_${prec} --tol 1e-12
            --runs "1:gauss.repeat=1" "1:gauss.repeat=3" "2:gauss.repeat=3 gauss.grid=2x1"
                   "1:gauss.repeat=3 gauss.lda=auto" "2:gauss.repeat=2 gauss.grid=1x2 gauss.lda=auto" --
            run.workload=gauss run.backend=host gauss.precision=${prec} gauss.n=203 gauss.nb=32 run.seed=21)
  set_tests_properties(gauss_repeat_parked_${prec} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2)
endforeach()
# the matrix generated by the rank's threads (rows split among them, each row's sum by one
# thread): ||A||_inf identical to the last bit for 1, 2 and 3 threads, x within 1e-10 (the
# BLAS's threads change rounding only), random and HPL-MxP (its diagonal is the row sums)
foreach(spec "random:1" "hplmxp:2")
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 mat)
  list(GET sp 1 np)
  add_test(NAME gauss_generate_threads_${mat}
    COMMAND ${GAUSS_DRIVER} threads --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --bin ${HY_BIN} --workdir ${HY_TEST_OUT}/gauss_generate_threads_${mat} --ranks ${np}
            --tol 1e-10 --threads 1 2 3 --
            run.workload=gauss run.backend=host gauss.matrix=${mat} gauss.n=1600 gauss.nb=64 run.seed=17)
  set_tests_properties(gauss_generate_threads_${mat} PROPERTIES LABELS "mpi" TIMEOUT 180 PROCESSORS ${np})
endforeach()

# ---- the small-n LU (gauss.small, app/gauss/gauss_small.c, kernels/cuda/gauss_small_cuda.cu) ----
# Where it cannot run, gauss.small = on is a configuration error naming what it needs (host: no
# small-n LU; more than one rank); auto on the host changes nothing (metric small_lu = 0)
hy_case(NAME gauss_small_on_host RANKS 1 EXIT 1
  EXPECT "gauss.small = on: the small-n LU needs a backend with the small-n LU for this n"
  ARGS run.workload=gauss run.backend=host gauss.small=on gauss.n=64)
hy_case(NAME gauss_small_on_ranks RANKS 2 EXIT 1
  EXPECT "gauss.small = on: the small-n LU needs one rank"
  ARGS run.workload=gauss run.backend=host gauss.small=on gauss.n=64)
hy_case(NAME gauss_small_on_mixed RANKS 1 EXIT 1
  EXPECT "gauss.small = on: the small-n LU needs precision = double"
  ARGS run.workload=gauss run.backend=host gauss.small=on gauss.precision=mixed gauss.n=64)
# coop names itself; gauss.trace (the blocked factor's time marks) keeps the blocked LU
hy_case(NAME gauss_small_coop_trace RANKS 1 EXIT 1
  EXPECT "gauss.small = coop: the small-n LU needs gauss.trace = false .*allowed: auto\\|on\\|off\\|coop"
  ARGS run.workload=gauss run.backend=host gauss.small=coop gauss.trace=true gauss.n=64)
hy_case(NAME gauss_small_auto_host RANKS 1 JSON EXPECT ${GAUSS_PASS} REJECT "small-n LU"
  RUNCASE --json-field metrics.small_lu=0
  ARGS run.workload=gauss run.backend=host gauss.n=200)
# the device functions both small-n LU kernels share (kernels/cuda/gauss_small_dev.cuh: the pivot
# search by shuffles, its tie order, the pivot's record, the register rotation) on the host
# under the CPU emulator (one warp) against sequential references, ties / NaNs / zeros / empty
# ranges (tests/gauss/small_dev_emu.py); skipped without a C++20 compiler
if(HY_EMU_CXX)
  add_test(NAME gauss_small_dev_emu
    COMMAND ${Python3_EXECUTABLE} ${GAUSS_T}/small_dev_emu.py --src ${PROJECT_SOURCE_DIR} --cxx ${HY_EMU_CXX}
            --workdir ${HY_TEST_OUT}/gauss_small_dev_emu)
  set_tests_properties(gauss_small_dev_emu PROPERTIES LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()
if(HYBRID_GPU_TESTS)
  # the kernels against LAPACK: pivots identical to dgetrf's (ties: the first row), the row
  # order, factors, min |u_jj|, x, HPL residual, info of a zero column; n = 1 .. 2048 around
  # the panel widths and the template bounds (tests/gauss/test_gauss_small_gpu.c)
  add_executable(test_gauss_small_gpu ${CMAKE_CURRENT_LIST_DIR}/test_gauss_small_gpu.c)
  target_link_libraries(test_gauss_small_gpu PRIVATE hybrid_core)
  add_test(NAME gauss_gpu_small_kernels COMMAND ${HY_RUNCASE} --exit 0 --timeout 100 --need-gpus 1
    --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAILED"
    --expect-num "0:16:n = 2047: pivots as dgetrf, factors [0-9.e+-]+, x [0-9.e+-]+, HPL scaled residual ([0-9.]+)"
    -- $<TARGET_FILE:test_gauss_small_gpu>)
  set_tests_properties(gauss_gpu_small_kernels PROPERTIES LABELS "gpu" TIMEOUT 120 SKIP_RETURN_CODE 77)
  # trsm_lunit against the host's BLAS TRSM (tests/gauss/test_gauss_trsm_gpu.c): FP64 through
  # L^-1 (linv_fp64: diagonal blocks of 32, levels, orders 32 does not divide), cuBLAS's TRSM,
  # FP32, the side stream's own buffers, B's other rows and columns untouched; prints the time
  # at m = 1024 (`ctest -R gauss_gpu_trsm -V`)
  add_executable(test_gauss_trsm_gpu ${CMAKE_CURRENT_LIST_DIR}/test_gauss_trsm_gpu.c)
  target_link_libraries(test_gauss_trsm_gpu PRIVATE hybrid_core CUDA::cublasLt)
  add_test(NAME gauss_gpu_trsm COMMAND ${HY_RUNCASE} --exit 0 --timeout 60 --need-gpus 1
    --expect "^PASSED: ([0-9]+) of \\1 checks passed" --reject "^FAILED"
    --expect "^trsm_lunit FP64 m = 1000, n = 1000: max"
    --expect "^trsm_lunit FP64 time, m = 1024: n = 1024 [0-9.]+ ms"
    -- $<TARGET_FILE:test_gauss_trsm_gpu>)
  set_tests_properties(gauss_gpu_trsm PROPERTIES LABELS "gpu" TIMEOUT 90 SKIP_RETURN_CODE 77)
  # the fused panel's two gauss.panel_sync ways timed at m = 1024 .. 16384 rows (nb = 1024 and one
  # base block of 32 columns, beside the vendor's getrf), both base block kernels (shared memory,
  # registers), one base block's phases by its clocks: the same pivots and factors bit for bit
  # (`ctest -R gauss_gpu_panel_time -V`; `jobs/gauss-gpu-bench.sh --only panel --n 65536` to 65536)
  add_test(NAME gauss_gpu_panel_time COMMAND ${HY_RUNCASE} --exit 0 --timeout 100 --need-gpus 1
    --expect "^panel FP64 m = 16384, n = 32 \\(one base block\\): flags [0-9.]+ ms"
    --expect "^panel FP64 m = 16384, n = 32 \\(one base block\\): .*, registers [0-9.]+ ms"
    --expect "^panel clocks m = 16384, n = 32, last block: [0-9.]+ us in the kernel"
    --expect "^panel FP64 m = 1024, n = 1024 .*; the same pivots and factors"
    --reject "^FAILED" --reject "DIFFERENT"
    -- $<TARGET_FILE:test_gauss_trsm_gpu> --panel 16384)
  set_tests_properties(gauss_gpu_panel_time PROPERTIES LABELS "gpu" TIMEOUT 130 SKIP_RETURN_CODE 77)
  # where the small-n LU's time goes (tests/gauss/test_gauss_small_time.c): coop, every panel
  # width of the steps LU, without PDL, with the shuffle pivot search, CTA 0 alone, timed beside
  # cuSOLVER getrf + getrs at n = 512, 1024, 2048 (printed: `ctest -R gauss_gpu_small_time -V`);
  # each variant's pivots identical to coop's and its factors within 1e-11 (CTA 0 alone: not)
  add_executable(test_gauss_small_time ${CMAKE_CURRENT_LIST_DIR}/test_gauss_small_time.c)
  target_link_libraries(test_gauss_small_time PRIVATE hybrid_core)
  add_test(NAME gauss_gpu_small_time COMMAND ${HY_RUNCASE} --exit 0 --timeout 60 --need-gpus 1
    --expect "^small-time n=1024 steps auto \\(w=8\\): factor"
    --expect "^small-time n=1024 steps shfl-red \\(w=8\\): digest [0-9a-f]{16} \\(x [0-9a-f]{16}\\)$"
    --expect "^PASSED: the small-n LU's widths and kinds agree" --reject "^FAILED"
    -- $<TARGET_FILE:test_gauss_small_time>)
  set_tests_properties(gauss_gpu_small_time PROPERTIES LABELS "gpu" TIMEOUT 90 SKIP_RETURN_CODE 77)
  # through the driver: the small path (gauss.small = on: exit 1 unless it runs) against the
  # host's blocked LU and the device's blocked LU (gauss.small = off), x within tol, every run
  # PASSED, at orders the panel widths do not divide
  foreach(n 1 2 31 33 1000 1024 2047)
    set(tol 1e-11)
    if(n GREATER 100)
      set(tol 1e-9)
    endif()
    add_test(NAME gauss_gpu_small_${n}
      COMMAND ${GAUSS_DRIVER} ranks --mpiexec=${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG} --bin ${HY_BIN}
              --workdir ${HY_TEST_OUT}/gauss_gpu_small_${n} --tol ${tol}
              --runs "1:run.backend=host" "1:run.backend=cuda gauss.small=on" "1:run.backend=cuda gauss.small=coop"
                     "1:run.backend=cuda gauss.small=off" --
              run.workload=gauss gauss.n=${n} run.seed=7)
    set_tests_properties(gauss_gpu_small_${n} PROPERTIES LABELS "gpu" TIMEOUT 60)
  endforeach()
  # on at n = 1024 with gauss.repeat = 3 (the parked buffers reused, A and b placed again before
  # each run's timer): the line, the metric, HPL's residual parsed < 16; the split of the run's
  # time (getrf_small, solve, outside them: means of the timed runs, so that the parts lie
  # inside the run, outside >= 0; a warm-up counted in makes it negative) and outside < 0.5 ms
  # (~0.02 expected: the phases' synchronisations; a gross cost between the kernels shows);
  # auto takes it up to the
  # backend's small_auto (1024 on CUDA: the steps LU won there on the H200 at 00:32) and not above
  hy_case(NAME gauss_gpu_small_repeat RANKS 1 LABELS gpu JSON TIMEOUT 60
    EXPECT ${GAUSS_PASS} "^gauss: small-n LU \\(gauss.small = on, n <= 2048 on this backend\\)"
           "^gauss: small-n LU, the run's [0-9.]+ ms \\(mean of 2\\): getrf_small "
    RUNCASE --json-field metrics.small_lu=1 --runs 1
            --expect-num "0:16:HPL scaled residual ([0-9.e+-]+) < 16"
            --json-num metrics.small_outside_ms=0:0.5 --json-num metrics.small_getrf_ms=0.01:100
            --json-num metrics.small_solve_ms=0.001:100
    ARGS run.workload=gauss run.backend=cuda gauss.small=on gauss.n=1024 gauss.repeat=3)
  # (alone: its time split must not see other GPU tests' contention)
  set_tests_properties(gauss_gpu_small_repeat PROPERTIES RUN_SERIAL TRUE)
  hy_case(NAME gauss_gpu_small_auto RANKS 1 LABELS gpu JSON TIMEOUT 60
    EXPECT ${GAUSS_PASS} "^gauss: small-n LU \\(gauss.small = auto, n <= 1024 on this backend\\)"
    RUNCASE --json-field metrics.small_lu=1
    ARGS run.workload=gauss run.backend=cuda gauss.n=1024)
  hy_case(NAME gauss_gpu_small_auto_above RANKS 1 LABELS gpu JSON TIMEOUT 60
    EXPECT ${GAUSS_PASS} REJECT "small-n LU" RUNCASE --json-field metrics.small_lu=0
    ARGS run.workload=gauss run.backend=cuda gauss.n=1025)
  # a matrix that needs pivoting at every step (zero diagonal) passes; a singular one stops with
  # exit 3 naming the column; [debug] perturb turns the verdict into FAILED, exit 4
  hy_case(NAME gauss_gpu_small_zerodiag RANKS 1 LABELS gpu TIMEOUT 60 EXPECT ${GAUSS_PASS} "small-n LU"
    ARGS run.workload=gauss run.backend=cuda gauss.small=on gauss.matrix=file
         gauss.file=${GAUSS_T}/zerodiag.mtx gauss.rhs=ones)
  hy_case(NAME gauss_gpu_small_singular RANKS 1 LABELS gpu EXIT 3 JSON TIMEOUT 60
    EXPECT "small-n LU" "singular at column [0-9]+" "FAILED: numerical"
    REJECT ${GAUSS_NONAN} "PASSED"
    ARGS run.workload=gauss run.backend=cuda gauss.small=on gauss.matrix=file
         gauss.file=${GAUSS_T}/singular.mtx)
  hy_case(NAME gauss_gpu_small_perturb RANKS 1 LABELS gpu EXIT 4 TIMEOUT 60
    EXPECT "small-n LU" "^FAILED: gauss blocked double n=500: HPL scaled residual [0-9.e+]+ >= 16$"
    REJECT "^PASSED"
    RUNCASE --expect-num "16::^FAILED: .*HPL scaled residual ([0-9.e+]+) >= 16$"
    ARGS run.workload=gauss run.backend=cuda gauss.small=on gauss.n=500 debug.perturb=1e-3)
endif()
