# conv (seed 002: image convolution): the result against scipy.ndimage and bit-identical at 1/2/3
# ranks and every grid on prime sizes, PNG inputs and outputs, bad configurations and input
# files (message, exit code, no file left), [debug] perturb (FAILED, exit 4, the figure), a
# failure of one rank inside the passes (the job ends within 10 s), the PETSc validator, and
# with HYBRID_GPU_TESTS the CUDA backend against the host.
set(CONV_DATA ${CMAKE_CURRENT_LIST_DIR}/data)
set(CONV_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/conv_check.py --hybrid $<TARGET_FILE:hybrid>
  --mpiexec ${MPIEXEC_EXECUTABLE} "--np-flag=${MPIEXEC_NUMPROC_FLAG}" "--preflags=${HY_MPIEXEC_PREFLAGS} ${MPIEXEC_PREFLAGS}")
foreach(chk ranks png perturb)
  add_test(NAME conv_${chk} COMMAND ${CONV_CHECK} --workdir ${HY_TEST_OUT}/conv_${chk} ${chk})
  set_tests_properties(conv_${chk} PROPERTIES LABELS "unit" TIMEOUT 300 SKIP_RETURN_CODE 77
    PASS_REGULAR_EXPRESSION "PASSED: conv ${chk}")
endforeach()
set_tests_properties(conv_ranks PROPERTIES LABELS "unit;mpi" PROCESSORS 3)
set_tests_properties(conv_perturb PROPERTIES LABELS "unit;mpi" PROCESSORS 2)

set(CONV_SMALL run.workload=conv conv.width=61 conv.height=43)
hy_case(NAME conv_default RANKS 1 JSON EXPECT "PASSED: conv: tiled, 512 x 384 x 4" "device time .* kernel time"
  RUNCASE --json-field metrics.passes=1 ARGS run.workload=conv)
hy_case(NAME conv_config_ini RANKS 2 JSON EXPECT "PASSED: conv" "grid 1x2"
  ARGS ${CMAKE_SOURCE_DIR}/config/conv.ini conv.width=257 conv.height=131)
hy_case(NAME conv_kernel_csv RANKS 2 JSON EXPECT "kernel file emboss.csv 3x3" "PASSED: conv"
  ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=${CONV_DATA}/emboss.csv conv.passes=2)
hy_case(NAME conv_png_file RANKS 3 JSON EXPECT "image 16 x 16 x 1 .*gray16x16.png" "PASSED: conv"
  RUNCASE --expect-file out.png ARGS run.workload=conv conv.image=file conv.file=${CONV_DATA}/gray16x16.png output.image=out.png)
hy_case(NAME conv_compare_all RANKS 1 JSON EXPECT "conv: naive .*device time" "conv: separable .*device time" "PASSED: conv: tiled"
  ARGS ${CONV_SMALL} conv.kernel=gaussian conv.ksize=5 conv.compare=naive,separable,vendor)

# bad configurations: exit 1, the key and what is allowed, nothing written
hy_case(NAME conv_bad_halo_nccl_host RANKS 2 EXIT 1
  EXPECT "conv.halo = nccl: device collectives are not available here: host backend \\(allowed here: auto or mpi\\)"
  ARGS run.workload=conv run.backend=host conv.halo=nccl)
hy_case(NAME conv_bad_even_ksize EXIT 1 EXPECT "key 'conv.ksize' = 4 is even \\(allowed: an odd size 1..63\\)"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.ksize=4 output.record=false output.npy=o.npy)
hy_case(NAME conv_bad_ksize_range EXIT 1 EXPECT "conv.ksize' = '65' is out of range"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.ksize=65 output.record=false)
hy_case(NAME conv_bad_laplacian_renormalise EXIT 1
  EXPECT "laplacian 3x3 .*boundary renormalise: the weight of the taps inside the image is 0 at pixel \\(row 1, column 1\\)"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=laplacian output.record=false output.npy=o.npy)
