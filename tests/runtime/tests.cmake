# tests/runtime/tests.cmake - runtime tests (included by tests/CMakeLists.txt):
#  - test_runtime at 2 and 3 ranks: hy_err/hy_agree (rank 1 fails, rank 0 gets its message and
#    code), cfg_parse_text + cfg_override + cfg_bcast round trip;
#  - an error on one rank only ([debug] fail_rank) ends the whole job within seconds;
#  - backend=cuda without a device (or without CUDA compiled in): agreed error, no hang;
#  - with CUDA compiled in and no device visible, backend=auto runs on the host;
#  - records are never overwritten; output.record = false writes nothing; an unwritable
#    output.dir gives exit 5 and no file; a failed check gives exit 4 with a "failed" record.
# Note: this file is include()d, so its own folder is CMAKE_CURRENT_LIST_DIR.
set(HY_RT_DIR ${CMAKE_CURRENT_LIST_DIR})
set(HY_SELFTEST_INI ${CMAKE_SOURCE_DIR}/config/selftest.ini)
# small sizes: these tests are about the runtime, not bandwidth
set(HY_RT_SMALL ${HY_SELFTEST_INI} selftest.copy_mib=1 selftest.n=10000 selftest.reps=1)

add_executable(test_runtime ${HY_RT_DIR}/test_runtime.c ${CMAKE_SOURCE_DIR}/tests/config/cfgtest.c)
target_link_libraries(test_runtime PRIVATE hybrid_core)
if(DEFINED HYBRID_WARN)
  target_compile_options(test_runtime PRIVATE ${HYBRID_WARN})
