# gemm: dense C = alpha A B + beta C by SUMMA (app/gemm).  Host backend in CI; CUDA vs host
# only with -DHYBRID_GPU_TESTS=ON (tests/gpu).  Sizes are primes (97 x 89 x 101) that neither
# nb = 16, nor the tiles, nor the grids divide; <= 3 ranks, well under a second each.
set(GEMM_T ${CMAKE_CURRENT_LIST_DIR})
set(GEMM_CHECK ${Python3_EXECUTABLE} ${GEMM_T}/gemm_check.py)
set(GEMM_PRIMES gemm.m=97 gemm.n=89 gemm.k=101 gemm.nb=16)
set(GEMM_PASS "Freivalds \\(2 vectors\\) ratio [0-9.]+e[-+][0-9]+, full product vs host BLAS ratio [0-9.]+e[-+][0-9]+"
              "^PASSED: gemm: error ratio [0-9.]+e[-+][0-9]+ <= 1")
set(GEMM_NONAN "(^|[^_a-zA-Z])([Nn]a[Nn]|[Ii]nf)([^a-zA-Z]|$)")

# every kernel at 1, 2 (both grids) and 3 ranks: PASSED, both times, a JSON record with the figures
foreach(kern naive tiled vendor)
  foreach(spec "1:1x1" "2:1x2" "2:2x1" "3:1x3")
    string(REPLACE ":" ";" sp "${spec}")
    list(GET sp 0 np)
    list(GET sp 1 grid)
    hy_case(NAME gemm_${kern}_${grid} RANKS ${np} JSON
      EXPECT ${GEMM_PASS} "device time [0-9.]+ ms \\(upload" "kernel time [0-9.]+ ms"
             "rate [0-9.]+ GFLOP/s by kernel time"
      REJECT ${GEMM_NONAN} "vendor \\(BLAS\\) rate" "target:"
      RUNCASE --json-field metrics.kernel=${kern} --json-field metrics.m=97
      ARGS run.workload=gemm ${GEMM_PRIMES} gemm.kernel=${kern} gemm.grid=${grid} run.seed=3)
  endforeach()
endforeach()

# against numpy's FP64 product of the A, B, C0 the run wrote: every precision, beta != 0, at
# 1 / 2 / 2 / 3 ranks; the inputs identical for every grid; C identical bit for bit (panels of
# nb on every grid, the same summation order)
foreach(prec float double tf32 bf16 fp16)
  foreach(kern naive tiled vendor)
    add_test(NAME gemm_ranks_${prec}_${kern}
      COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
              --workdir ${HY_TEST_OUT}/gemm_ranks_${prec}_${kern} --identical
              --runs "1:gemm.grid=1x1" "2:gemm.grid=1x2" "2:gemm.grid=2x1" "3:gemm.grid=1x3" --
              run.workload=gemm ${GEMM_PRIMES} gemm.precision=${prec} gemm.kernel=${kern} gemm.tile=13
              gemm.alpha=-1.5 gemm.beta=0.75 gemm.whole_k=false run.seed=11)
    set_tests_properties(gemm_ranks_${prec}_${kern} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 3)
  endforeach()
endforeach()
# one local GEMM over all of k on 1x1 (the default), tiles 8 and 32, a 2x2 grid: within the bound
add_test(NAME gemm_ranks_wholek_tiles
  COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
          --workdir ${HY_TEST_OUT}/gemm_ranks_wholek_tiles
          --runs "1:gemm.tile=8" "1:gemm.tile=32" "4:gemm.grid=2x2 gemm.tile=32" "1:gemm.kernel=naive" --
          run.workload=gemm ${GEMM_PRIMES} gemm.kernel=tiled gemm.beta=-2 run.seed=12)
set_tests_properties(gemm_ranks_wholek_tiles PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 4)