hy_case(NAME conv_bad_separable_sharpen EXIT 1 EXPECT "conv.algorithm' = separable needs a separable kernel"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.algorithm=separable output.record=false)
hy_case(NAME conv_bad_grid RANKS 2 EXIT 1 EXPECT "conv.grid' = 3x1 needs 3 ranks, but the run has 2"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.grid=3x1 output.record=false)
hy_case(NAME conv_bad_compare EXIT 1 EXPECT "conv.compare' = 'naive,blur': 'blur' is not a variant"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.compare=naive,blur output.record=false)
hy_case(NAME conv_bad_tile_smaller_than_halo RANKS 2 EXIT 1
  EXPECT "tiles of 43 x 30 pixels, smaller than the halo ksize / 2 = 31"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.ksize=63 output.record=false output.npy=o.npy)
hy_case(NAME conv_bad_file_missing_key EXIT 1 EXPECT "conv.file' is required when conv.image = file"
  RUNCASE --no-files ARGS run.workload=conv conv.image=file output.record=false)
if(HYBRID_HAVE_FFTW)
  # the host's fft (FFTW) within its tolerance of the reference, beside tiled, 2 ranks, every boundary
  foreach(b renormalise zero clamp reflect)
    hy_case(NAME conv_fft_host_${b} RANKS 2 JSON EXPECT "conv: fft .*check: max error" "PASSED: conv: fft"
      REJECT "FAILED" ARGS ${CONV_SMALL} run.backend=host conv.algorithm=fft conv.compare=tiled conv.kernel=gaussian
      conv.ksize=7 conv.passes=3 conv.boundary=${b})
  endforeach()
  hy_case(NAME conv_fft_host_double RANKS 1 JSON EXPECT "PASSED: conv: fft" ARGS ${CONV_SMALL} run.backend=host
    conv.algorithm=fft conv.precision=double conv.kernel=file conv.kernel_file=${CONV_DATA}/emboss.csv conv.boundary=clamp)
else()
  hy_case(NAME conv_bad_fft_on_host EXIT 1 EXPECT "conv.algorithm = fft is not available on the host backend"
    ARGS ${CONV_SMALL} run.backend=host conv.algorithm=fft output.record=false)
endif()

# bad input files: exit 2 naming the file and what was wrong, nothing written under the output names
hy_case(NAME conv_bad_png_missing RANKS 2 EXIT 2 EXPECT "/nonexistent/x.png: cannot open the image"
  RUNCASE --no-files ARGS run.workload=conv conv.image=file conv.file=/nonexistent/x.png output.record=false output.npy=o.npy output.image=o.png)
hy_case(NAME conv_bad_png_signature RANKS 2 EXIT 2 EXPECT "notpng.png: not a PNG file \\(the first 8 bytes"
  RUNCASE --no-files ARGS run.workload=conv conv.image=file conv.file=${CONV_DATA}/notpng.png output.record=false output.npy=o.npy)
hy_case(NAME conv_bad_png_truncated EXIT 2 EXPECT "truncated.png: not a readable PNG: "
  RUNCASE --no-files ARGS run.workload=conv conv.image=file conv.file=${CONV_DATA}/truncated.png output.record=false output.image=o.png)
hy_case(NAME conv_bad_kernel_ragged RANKS 2 EXIT 2 EXPECT "ragged.csv:2: 2 values, the rows above have 3"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=${CONV_DATA}/ragged.csv output.record=false output.npy=o.npy)
hy_case(NAME conv_bad_kernel_even EXIT 2 EXPECT "even.csv: the kernel is 2 x 2 \\(allowed: square, odd size"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=${CONV_DATA}/even.csv output.record=false)
hy_case(NAME conv_bad_kernel_nan EXIT 2 EXPECT "nan.csv:1: column 2 is not a finite number"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=${CONV_DATA}/nan.csv output.record=false)
hy_case(NAME conv_bad_kernel_rect_mtx EXIT 2 EXPECT "rect.mtx: the kernel is 3 x 5"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=${CONV_DATA}/rect.mtx output.record=false)
hy_case(NAME conv_bad_kernel_mtx_entry EXIT 2 EXPECT "badentry.mtx:5: non-numeric value 'x'"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=${CONV_DATA}/badentry.mtx output.record=false)
hy_case(NAME conv_bad_kernel_missing EXIT 2 EXPECT "/nonexistent/k.csv: cannot open the kernel file"
  RUNCASE --no-files ARGS ${CONV_SMALL} conv.kernel=file conv.kernel_file=/nonexistent/k.csv output.record=false)

