# sort: distributed sample sort (app/sort).  Host backend in CI: numpy as the reference at 1-3
# ranks for every type, distribution and local variant (sizes prime), .npy input files good and
# bad, bad configurations, the in-run check failing under [debug] perturb, one rank failing
# inside the sort stage.  CUDA vs host only with -DHYBRID_GPU_TESTS=ON (label gpu).
set(SORT_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/sort_check.py --hybrid $<TARGET_FILE:hybrid>
  --mpiexec ${MPIEXEC_EXECUTABLE} "--np-flag=${MPIEXEC_NUMPROC_FLAG}" "--preflags=${MPIEXEC_PREFLAGS}")
foreach(t int32 int64 float double)
  add_test(NAME sort_ranks_${t} COMMAND ${SORT_CHECK} --workdir ${HY_TEST_OUT}/sort_ranks_${t} --type ${t} ranks)
  set_tests_properties(sort_ranks_${t} PROPERTIES LABELS "mpi" TIMEOUT 300 PROCESSORS 3)
endforeach()
add_test(NAME sort_files COMMAND ${SORT_CHECK} --workdir ${HY_TEST_OUT}/sort_files files)
set_tests_properties(sort_files PROPERTIES LABELS "unit;mpi" TIMEOUT 300 PROCESSORS 3)

set(SORT_PASS "^PASSED: sort: ")
hy_case(NAME sort_default RANKS 1 JSON EXPECT ${SORT_PASS} "device time [0-9.]+ ms" "kernel time [0-9.]+ ms"
  "rate [0-9.]+ Gkeys/s" REJECT "CUB|floor"
  ARGS run.workload=sort sort.n=100003)
hy_case(NAME sort_config_ini RANKS 2 JSON EXPECT ${SORT_PASS} "distribution uniform, 2 rank"
  ARGS ${CMAKE_SOURCE_DIR}/config/sort.ini sort.n=200003)
# fewer keys than ranks (an empty rank), a single key
hy_case(NAME sort_tiny_3ranks RANKS 3 JSON EXPECT "PASSED: sort: 2 int64 keys sorted on 3 rank" "keys per rank 0 \\.\\. 1"
  ARGS run.workload=sort sort.n=2 sort.type=int64 sort.payload=index)
hy_case(NAME sort_one_key RANKS 2 JSON EXPECT "PASSED: sort: 1 float keys"
  ARGS run.workload=sort sort.n=1 sort.type=float sort.local=merge)
# bad configurations (exit 1, the key named)
hy_case(NAME sort_bad_no_file RANKS 1 EXIT 1 EXPECT "key 'sort.file' is required when sort.distribution = file"
  ARGS run.workload=sort sort.distribution=file)
hy_case(NAME sort_bad_n RANKS 1 EXIT 1 EXPECT "key 'sort.n' = '0' is out of range"
  ARGS run.workload=sort sort.n=0)
hy_case(NAME sort_bad_type RANKS 1 EXIT 1 EXPECT "key 'sort.type' = 'int16'.*int32\\|int64\\|float\\|double"
  ARGS run.workload=sort sort.type=int16)
hy_case(NAME sort_bad_merge_tile RANKS 1 EXIT 1 EXPECT "key 'sort.merge_tile' = '3000'.*2048\\|4096\\|8192\\|16384"
  ARGS run.workload=sort sort.merge_tile=3000)
hy_case(NAME sort_bad_index_output RANKS 1 EXIT 1 EXPECT "key 'output.sort_index' needs sort.payload = index"
  ARGS run.workload=sort output.sort_index=i.npy)
hy_case(NAME sort_bad_exchange_nccl_host RANKS 2 EXIT 1
  EXPECT "sort.exchange = nccl: device collectives are not available here: host backend \\(allowed here: auto or mpi\\)"
  ARGS run.workload=sort run.backend=host sort.exchange=nccl sort.n=1000)
hy_case(NAME sort_bad_file_missing RANKS 2 EXIT 2 EXPECT "/nonexistent/k.npy: cannot open the key file"
  RUNCASE --no-files ARGS run.workload=sort sort.distribution=file sort.file=/nonexistent/k.npy output.record=false output.sort_keys=k.npy)
# [debug] perturb: the in-run check must fail (exit 4, FAILED naming the figures)
foreach(np 1 2)
  hy_case(NAME sort_perturb_np${np} RANKS ${np} EXIT 4 JSON
    EXPECT "^FAILED: sort: [0-9]+ key\\(s\\) out of order.*multiset changed \\(count 50021 -> 50021, hash [0-9a-f]+ -> [0-9a-f]+\\) \\(\\[debug\\] perturb\\)"
    "multiset: count 50021 -> 50021, hash [0-9a-f]+ -> [0-9a-f]+ \\(CHANGED\\)"
    RUNCASE --json-field metrics.multiset_preserved=0
    ARGS run.workload=sort sort.n=50021 sort.type=double debug.perturb=0.25)