# gemm.panel = 4 nb: each step's local GEMM over 4 consecutive k-blocks gathered from their
# owners (k = 101, nb = 16: steps 0..63 and 64..100, the second ending in a partial block; on
# 1x3 its blocks come from 3 process columns): within the bound of numpy's product, C identical
# bit for bit on every grid; float / tiled (FP32 sums: the panel width shows in the rounding)
# and double / vendor
foreach(pk "float:tiled" "double:vendor")
  string(REPLACE ":" ";" pkl "${pk}")
  list(GET pkl 0 prec)
  list(GET pkl 1 kern)
  add_test(NAME gemm_ranks_panel_${prec}
    COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --workdir ${HY_TEST_OUT}/gemm_ranks_panel_${prec} --identical
            --runs "1:gemm.grid=1x1" "2:gemm.grid=1x2" "2:gemm.grid=2x1" "3:gemm.grid=1x3" "3:gemm.grid=3x1" --
            run.workload=gemm ${GEMM_PRIMES} gemm.panel=64 gemm.precision=${prec} gemm.kernel=${kern}
            gemm.alpha=-1.5 gemm.beta=0.75 gemm.whole_k=false run.seed=16)
  set_tests_properties(gemm_ranks_panel_${prec} PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 3)
endforeach()
# the aggregation happens: 2 steps (not 7) on 1x3, parsed from the record
hy_case(NAME gemm_panel_steps RANKS 3 JSON
  EXPECT ${GEMM_PASS} "grid 1x3, nb 16, 2 SUMMA step\\(s\\)"
  RUNCASE --json-field metrics.steps=2
  ARGS run.workload=gemm ${GEMM_PRIMES} gemm.panel=64 gemm.grid=1x3 run.seed=17)
hy_case(NAME gemm_badcfg_panel EXIT 1
  EXPECT "key 'gemm.panel' = 40 is not a multiple of gemm.nb = 16 \\(allowed: 0 for nb"
  REJECT "^PASSED" ARGS run.workload=gemm ${GEMM_PRIMES} gemm.panel=40 output.record=false)

# files in (Matrix Market, written by a random run): the same C bit for bit, at 1 and 2 ranks
foreach(np 1 2)
  add_test(NAME gemm_file_np${np}
    COMMAND ${GEMM_CHECK} file --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --workdir ${HY_TEST_OUT}/gemm_file_np${np} --np ${np} --
            run.workload=gemm ${GEMM_PRIMES} gemm.beta=0.5 gemm.precision=double run.seed=13)
  set_tests_properties(gemm_file_np${np} PROPERTIES LABELS "unit" TIMEOUT 120 PROCESSORS ${np})
endforeach()
# PETSc binary inputs (A, B, C0 written as .petsc by a run, read back by source = file)
add_test(NAME gemm_file_petsc_np2
  COMMAND ${GEMM_CHECK} file --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
          --workdir ${HY_TEST_OUT}/gemm_file_petsc_np2 --np 2 --ext .petsc --
          run.workload=gemm ${GEMM_PRIMES} gemm.beta=0.5 gemm.precision=double run.seed=15)
set_tests_properties(gemm_file_petsc_np2 PROPERTIES LABELS "unit" TIMEOUT 120 PROCESSORS 2)

# the variants alone in the same run (the seed's table columns), host: no GPU figures
hy_case(NAME gemm_compare_host JSON
  EXPECT "alone on 97 x 89 x 101: naive kernel time [0-9.]+ ms"
         "alone on 97 x 89 x 101: tiled kernel time [0-9.]+ ms"
         "alone on 97 x 89 x 101: vendor BLAS kernel time [0-9.]+ ms"
         "tiled takes [0-9.]+% of naive's kernel time" ${GEMM_PASS}
  REJECT "target:" "TFLOP/s"
  RUNCASE --json-field metrics.kernel=tiled
  ARGS run.workload=gemm ${GEMM_PRIMES} gemm.compare=true gemm.reps=1)

# debug.perturb: the check must fail (exit 4, FAILED with the deciding figure)
hy_case(NAME gemm_perturb_fails RANKS 2 EXIT 4 JSON
  EXPECT "^FAILED: gemm: error ratio [0-9.]+e[-+][0-9]+ > 1 \\(Freivalds [0-9.]+e[-+][0-9]+"
  REJECT "^PASSED"
  ARGS run.workload=gemm ${GEMM_PRIMES} gemm.precision=double debug.perturb=1e-9)
