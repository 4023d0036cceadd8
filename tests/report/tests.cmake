# jobs/report.py on synthetic records (label unit; no Slurm, no MPI).  The plot checks run with
# a Python that has matplotlib (HY_PLOT_PYTHON, tests/CMakeLists.txt).
if(HY_PLOT_PYTHON)
  add_test(NAME report_tables_plots COMMAND ${HY_PLOT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/report/test_report.py
    ${CMAKE_SOURCE_DIR}/jobs/report.py ${HY_TEST_OUT}/report_tables_plots --plots)
else()
  add_test(NAME report_tables_plots COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/test_report.py
    ${CMAKE_SOURCE_DIR}/jobs/report.py ${HY_TEST_OUT}/report_tables_plots)
endif()
set_tests_properties(report_tables_plots PROPERTIES LABELS unit TIMEOUT 120)

# jobs/paper-tables.sh finds the seed's table script and passes the size and the binary in that
# script's terms: seed 000 at its smallest (n = 16, 32; seconds), the seed's figures beside ours;
# the tables, the CSV and (with a matplotlib Python) the two plots written
set(HY_PAPER_PLOTS "")
set(HY_PAPER_PLOTS_001 "")
set(HY_PAPER_PLOTS_004 "")
set(HY_PAPER_ENV "")
if(HY_PLOT_PYTHON)
  set(HY_PAPER_ENV ${CMAKE_COMMAND} -E env HYBRID_PYTHON=${HY_PLOT_PYTHON})
  set(HY_PAPER_PLOTS --expect-file tables/times.png --expect-file tables/speedup.png)
  set(HY_PAPER_PLOTS_001 --expect-file spai-tables-out/table4_speedup.png)
  set(HY_PAPER_PLOTS_004 --expect-file lle-experiments/knn_vs_n.png --expect-file lle-experiments/lle_swissroll_vs_n.png)
endif()
add_test(NAME paper_tables_dispatch_000
  COMMAND ${HY_RUNCASE} --workdir ${HY_TEST_OUT}/paper_tables_dispatch_000
    --expect "paper-tables: seed 000 --small: \\S+/jobs/gauss-seed-tables.sh --max 256 --reps 1 --bin \\S+"
    --expect "^ +32 \\|" --reject "^ +64 \\|"
    --expect-file tables/tables.txt --expect-file tables/times.csv ${HY_PAPER_PLOTS}
    --expect "^paper-tables: seed 000: gauss-seed-tables.sh done \\(exit 0\\)"
    -- ${HY_PAPER_ENV} ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh 000 --small --bin $<TARGET_FILE:hybrid> --max 32 --out tables)
set_tests_properties(paper_tables_dispatch_000 PROPERTIES LABELS unit TIMEOUT 120)

# seeds 001 (spai: Tables 3-5 on the SuiteSparse matrices and analogues, with PETSc's peers when
# the validator exists) and 004 (lle: the seed's experiments, tables + PNG) at CI size
add_test(NAME paper_tables_dispatch_001
  COMMAND ${HY_RUNCASE} --workdir ${HY_TEST_OUT}/paper_tables_dispatch_001 --timeout 500
    --expect "paper-tables: seed 001 --small: \\S+/jobs/spai-tables.sh" --expect "^tables: "
    --expect "ours SPAI +ours Jacobi +ours none"
    --expect-file spai-tables-out/tables.txt --expect-file spai-tables-out/table4.csv
    ${HY_PAPER_PLOTS_001}
    -- ${HY_PAPER_ENV} ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh 001 --small --bin $<TARGET_FILE:hybrid>)
set_tests_properties(paper_tables_dispatch_001 PROPERTIES LABELS "slow" TIMEOUT 600)
add_test(NAME paper_tables_dispatch_004
  COMMAND ${HY_RUNCASE} --workdir ${HY_TEST_OUT}/paper_tables_dispatch_004 --timeout 500
    --expect "paper-tables: seed 004 --small: \\S+/jobs/lle_experiments.py"
    --expect "^PASSED: lle experiments, 0 failed run" --expect "embed_swissroll_1000.png"
    --expect-file lle-experiments/tables.md --expect-file lle-experiments/embed_swissroll_1000.png
    ${HY_PAPER_PLOTS_004}
    -- ${HY_PAPER_ENV} ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh 004 --small --bin $<TARGET_FILE:hybrid>)
set_tests_properties(paper_tables_dispatch_004 PROPERTIES LABELS "slow" TIMEOUT 600)

# A table command fails when a run inside it fails: every run of the stand-in executable fails
# (exit 4); the table script and jobs/paper-tables.sh must then exit non-zero and say so.
add_test(NAME paper_tables_failed_run_004
  COMMAND ${HY_RUNCASE} --workdir ${HY_TEST_OUT}/paper_tables_failed_run_004 --exit 4 --timeout 200
    --expect "^FAILED: lle experiments, [1-9][0-9]* failed run"
    --expect "^paper-tables: FAILED: seed 004: lle_experiments.py exited 4"
    --reject "^PASSED"
    -- ${HY_PAPER_ENV} ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh 004 --small
      --bin ${CMAKE_CURRENT_SOURCE_DIR}/report/failing_hybrid.sh)
set_tests_properties(paper_tables_failed_run_004 PROPERTIES LABELS unit TIMEOUT 240)
add_test(NAME paper_tables_failed_run_000
  COMMAND ${HY_RUNCASE} --workdir ${HY_TEST_OUT}/paper_tables_failed_run_000 --exit 4 --timeout 100
    --expect "^gauss-seed-tables.sh: [1-9][0-9]* run\\(s\\) failed"
    --expect "^paper-tables: FAILED: seed 000: gauss-seed-tables.sh exited 4"
    --reject "^paper-tables: seed 000: .* done"
    -- ${HY_PAPER_ENV} ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh 000 --small
      --bin ${CMAKE_CURRENT_SOURCE_DIR}/report/failing_hybrid.sh --max 32 --out tables)
set_tests_properties(paper_tables_failed_run_000 PROPERTIES LABELS unit TIMEOUT 120)

# The device-machine scaling mode (no Slurm): jobs/scaling.sh --launcher mpiexec and the driver
# jobs/gpu-scaling.sh.  quick: --plan's estimates against the model, --deadline skipping a run, a
# failing run listed (the stand-in failing_hybrid.sh), scaling_summary.py's targets met / missed
# with the phase that grew; table: gpu-scaling.sh --small at 1 and 2 ranks (host backend), the
# report's totals, speedups and efficiencies recomputed from the records (strong: T1 / (P TP)),
# weak sizes, the summary and the tar.
add_test(NAME scaling_mpiexec_quick
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/test_scaling.py ${CMAKE_SOURCE_DIR}
    $<TARGET_FILE:hybrid> ${MPIEXEC_EXECUTABLE} ${HY_TEST_OUT}/scaling_mpiexec_quick quick)
set_tests_properties(scaling_mpiexec_quick PROPERTIES LABELS unit TIMEOUT 120)
if(HY_PLOT_PYTHON)
  add_test(NAME scaling_mpiexec_table
    COMMAND ${CMAKE_COMMAND} -E env HYBRID_PYTHON=${HY_PLOT_PYTHON} ${HY_PLOT_PYTHON}
      ${CMAKE_CURRENT_SOURCE_DIR}/report/test_scaling.py ${CMAKE_SOURCE_DIR} $<TARGET_FILE:hybrid>
      ${MPIEXEC_EXECUTABLE} ${HY_TEST_OUT}/scaling_mpiexec_table table --plots)
else()
  add_test(NAME scaling_mpiexec_table
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/test_scaling.py ${CMAKE_SOURCE_DIR}
      $<TARGET_FILE:hybrid> ${MPIEXEC_EXECUTABLE} ${HY_TEST_OUT}/scaling_mpiexec_table table)
endif()
set_tests_properties(scaling_mpiexec_table PROPERTIES LABELS mpi TIMEOUT 400)
# the same on the GPU (label gpu): every study of the small table on the CUDA backend at P = 1, and
# at 1 and 2 GPUs where 2 are visible (else skipped), each 2-rank run on 2 distinct devices
if(HYBRID_GPU_TESTS)
  add_test(NAME gpu_scaling_small_1gpu
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/test_scaling.py ${CMAKE_SOURCE_DIR}
      $<TARGET_FILE:hybrid> ${MPIEXEC_EXECUTABLE} ${HY_TEST_OUT}/gpu_scaling_small_1gpu table --gpus 1 --backend cuda)
  add_test(NAME gpu_scaling_small_2gpu
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/test_scaling.py ${CMAKE_SOURCE_DIR}
      $<TARGET_FILE:hybrid> ${MPIEXEC_EXECUTABLE} ${HY_TEST_OUT}/gpu_scaling_small_2gpu table --gpus 1,2
      --backend cuda --need-gpus 2)
  set_tests_properties(gpu_scaling_small_1gpu gpu_scaling_small_2gpu PROPERTIES LABELS gpu TIMEOUT 300)
  set_tests_properties(gpu_scaling_small_2gpu PROPERTIES SKIP_RETURN_CODE 77)
endif()
