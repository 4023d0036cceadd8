# GPU tests of the foundation (label gpu; registered with -DHYBRID_GPU_TESTS=ON on a machine
# with a CUDA device): the selftest on the CUDA backend at 1 and 2 ranks must pass, which
# compares the device kernel with the host backend and checks the copies' data.
if(HYBRID_GPU_TESTS)
  foreach(np 1 2)
    hy_case(NAME gpu_selftest_cuda_np${np} RANKS ${np} EXIT 0 JSON LABELS gpu
      EXPECT "backend cuda" "ok +kernel: daxpy on cuda vs a long-double loop" "^PASSED"
      ARGS run.workload=selftest run.backend=cuda selftest.copy_mib=256 selftest.n=20000000)
  endforeach()
endif()