# large sizes skip the full product: Freivalds alone still catches the perturbation
hy_case(NAME gemm_perturb_freivalds_only EXIT 4 JSON
  EXPECT "full product skipped" "^FAILED: gemm: error ratio [0-9.]+e[-+][0-9]+ > 1"
  ARGS run.workload=gemm ${GEMM_PRIMES} gemm.full_check_max=1000 debug.perturb=1e-3)
# a perturbation that Freivalds' loose bound lets through but the full product does not: the
# verdict must take both (kills gemm_full_check_ignored in tests/tools/mutations.txt)
hy_case(NAME gemm_perturb_full_only EXIT 4 JSON
  EXPECT "^FAILED: gemm: error ratio [0-9.]+e[-+][0-9]+ > 1 \\(Freivalds "
  RUNCASE "--expect-num=0:0.7:Freivalds \\(2 vectors\\) ratio ([0-9.]+e[-+][0-9]+)"
          "--expect-num=2::full product vs host BLAS ratio ([0-9.]+e[-+][0-9]+)"
  ARGS run.workload=gemm gemm.m=97 gemm.n=89 gemm.k=101 gemm.precision=double debug.perturb=5e-13)
hy_case(NAME gemm_freivalds_only_passes JSON
  EXPECT "full product skipped" "^PASSED: gemm: error ratio [0-9.]+e[-+][0-9]+ <= 1 \\(Freivalds\\)"
  ARGS run.workload=gemm ${GEMM_PRIMES} gemm.full_check_max=1000)

# one rank failing inside the SUMMA loop ends the job within 10 s (2 and 3 ranks); MPICH's
# hydra exits with MPI_Abort's code, other launchers only promise a nonzero exit
set(GEMM_ABORT3 nonzero)
if(HY_MPIEXEC_VERSION MATCHES "HYDRA")
  set(GEMM_ABORT3 3)
endif()
foreach(np 2 3)
  hy_case(NAME gemm_fail_summa_np${np} RANKS ${np} EXIT ${GEMM_ABORT3} TIMEOUT 30
    EXPECT "hybrid: rank 1 on [^ :]+: injected failure \\(\\[debug\\] fail_rank = 1, fail_stage = summa\\)"
    REJECT "^PASSED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=gemm ${GEMM_PRIMES} debug.fail_rank=1 debug.fail_stage=summa debug.fail_code=3)
endforeach()

# bad configurations: exit 1, the key and what is allowed named, nothing written
set(GEMM_BADCFG
  "grid:gemm.grid=2x2:key 'gemm.grid' = 2x2 needs 4 ranks, but the run has 1"
  "tile:gemm.tile=7:key 'gemm.tile'.*out of range"
  "prec:gemm.precision=half:key 'gemm.precision'.*float\\|double\\|tf32\\|bf16\\|fp16"
  "nofile:gemm.source=file:key 'gemm.source' = file needs gemm.a_file = PATH"
  "nocfile:gemm.source=file gemm.a_file=a.mtx gemm.b_file=b.mtx gemm.beta=1:key 'gemm.beta' = 1 with source = file needs gemm.c_file"
  "sizes_with_file:gemm.source=file gemm.a_file=a.mtx gemm.b_file=b.mtx gemm.m=5:key 'gemm.m' is set, but source = file"
  "file_with_random:gemm.a_file=a.mtx:key 'gemm.a_file' is set, but gemm.source = random"
  "c0_beta0:output.c0=c0.mtx:key 'output.c0' is set, but gemm.beta = 0")
foreach(spec IN LISTS GEMM_BADCFG)
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 name)
  list(GET sp 1 args)
  list(GET sp 2 msg)
  separate_arguments(args)
  hy_case(NAME gemm_badcfg_${name} EXIT 1
    EXPECT "${msg}" REJECT "^PASSED" RUNCASE --no-files
    ARGS run.workload=gemm output.record=false output.c=c.mtx ${args})