endif()
# The exit status and the summary line both count (a regular expression alone would pass a
# crash after the summary): through runcase.py, not PASS_REGULAR_EXPRESSION.
foreach(np 2 3)
  add_test(NAME runtime_unit_np${np}
    COMMAND ${HY_RUNCASE} --exit 0 --timeout 25
      --expect "^${np} rank\\(s\\): PASSED \\([0-9]+ checks on rank 0, 0 failure\\(s\\) over all ranks\\)$"
      --reject "FAILED"
      -- ${HY_MPIEXEC} ${np} ${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:test_runtime>)
  set_tests_properties(runtime_unit_np${np} PROPERTIES LABELS "unit;mpi" TIMEOUT 30
    PROCESSORS ${np})
endforeach()

# MPI_Abort(comm, code): MPICH's mpiexec (hydra) exits with the code; other launchers only
# promise a nonzero exit.
if(HY_MPIEXEC_VERSION MATCHES "HYDRA")
  set(HY_ABORT5 5)
  set(HY_ABORT3 3)
else()
  set(HY_ABORT5 nonzero)
  set(HY_ABORT3 nonzero)
endif()

# An error on one rank only: that rank's message, the whole job ends within seconds.
foreach(np 2 3)
  hy_case(NAME runtime_fail_rank1_np${np} RANKS ${np} EXIT ${HY_ABORT5} TIMEOUT 30
    EXPECT "hybrid: rank 1 on [^ :]+: injected failure \\(\\[debug\\] fail_rank = 1\\)"
    REJECT "^PASSED" "^record:" RUNCASE --timeout 25
    ARGS debug.fail_rank=1 ${HY_RT_SMALL})
endforeach()
hy_case(NAME runtime_fail_rank2_code3_np3 RANKS 3 EXIT ${HY_ABORT3} TIMEOUT 30
  EXPECT "hybrid: rank 2 on [^ :]+: injected failure" REJECT "^PASSED" RUNCASE --timeout 25
  ARGS debug.fail_rank=2 debug.fail_code=3 ${HY_RT_SMALL})
hy_case(NAME runtime_fail_rank0_np2 RANKS 2 EXIT ${HY_ABORT5} TIMEOUT 30
  EXPECT "hybrid: rank 0 on [^ :]+: injected failure" REJECT "^PASSED" RUNCASE --timeout 25
  ARGS debug.fail_rank=0 ${HY_RT_SMALL})
# fail_rank beyond the rank count: nobody fails
hy_case(NAME runtime_fail_rank_absent_np2 RANKS 2 EXIT 0 JSON TIMEOUT 30
  EXPECT "^PASSED" REJECT "injected" ARGS debug.fail_rank=5 ${HY_RT_SMALL})

# backend = cuda where no device is visible (CUDA_VISIBLE_DEVICES empty, so also on a GPU
# machine): exit 5 naming the rank when CUDA is compiled in, exit 1 when it is not; all ranks
# agree (a record with status error), no hang.
if(HYBRID_HAVE_CUDA)
  hy_case(NAME runtime_backend_cuda_nodevice_np2 RANKS 2 EXIT 5 JSON TIMEOUT 30
    EXPECT "hybrid: error: command line: run.backend = cuda, but rank 0 on [^ ]+ sees no CUDA device"
    "^FAILED: system error \\(exit 5\\)" REJECT "^PASSED" RUNCASE --timeout 25
    ARGS run.backend=cuda ${HY_RT_SMALL})
  # a binary with CUDA compiled in runs on the host when no device is visible (backend=auto)
  hy_case(NAME runtime_cuda_build_auto_host_np2 RANKS 2 EXIT 0 JSON TIMEOUT 60
    EXPECT "backend host" "kernel: daxpy on [a-z]+ vs a long-double loop" "^PASSED"
    RUNCASE --json-field backend=host --json-field config.run.backend=auto
    ARGS ${HY_RT_SMALL})
  set_tests_properties(runtime_backend_cuda_nodevice_np2 runtime_cuda_build_auto_host_np2
    PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")
else()
  hy_case(NAME runtime_backend_cuda_nocuda_np2 RANKS 2 EXIT 1 JSON TIMEOUT 30
    EXPECT "hybrid: error: command line: run.backend = cuda, but this binary was built without CUDA"
    "^FAILED: usage or configuration error \\(exit 1\\)" REJECT "^PASSED" RUNCASE --timeout 25
    ARGS run.backend=cuda ${HY_RT_SMALL})
endif()

# Records are never overwritten: two runs into one folder (within the same second) give two.
hy_case(NAME runtime_records_twice_np2 RANKS 2 EXIT 0 JSON TIMEOUT 60
  EXPECT "^record: results/selftest-[0-9-]+\\.json$" "^PASSED"
  RUNCASE --runs 2 ARGS ${HY_RT_SMALL})
# output.record = false: nothing written
hy_case(NAME runtime_no_record_np2 RANKS 2 EXIT 0 TIMEOUT 30
  EXPECT "^PASSED" REJECT "^record:" RUNCASE --no-files
  ARGS output.record=false ${HY_RT_SMALL})

# An output folder that cannot be created: exit 5, the reason once, no partial file.
hy_case(NAME runtime_outdir_unwritable_np2 RANKS 2 EXIT 5 TIMEOUT 30
  EXPECT "hybrid: error: \\[output\\] dir '/proc/forbidden': cannot create the folder: "
  "^FAILED: system error \\(exit 5\\): \\[output\\] dir '/proc/forbidden'"
  REJECT "^PASSED" "^record:" "error: \\[output\\][^\n]*\n(.*\n)*.*error: \\[output\\]"
  RUNCASE --no-files
  ARGS output.dir=/proc/forbidden ${HY_RT_SMALL})
hy_case(NAME runtime_outdir_notadir_np2 RANKS 2 EXIT 5 TIMEOUT 30
  EXPECT "hybrid: error: \\[output\\] dir '/dev/null/results': cannot create the folder: Not a directory"
  REJECT "^PASSED" RUNCASE --no-files
  ARGS output.dir=/dev/null/results ${HY_RT_SMALL})

# A failed check (exit 4): the cfgtest workload with a wrong expected sum; every rank agrees,
# the last line is FAILED with the check, the record says failed.  A grid that does not fit
# the rank count is an agreed configuration error found during the run (exit 1, record).
set(HY_BIN_HYBRID ${HY_BIN})
set(HY_BIN $<TARGET_FILE:hybrid_cfgtest>)
hy_case(NAME runtime_validation_failed_np2 RANKS 2 EXIT 4 JSON TIMEOUT 30
  EXPECT "^FAILED: cfgtest: sum of 1\\.\\.2 = 3, expected 4$" REJECT "^PASSED"
  RUNCASE --json-field validation.passed=false --json-field metrics.sum=3
  ARGS run.workload=cfgtest cfgtest.expect=4)
hy_case(NAME runtime_cfgtest_passed_np3 RANKS 3 EXIT 0 JSON TIMEOUT 30
  EXPECT "^PASSED: cfgtest: sum of 1\\.\\.3 = 6, expected 6$"
  RUNCASE --json-field metrics.sum=6 --json-field config.cfgtest.grid=1x3
  --json-field config.cfgtest.ratio=0.25 --json-field metrics.ratio=0.25
  ARGS run.workload=cfgtest cfgtest.grid=1x3 cfgtest.ratio=0.25)
hy_case(NAME runtime_grid_mismatch_np3 RANKS 3 EXIT 1 JSON TIMEOUT 30
  EXPECT "hybrid: error: command line: key 'cfgtest\\.grid' = 2x2 needs 4 ranks, the run has 3"
  REJECT "^PASSED" RUNCASE --timeout 25
  ARGS run.workload=cfgtest cfgtest.grid=2x2)
set(HY_BIN ${HY_BIN_HYBRID})

# The host backend's core operations (kernels/host/k_host.c: alloc, copies, memset0, daxpy,
# ddot) against references written in the test (long-double loops, byte comparisons).
add_executable(test_kernels_host ${HY_RT_DIR}/test_kernels_host.c)
target_link_libraries(test_kernels_host PRIVATE hybrid_core)
add_test(NAME kernels_host_unit COMMAND test_kernels_host)
set_tests_properties(kernels_host_unit PROPERTIES LABELS unit TIMEOUT 30)

# selftest's copy and kernel checks fail on purpose ([debug] perturb scales what came back and
# the daxpy/dot results before their checks): FAILED, exit 4, the deciding figures parsed.
hy_case(NAME selftest_perturb_copies_np2 RANKS 2 EXIT 4 JSON TIMEOUT 60
  EXPECT "^FAILED: 2 check\\(s\\) failed, first: copies: "
  REJECT "^PASSED"
  RUNCASE "--expect-num=9.9e-4:1.01e-3:^FAILED: .*host->device->device->host max relative difference ([0-9.e+-]+) \\(must be 0\\)"
  --json-num metrics.copy_max_reldiff=9.9e-4:1.01e-3 --json-field validation.passed=false
  --json-num metrics.checks_failed=2:2
  ARGS debug.perturb=1e-3 ${HY_RT_SMALL})
# perturb > 0: the daxpy half of the kernel check fails (the dot half passes); perturb < 0: the dot
foreach(sign pos neg)
  if(sign STREQUAL pos)
    set(p 2e-3)
    set(fig "relative error ([0-9.e+-]+) \\(<= 4e-16\\), dot error [0-9.e+-]+ \\(<= 1e-13")
    set(nums --json-num metrics.daxpy_relerr=1.9e-3:2.1e-3 --json-num metrics.ddot_relerr=:1e-13)
  else()
    set(p -2e-3)
    set(fig "relative error [0-9.e+-]+ \\(<= 4e-16\\), dot error ([0-9.e+-]+) \\(<= 1e-13")
    set(nums --json-num metrics.daxpy_relerr=:4e-16 --json-num metrics.ddot_relerr=1e-12:)
  endif()
  hy_case(NAME selftest_perturb_kernel_${sign}_np2 RANKS 2 EXIT 4 JSON TIMEOUT 60
    EXPECT "^FAILED: 2 check\\(s\\) failed, first: copies: .* also: kernel: daxpy on [a-z]+ vs a long-double loop"
    REJECT "^PASSED"
    RUNCASE "--expect-num=1e-12::^FAILED: .*kernel: daxpy on [a-z]+ vs a long-double loop, n = 10000: ${fig}"
    ${nums} --json-field validation.passed=false --json-num metrics.checks_failed=2:2
    ARGS debug.perturb=${p} ${HY_RT_SMALL})
endforeach()

# selftest: one rank fails alone inside its longest stage (copies) and inside the kernel stage:
# the job ends within 10 s with that rank's message and the code, no record, no PASSED.
foreach(np 2 3)
  math(EXPR last "${np} - 1")
  hy_case(NAME selftest_fail_copies_rank${last}_np${np} RANKS ${np} EXIT ${HY_ABORT5} TIMEOUT 30
    EXPECT "hybrid: rank ${last} on [^ :]+: injected failure \\(\\[debug\\] fail_rank = ${last}, fail_stage = copies\\)"
    REJECT "^PASSED" "^record:" RUNCASE --timeout 10
    ARGS debug.fail_rank=${last} debug.fail_stage=copies ${HY_RT_SMALL})
  hy_case(NAME selftest_fail_kernel_rank0_np${np} RANKS ${np} EXIT ${HY_ABORT3} TIMEOUT 30
    EXPECT "hybrid: rank 0 on [^ :]+: injected failure \\(\\[debug\\] fail_rank = 0, fail_stage = kernel\\)"
    REJECT "^PASSED" "^record:" RUNCASE --timeout 10
    ARGS debug.fail_rank=0 debug.fail_code=3 debug.fail_stage=kernel ${HY_RT_SMALL})
endforeach()

# threads per rank (taskset, SLURM_CPUS_PER_TASK, OMP_NUM_THREADS, shared among unbound ranks),
# the BLAS library and its threads, the compiler: header and record (tests/runtime/sysinfo_test.py)
add_test(NAME runtime_sysinfo
  COMMAND ${Python3_EXECUTABLE} ${HY_RT_DIR}/sysinfo_test.py $<TARGET_FILE:hybrid> ${MPIEXEC_EXECUTABLE}
          ${HY_TEST_OUT}/runtime_sysinfo)
set_tests_properties(runtime_sysinfo PROPERTIES LABELS "unit;mpi" TIMEOUT 90 PROCESSORS 2)

# run.progress_mode = auto|bar|lines|off with run.progress (the interval), into a pipe and on a
# pseudo-terminal (tests/runtime/progress_test.py; a gauss run of more than 2 s)
add_test(NAME runtime_progress
  COMMAND ${Python3_EXECUTABLE} ${HY_RT_DIR}/progress_test.py $<TARGET_FILE:hybrid> ${HY_TEST_OUT}/runtime_progress)
set_tests_properties(runtime_progress PROPERTIES LABELS unit TIMEOUT 120)

# Progress lines of every phase that can run long, in a batch log (stderr a pipe): gauss
# blocked and stepwise (with an ETA by flops), spai setup and BiCGSTAB, lle KNN and the
# eigensolver's iterations; sizes grow on a fast machine (tests/runtime/progress_phases.py)
add_test(NAME runtime_progress_phases
  COMMAND ${Python3_EXECUTABLE} ${HY_RT_DIR}/progress_phases.py $<TARGET_FILE:hybrid> ${HY_TEST_OUT}/runtime_progress_phases)
set_tests_properties(runtime_progress_phases PROPERTIES LABELS unit TIMEOUT 300)
# lle.eigensolver = gpu-chol reports its device iteration like bsvd (the job's progress callback)
if(HYBRID_GPU_TESTS)
  add_test(NAME gpu_runtime_progress_gpu_chol
    COMMAND ${Python3_EXECUTABLE} ${HY_RT_DIR}/progress_phases.py $<TARGET_FILE:hybrid>
      ${HY_TEST_OUT}/gpu_runtime_progress_gpu_chol "lle gpu-chol")
  set_tests_properties(gpu_runtime_progress_gpu_chol PROPERTIES LABELS gpu TIMEOUT 300)
endif()
