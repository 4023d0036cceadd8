# GPU tests of the foundation (label gpu; registered with -DHYBRID_GPU_TESTS=ON on a machine
# with a CUDA device): the selftest on the CUDA backend at 1 and 2 ranks must pass, which
# compares the device kernel with a long-double loop and checks the copies' data; and its
# kernel and copy checks must fail on the device too when [debug] perturb says so (exit 4, the
# figures parsed: perturb > 0 fails daxpy and the copies, < 0 the dot and the copies).
if(HYBRID_GPU_TESTS)
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