# one rank fails inside the passes (the longest stage): the job ends within 10 s
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE CONV_MPIEXEC_VERSION ERROR_QUIET)
if(CONV_MPIEXEC_VERSION MATCHES "HYDRA")
  set(CONV_ABORT3 3)
else()
  set(CONV_ABORT3 nonzero)
endif()
foreach(np 2 3)
  hy_case(NAME conv_fail_solve_np${np} RANKS ${np} EXIT ${CONV_ABORT3} TIMEOUT 30
    EXPECT "hybrid: rank 1 on [^ :]+: injected failure \\(\\[debug\\] fail_rank = 1, fail_stage = solve\\)"
    REJECT "^PASSED" "^record:" RUNCASE --timeout 10
    ARGS run.workload=conv conv.width=301 conv.height=203 conv.passes=200 debug.fail_rank=1 debug.fail_stage=solve debug.fail_code=3)
endforeach()

if(TARGET hybrid-validate)
  add_test(NAME conv_validate_petsc COMMAND ${CONV_CHECK} --validate=$<TARGET_FILE:hybrid-validate>
    --workdir ${HY_TEST_OUT}/conv_validate validate)
  set_tests_properties(conv_validate_petsc PROPERTIES LABELS "validate;mpi" TIMEOUT 300 PROCESSORS 2
    SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "PASSED: conv validate")
endif()

if(HYBRID_GPU_TESTS)
  add_test(NAME conv_gpu_vs_host COMMAND ${CONV_CHECK} --workdir ${HY_TEST_OUT}/conv_gpu gpu)
  set_tests_properties(conv_gpu_vs_host PROPERTIES LABELS "gpu" TIMEOUT 600 PASS_REGULAR_EXPRESSION "PASSED: conv gpu")
  # the tiled variant's RGBA float fast path (ksize 3, 5, 7, every boundary, 1 and 2 ranks)
  add_test(NAME conv_gpu_tiled_rgba COMMAND ${CONV_CHECK} --workdir ${HY_TEST_OUT}/conv_gpu_rgba gpu_rgba)
  set_tests_properties(conv_gpu_tiled_rgba PROPERTIES LABELS "gpu;mpi" TIMEOUT 600 PROCESSORS 2
    PASS_REGULAR_EXPRESSION "PASSED: conv gpu_rgba")
  hy_case(NAME conv_gpu_bench_small RANKS 1 LABELS gpu JSON
    EXPECT "conv: tiled .*kernel at [0-9.]+ x the memory floor" "vendor cuDNN kernel time" "PASSED: conv"
    ARGS ${CMAKE_SOURCE_DIR}/config/bench-conv.ini conv.width=4096 conv.height=4096)
endif()

# seed 002's conv tables (jobs/paper-tables.sh conv --small: host sizes): the three tables, a
# PNG, every measured cell a number, the ranks table identical; a failing run fails the command
add_test(NAME conv_paper_tables_small COMMAND ${HY_RUNCASE} --exit 0 --workdir ${HY_TEST_OUT}/conv_tables
  --expect "^\\| 1031 x 769 \\| n/a \\(figure lost\\) \\| n/a \\(figure lost\\) \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|"
  --expect "^\\| 31 \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| n/a"
  --expect "^\\| 3 \\| 1x3 \\| [0-9.]+ \\| [0-9.]+ \\| yes \\|$"
  --expect "seed002: PASSED: tables conv-seed, conv-ksize, conv-ranks" --reject "FAILED"
  --expect-file seed002-tables/seed002-conv-ksize.png
  -- bash ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh conv --small --bin $<TARGET_FILE:hybrid>)
set_tests_properties(conv_paper_tables_small PROPERTIES LABELS "slow;mpi" TIMEOUT 600 PROCESSORS 3)
add_test(NAME conv_paper_tables_failed_run COMMAND ${HY_RUNCASE} --exit 1 --workdir ${HY_TEST_OUT}/conv_tables_failed
  --expect "seed002: run seed_256x256 FAILED" --expect "seed002: FAILED: [0-9]+ run"
  --expect "paper-tables: FAILED: seed conv"
  -- bash ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh conv --small --bin /bin/false)
set_tests_properties(conv_paper_tables_failed_run PROPERTIES LABELS "unit" TIMEOUT 120)