endforeach()
hy_case(NAME gemm_badcfg_compare_np2 RANKS 2 EXIT 1
  EXPECT "key 'gemm.compare' = true times every kernel alone on one device: run it with 1 rank"
  RUNCASE --no-files ARGS run.workload=gemm output.record=false gemm.compare=true)

# bad input files: exit 2 naming the file (and what is wrong), nothing written under output.c
set(GEMM_DATA ${GEMM_T}/data)
set(GEMM_BADFILE
  "missing:gemm.a_file=${GEMM_DATA}/none.mtx gemm.b_file=${GEMM_DATA}/b_3x2.mtx:none\\.mtx"
  "shape:gemm.a_file=${GEMM_DATA}/a_2x3.mtx gemm.b_file=${GEMM_DATA}/a_2x3.mtx:a_2x3\\.mtx: B is 2 x 3, but A .* is 2 x 3: B needs 3 rows"
  "malformed:gemm.a_file=${GEMM_DATA}/bad_value.mtx gemm.b_file=${GEMM_DATA}/b_3x2.mtx:bad_value\\.mtx:[0-9]+"
  "c0shape:gemm.a_file=${GEMM_DATA}/a_2x3.mtx gemm.b_file=${GEMM_DATA}/b_3x2.mtx gemm.beta=1 gemm.c_file=${GEMM_DATA}/b_3x2.mtx:b_3x2\\.mtx: C is 3 x 2, but A B is 2 x 2")
foreach(spec IN LISTS GEMM_BADFILE)
  string(REPLACE ":" ";" sp "${spec}")
  list(GET sp 0 name)
  list(GET sp 1 args)
  list(GET sp 2 msg)
  separate_arguments(args)
  foreach(np 1 2)
    hy_case(NAME gemm_badfile_${name}_np${np} RANKS ${np} EXIT 2
      EXPECT "${msg}" REJECT "^PASSED" RUNCASE --no-files
      ARGS run.workload=gemm output.record=false output.c=c.mtx gemm.source=file ${args})
  endforeach()
endforeach()
# a good pair of files: C = A B checked (2 x 3 times 3 x 2, exact small integers)
hy_case(NAME gemm_file_small JSON
  EXPECT "m x n x k = 2 x 2 x 3" "full product vs host BLAS ratio 0\\.000e\\+00" "^PASSED"
  ARGS run.workload=gemm gemm.source=file gemm.a_file=${GEMM_DATA}/a_2x3.mtx gemm.b_file=${GEMM_DATA}/b_3x2.mtx)

# the device-collective transport path ([debug] host_coll: MPI underneath) at 2 and 3 ranks,
# both grids of 2: the same C as the MPI transport (inputs and C identical)
add_test(NAME gemm_ranks_devpath
  COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
          --workdir ${HY_TEST_OUT}/gemm_ranks_devpath --identical
          --runs "1:gemm.grid=1x1" "2:gemm.grid=1x2 debug.host_coll=true" "2:gemm.grid=2x1 debug.host_coll=true"
                 "3:gemm.grid=1x3 debug.host_coll=true" --
          run.workload=gemm ${GEMM_PRIMES} gemm.kernel=vendor gemm.precision=double gemm.beta=0.5 gemm.whole_k=false run.seed=14)
set_tests_properties(gemm_ranks_devpath PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 3)
hy_case(NAME gemm_devpath_printed RANKS 2 JSON
  EXPECT "panel broadcasts: emulated \\(device buffers" ${GEMM_PASS}
  RUNCASE --json-field metrics.bcast=emulated
  ARGS run.workload=gemm ${GEMM_PRIMES} debug.host_coll=true)
hy_case(NAME gemm_bcast_nccl_host RANKS 2 EXIT 1
  EXPECT "gemm.bcast = nccl: device collectives are not available here: host backend"
  REJECT "^PASSED" ARGS run.workload=gemm ${GEMM_PRIMES} gemm.bcast=nccl output.record=false)

