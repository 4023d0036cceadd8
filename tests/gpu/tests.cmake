# GPU tests of the foundation (label gpu; registered with -DHYBRID_GPU_TESTS=ON on a machine
# with a CUDA device): the selftest on the CUDA backend at 1 and 2 ranks must pass, which
# compares the device kernel with a long-double loop and checks the copies' data; and its
# kernel and copy checks must fail on the device too when [debug] perturb says so (exit 4, the
# figures parsed: perturb > 0 fails daxpy and the copies, < 0 the dot and the copies).
# The CUDA backend's memory pool (run.cuda_pool): on the host backend the record's cuda_pool is
# null and no pool line prints; a value other than on|off is a configuration error.
hy_case(NAME runtime_cuda_pool_host RANKS 1 EXIT 0 JSON
  REJECT "memory pool:"
  RUNCASE --json-field cuda_pool=null --json-field config.run.cuda_pool=on
  ARGS run.workload=selftest run.backend=host selftest.copy_mib=1 selftest.n=1000)
hy_case(NAME runtime_cuda_pool_bad_value RANKS 1 EXIT 1
  EXPECT "key 'run.cuda_pool' = 'yes'.*allowed: one of on\\|off"
  ARGS run.workload=selftest run.backend=host run.cuda_pool=yes)
add_executable(test_pool ${CMAKE_CURRENT_LIST_DIR}/test_pool.c)
target_link_libraries(test_pool PRIVATE hybrid_core)

if(HYBRID_GPU_TESTS)
  # the pool's own checks (tests/gpu/test_pool.c): with the pool, 64 alloc / free pairs while
  # the stream is busy take < 0.2 of the busy time and leave the stream busy; reuse, figures,
  # trim and out of memory; without it (the control) the same loop waits for the stream
  add_test(NAME gpu_pool_nosync COMMAND test_pool on)
  add_test(NAME gpu_pool_off_control COMMAND test_pool off)
  set_tests_properties(gpu_pool_nosync gpu_pool_off_control PROPERTIES LABELS gpu TIMEOUT 60
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
  # the record's cuda_pool and the report line: selftest's 2 copy buffers of 64 MiB live
  # together (peak >= 128 MiB), 4 device allocations in all; off: enabled false
  hy_case(NAME gpu_pool_record RANKS 1 EXIT 0 JSON LABELS gpu
    EXPECT "^memory pool: on \\(run.cuda_pool\\), max over ranks: peak in use 1[23][0-9]\\.[0-9] MiB"
    RUNCASE --json-field cuda_pool.enabled=true --json-num cuda_pool.used_peak_bytes=134217728:2.3e8
    --json-num cuda_pool.allocs=4:4 --json-num cuda_pool.reserved_peak_bytes=134217728:
    --json-num cuda_pool.used_bytes=0:0
    ARGS run.workload=selftest run.backend=cuda selftest.copy_mib=64 selftest.n=1000000)
  # a workload whose device buffers are all its kernels' own (lle at bd8e183: 0 allocations)
  hy_case(NAME gpu_pool_record_unused RANKS 1 EXIT 0 JSON LABELS gpu
    EXPECT "^memory pool: on \\(run.cuda_pool\\), unused: no device buffer" "^PASSED"
    RUNCASE --json-num cuda_pool.allocs=0:0 --json-num cuda_pool.used_peak_bytes=0:0
    ARGS run.workload=lle run.backend=cuda lle.n=2000 lle.k=10)
  hy_case(NAME gpu_pool_record_off RANKS 1 EXIT 0 JSON LABELS gpu
    EXPECT "^memory pool: off" RUNCASE --json-field cuda_pool.enabled=false
    ARGS run.workload=selftest run.backend=cuda run.cuda_pool=off selftest.copy_mib=16 selftest.n=1000000)
  foreach(np 1 2)
    hy_case(NAME gpu_selftest_cuda_np${np} RANKS ${np} EXIT 0 JSON LABELS gpu
      EXPECT "backend cuda" "ok +kernel: daxpy on cuda vs a long-double loop" "^PASSED"
      RUNCASE --json-num metrics.daxpy_relerr=:4e-16 --json-num metrics.ddot_relerr=:1e-13
      --json-num metrics.copy_max_reldiff=0:0 --json-field backend=cuda
      ARGS run.workload=selftest run.backend=cuda selftest.copy_mib=256 selftest.n=20000000)
  endforeach()
  hy_case(NAME gpu_selftest_cuda_perturb_pos_np1 RANKS 1 EXIT 4 JSON LABELS gpu
    EXPECT "backend cuda" "^FAILED: 2 check\\(s\\) failed, first: copies: .* also: kernel: daxpy on cuda"
    RUNCASE --json-num metrics.daxpy_relerr=1.9e-3:2.1e-3 --json-num metrics.ddot_relerr=:1e-13
    --json-num metrics.copy_max_reldiff=1.9e-3:2.1e-3
    ARGS run.workload=selftest run.backend=cuda selftest.copy_mib=16 selftest.n=1000000 debug.perturb=2e-3)
  hy_case(NAME gpu_selftest_cuda_perturb_neg_np1 RANKS 1 EXIT 4 JSON LABELS gpu
    EXPECT "backend cuda" "^FAILED: 2 check\\(s\\) failed, first: copies: .* also: kernel: daxpy on cuda"
    RUNCASE --json-num metrics.daxpy_relerr=:4e-16 --json-num metrics.ddot_relerr=1e-12:
    ARGS run.workload=selftest run.backend=cuda selftest.copy_mib=16 selftest.n=1000000 debug.perturb=-2e-3)
endif()