endforeach()
# a perturbation too small to break the order: only the multiset digest can see it
hy_case(NAME sort_perturb_digest_only RANKS 2 EXIT 4 JSON
  EXPECT "^FAILED: sort: 0 key\\(s\\) out of order, 0 tie\\(s\\) out of index order, 0 boundary\\(ies\\) out of order, multiset changed"
  RUNCASE --json-field metrics.multiset_preserved=0 --json-field metrics.inversions=0
  ARGS run.workload=sort sort.n=50021 sort.type=double sort.payload=index debug.perturb=1e-9)
# one rank fails inside the sort stage: the job ends within 10 s with its code
foreach(np 2 3)
  hy_case(NAME sort_fail_stage_np${np} RANKS ${np} EXIT 3 TIMEOUT 30
    EXPECT "rank 1 .*injected failure \\(\\[debug\\] fail_rank = 1, fail_stage = sort\\)"
    RUNCASE --timeout 10
    ARGS run.workload=sort sort.n=300007 debug.fail_rank=1 debug.fail_stage=sort debug.fail_code=3)
endforeach()

if(HYBRID_GPU_TESTS)
  add_test(NAME sort_gpu_vs_host COMMAND ${SORT_CHECK} --workdir ${HY_TEST_OUT}/sort_gpu gpu)
  set_tests_properties(sort_gpu_vs_host PROPERTIES LABELS "gpu" TIMEOUT 900 PROCESSORS 2)
  # local = merge on the GPU (shared-memory tiles of 2048 / 4096 / 8192 keys, tiled global
  # levels) against numpy's stable argsort at tile - 1, tile + 1, 3 tile + 5, 1, 100003 and
  # 1000003 keys, all-equal / sorted / reverse / signed-zero inputs, merge_path_from rotating
  add_test(NAME sort_gpu_merge_sizes COMMAND ${SORT_CHECK} --workdir ${HY_TEST_OUT}/sort_gpu_merge gpu_merge)
  set_tests_properties(sort_gpu_merge_sizes PROPERTIES LABELS "gpu" TIMEOUT 300 PASS_REGULAR_EXPRESSION "PASSED: sort gpu_merge")
  hy_case(NAME sort_gpu_bench_small RANKS 1 LABELS gpu JSON
    EXPECT ${SORT_PASS} "CUB DeviceRadixSort::SortKeys [0-9.]+ ms" "floor: the radix passes move"
    ARGS ${CMAKE_SOURCE_DIR}/config/bench-sort.ini run.backend=cuda sort.n=16777219)
endif()

# hybrid-validate sort: PETSc's sorts of the run's input against its output (3 ranks, every
# type, payload index), and planted faults the validator must report (exit 4)
if(TARGET hybrid-validate)
  add_test(NAME sort_validate_petsc COMMAND ${SORT_CHECK} --validate=$<TARGET_FILE:hybrid-validate>
    --workdir ${HY_TEST_OUT}/sort_validate validate)
  set_tests_properties(sort_validate_petsc PROPERTIES LABELS "validate;mpi" TIMEOUT 300 PROCESSORS 3)
endif()

# seed 002's sort tables (jobs/paper-tables.sh sort --small: host sizes): both tables, a PNG,
# every cell a number; a table whose runs fail must fail the command
add_test(NAME sort_paper_tables_small COMMAND ${HY_RUNCASE} --exit 0 --workdir ${HY_TEST_OUT}/sort_tables
  --expect "^\\| 1048583 \\| n/a \\(figure lost\\) \\| n/a \\(figure lost\\) \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\|"
  --expect "^\\| few_unique \\| [0-9.]+ / 1\\.0000 \\| [0-9.]+ / 1\\.0[0-4][0-9]+ \\| [0-9.]+ / 1\\.0[0-4][0-9]+ \\|$"
  --expect "seed002: PASSED: tables sort-sizes, sort-ranks" --reject "FAILED"
  --expect-file seed002-tables/seed002-sort-sizes.png
  -- bash ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh sort --small --bin $<TARGET_FILE:hybrid>)
set_tests_properties(sort_paper_tables_small PROPERTIES LABELS "slow;mpi" TIMEOUT 600 PROCESSORS 3)
add_test(NAME sort_paper_tables_failed_run COMMAND ${HY_RUNCASE} --exit 1 --workdir ${HY_TEST_OUT}/sort_tables_failed
  --expect "seed002: run sizes_65536_seed FAILED" --expect "seed002: FAILED: [0-9]+ run"
  --expect "paper-tables: FAILED: seed sort"
  -- bash ${CMAKE_SOURCE_DIR}/jobs/paper-tables.sh sort --small --bin /bin/false)
set_tests_properties(sort_paper_tables_failed_run PROPERTIES LABELS "unit" TIMEOUT 120)