# ---- GPU (label gpu, -DHYBRID_GPU_TESTS=ON): CUDA against host, every kernel and precision, at
# primes that no tile divides (97 x 89 x 101 and 509 x 503 x 521), 1 rank and 2 ranks sharing the
# GPU (MPI transport, both grids); each C within its bound of numpy's FP64 product and within
# twice the bound of the host's C; the inputs identical
if(HYBRID_GPU_TESTS)
  foreach(prec float double tf32 bf16 fp16)
    foreach(kern naive tiled vendor)
      foreach(sz "97:89:101" "509:503:521")
        string(REPLACE ":" ";" d "${sz}")
        list(GET d 0 mm)
        list(GET d 1 nn)
        list(GET d 2 kk)
        set(nm gpu_gemm_${prec}_${kern}_${mm})
        add_test(NAME ${nm}
          COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
                  --workdir ${HY_TEST_OUT}/${nm} --agree
                  --runs "1:run.backend=host" "1:run.backend=cuda" "2:run.backend=cuda gemm.grid=1x2"
                         "2:run.backend=cuda gemm.grid=2x1" --
                  run.workload=gemm gemm.m=${mm} gemm.n=${nn} gemm.k=${kk} gemm.nb=64 gemm.precision=${prec}
                  gemm.kernel=${kern} gemm.alpha=1.25 gemm.beta=-0.5 gemm.whole_k=false run.seed=21)
        set_tests_properties(${nm} PROPERTIES LABELS "gpu;mpi" TIMEOUT 300 PROCESSORS 2)
      endforeach()
    endforeach()
  endforeach()
  # tiles 8, 13 (divides nothing), 32 of the tiled kernel, FP32, one GPU against host
  add_test(NAME gpu_gemm_tiles
    COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --workdir ${HY_TEST_OUT}/gpu_gemm_tiles --agree
            --runs "1:run.backend=host" "1:run.backend=cuda gemm.tile=8" "1:run.backend=cuda gemm.tile=13"
                   "1:run.backend=cuda gemm.tile=32" --
            run.workload=gemm gemm.m=509 gemm.n=503 gemm.k=521 gemm.kernel=tiled run.seed=22)
  set_tests_properties(gpu_gemm_tiles PROPERTIES LABELS "gpu" TIMEOUT 300)
  # the device figures on the CUDA backend: vendor rate, floor, targets; compare prints all three
  hy_case(NAME gpu_gemm_compare JSON LABELS gpu
    EXPECT "alone on 1031 x 1031 x 1031: naive kernel time" "alone on 1031 x 1031 x 1031: vendor cuBLAS kernel time"
           "vendor \\(cuBLAS\\) rate in this run [0-9.]+ TFLOP/s" "target: tiled >= 0.5 x vendor: [0-9.]+ x"
           "^PASSED"
    RUNCASE --json-field backend=cuda --json-num metrics.vendor_tflops=0.1:1000
    ARGS run.workload=gemm run.backend=cuda gemm.m=1031 gemm.n=1031 gemm.k=1031 gemm.compare=true)
  hy_case(NAME gpu_gemm_perturb EXIT 4 JSON LABELS gpu
    EXPECT "^FAILED: gemm: error ratio [0-9.]+e[-+][0-9]+ > 1"
    ARGS run.workload=gemm run.backend=cuda gemm.m=509 gemm.n=503 gemm.k=521 gemm.precision=double debug.perturb=1e-9)
  # the driver's one GEMM on a 1x1 grid costs what the same call alone costs: a first cuBLAS
  # call of a shape (module loading, heuristics: ~75 ms) is warmed up outside the timed region
  # (without it bf16 n = 16384 measured 0.13 x; here n = 8192 would read ~0.02 x)
  foreach(prec bf16 double)
    hy_case(NAME gpu_gemm_warm_${prec} JSON LABELS gpu
      EXPECT "1 SUMMA step" "^PASSED"
      RUNCASE --json-field backend=cuda
              --expect-num "0.6::target: vendor through the SUMMA driver >= 0.95 x vendor alone: ([0-9.]+) x"
      ARGS run.workload=gemm run.backend=cuda gemm.m=8192 gemm.n=8192 gemm.k=8192 gemm.kernel=vendor
           gemm.precision=${prec} gemm.full_check_max=0)
    # a ratio of two timings: alone on the GPU and the host (the H200 run of 2026-12-02 13:21 at
    # d8644a7 read 0.399 x with 13 other GPU tests beside it, its load phase 26 s)
    set_tests_properties(gpu_gemm_warm_${prec} PROPERTIES RUN_SERIAL TRUE)
  endforeach()
  # gemm.panel = 3 nb on the GPU (k-blocks gathered by the device 2D copy + broadcasts into one
  # local GEMM; k = 521, nb = 64: the last step ends in a partial block), 1 rank and 2 ranks
  # sharing the GPU on both grids, against the host
  foreach(pk "bf16:vendor" "double:vendor" "float:tiled")
    string(REPLACE ":" ";" pkl "${pk}")
    list(GET pkl 0 prec)
    list(GET pkl 1 kern)
    add_test(NAME gpu_gemm_panel_${prec}
      COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
              --workdir ${HY_TEST_OUT}/gpu_gemm_panel_${prec} --agree
              --runs "1:run.backend=host" "1:run.backend=cuda" "2:run.backend=cuda gemm.grid=1x2"
                     "2:run.backend=cuda gemm.grid=2x1" --
              run.workload=gemm gemm.m=509 gemm.n=503 gemm.k=521 gemm.nb=64 gemm.panel=192 gemm.precision=${prec}
              gemm.kernel=${kern} gemm.alpha=1.25 gemm.beta=-0.5 gemm.whole_k=false run.seed=24)
    set_tests_properties(gpu_gemm_panel_${prec} PROPERTIES LABELS "gpu;mpi" TIMEOUT 300 PROCESSORS 2)
  endforeach()
  # two GPUs: the NCCL transport (skips on one GPU), against the 1-GPU C
  add_test(NAME gpu_gemm_nccl_np2
    COMMAND ${GEMM_CHECK} ranks --bin ${HY_BIN} --mpiexec ${MPIEXEC_EXECUTABLE} --npflag=${MPIEXEC_NUMPROC_FLAG}
            --workdir ${HY_TEST_OUT}/gpu_gemm_nccl_np2 --agree --need-gpus 2
            --runs "1:run.backend=cuda" "2:run.backend=cuda gemm.bcast=nccl gemm.grid=1x2"
                   "2:run.backend=cuda gemm.bcast=nccl gemm.grid=2x1" --
            run.workload=gemm gemm.m=1031 gemm.n=1009 gemm.k=1021 gemm.nb=128 gemm.kernel=vendor
            gemm.precision=double gemm.beta=0.5 run.seed=23)
  set_tests_properties(gpu_gemm_nccl_np2 PROPERTIES LABELS "gpu;mpi" TIMEOUT 300 PROCESSORS 2 SKIP_RETURN_CODE 77)
endif()

# ---- hybrid-validate gemm (label validate): the run's C against PETSc's MatMatMult.  The data:
# a 2-rank bf16 run with beta != 0 writes A, B, C0, C; a perturbed run (exit 4) writes its C.
if(TARGET hybrid-validate)
  set(GEMM_VD ${HY_TEST_OUT}/gemm_validate_data)
  set(GEMM_VENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  set(GEMM_VRUN run.workload=gemm ${GEMM_PRIMES} gemm.precision=bf16 gemm.alpha=2 gemm.beta=0.5
      run.seed=31 output.record=false)
  add_test(NAME gemm_validate_gen
    COMMAND ${CMAKE_COMMAND} -E chdir ${HY_TEST_OUT} ${HY_RUNCASE} --exit 0 --workdir ${GEMM_VD} --expect "^PASSED"
            -- ${HY_MPIEXEC} 2 ${HY_MPIEXEC_PREFLAGS} ${HY_BIN} ${GEMM_VRUN}
            output.a=A.mtx output.b=B.mtx output.c=C.mtx output.c0=C0.petsc)
  add_test(NAME gemm_validate_gen_perturbed
    COMMAND ${HY_RUNCASE} --exit 4 --workdir ${GEMM_VD}_p --expect "^FAILED"
            -- ${HY_MPIEXEC} 2 ${HY_MPIEXEC_PREFLAGS} ${HY_BIN} ${GEMM_VRUN} output.c=C.mtx debug.perturb=1e-4)
  set_tests_properties(gemm_validate_gen gemm_validate_gen_perturbed PROPERTIES LABELS "validate;mpi"
    TIMEOUT 60 PROCESSORS 2 FIXTURES_SETUP gemm_vdata)
  set(GEMM_VARGS -A ${GEMM_VD}/A.mtx -B ${GEMM_VD}/B.mtx -C0 ${GEMM_VD}/C0.petsc -alpha 2 -beta 0.5)
  function(gemm_vcase name code msg)
    add_test(NAME gemm_validate_${name}
      COMMAND ${HY_RUNCASE} --exit ${code} --no-files --workdir ${HY_TEST_OUT}/gemm_validate_${name}
              --expect "${msg}" -- $<TARGET_FILE:hybrid-validate> gemm ${ARGN})
    set_tests_properties(gemm_validate_${name} PROPERTIES LABELS validate TIMEOUT 60
      FIXTURES_REQUIRED gemm_vdata ENVIRONMENT "${GEMM_VENV}")
  endfunction()
  gemm_vcase(petsc 0 "^PASSED: gemm: max \\|C - R\\| / bound = [0-9.]+e[-+][0-9]+ <= 1 "
    ${GEMM_VARGS} -C ${GEMM_VD}/C.mtx -prec bf16)
  # the bf16 result judged by FP64's bound: must fail (the check can fail)
  gemm_vcase(too_strict 4 "^FAILED: gemm: max \\|C - R\\| / bound = [0-9.]+e[-+][0-9]+ > 1 .*double"
    ${GEMM_VARGS} -C ${GEMM_VD}/C.mtx -prec double)
  gemm_vcase(perturbed 4 "^FAILED: gemm: max \\|C - R\\| / bound = [0-9.]+e[-+][0-9]+ > 1 "
    ${GEMM_VARGS} -C ${GEMM_VD}_p/C.mtx -prec bf16)
  gemm_vcase(shape 2 "B is 97 x 89, but A .* is 97 x 101: B needs 101 rows"
    -A ${GEMM_VD}/A.mtx -B ${GEMM_VD}/C.mtx -C ${GEMM_VD}/C.mtx)
endif()

# seed 002's gemm tables (jobs/paper-tables.sh gemm --small: host sizes): both tables, the PNG,
# every cell of the prime row a number (the seed's own lost); failing runs fail the command
add_test(NAME gemm_paper_tables_small COMMAND ${HY_RUNCASE} --exit 0 --workdir ${HY_TEST_OUT}/gemm_tables
  --expect "^\\| 131 \\| n/a \\(figure lost\\) \\| n/a \\(figure lost\\) \\| n/a \\(figure lost\\)( \\| [0-9.]+){7} \\| [0-9.]+% \\|$"
  --expect "^\\| 1x3 \\(3\\) \\| [0-9.]+ \\| [0-9.]+ \\| 5 \\|$"
  --expect "seed002: PASSED: tables gemm-sizes, gemm-ranks" --reject "FAILED"
  --expect-file seed002-tables/seed002-gemm-sizes.png
  -- bash ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh gemm --small --bin $<TARGET_FILE:hybrid>)
set_tests_properties(gemm_paper_tables_small PROPERTIES LABELS "slow;mpi" TIMEOUT 600 PROCESSORS 3)
add_test(NAME gemm_paper_tables_failed_run COMMAND ${HY_RUNCASE} --exit 1 --workdir ${HY_TEST_OUT}/gemm_tables_failed
  --expect "seed002: run n64_naive FAILED" --expect "seed002: FAILED: [0-9]+ run"
  --expect "paper-tables: FAILED: seed gemm"
  -- bash ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh gemm --small --bin /bin/false)
set_tests_properties(gemm_paper_tables_failed_run PROPERTIES LABELS "unit" TIMEOUT 120)
