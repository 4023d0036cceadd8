# app/gen (the matrix generators): every generator against facts computed in the test (nnz from
# the stencil, signs, dominance, symmetry, rows in pieces as ranks make them, rows by hand); the
# 13-point convdiff2d13 through the spai workload at 1-3 ranks (nnz(A) printed, M identical).
add_executable(test_gen ${CMAKE_CURRENT_LIST_DIR}/test_gen.c)
target_link_libraries(test_gen PRIVATE hybrid_core)
add_test(NAME gen_unit COMMAND test_gen)
set_tests_properties(gen_unit PROPERTIES LABELS unit TIMEOUT 60)

# convdiff2d13 through the workload: 31^2 grid (the ranks' row ranges do not start at a grid line), nnz(A) = 13 * 961 - 20 * 31 + 4 = 11877 (the
# stencil count of test_gen), at 1 and 3 ranks, converged; M identical at 1, 2, 3 ranks
# (tests/spai/spai_check.py same-m; defined here because tests/spai/tests.cmake's spai_multi is
# included after this file)
foreach(r 1 3)
  hy_case(NAME gen_convdiff2d13_r${r} RANKS ${r} JSON TIMEOUT 60
    ARGS run.backend=host matrix.generator=convdiff2d13 matrix.size=961 matrix.peclet=1
    EXPECT "^matrix: convdiff2d13 on a 31\\^2 grid, peclet 1: n = 961, nnz\\(A\\) = 11877 \\(12\\.36 per row\\)"
           "^PASSED: BiCGSTAB \\(spai\\) converged" REJECT "(?i)\\bnan\\b"
    RUNCASE --json-field metrics.nnz_A=11877)
endforeach()
add_test(NAME gen_convdiff2d13_same_m
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/spai/spai_check.py same-m
    --mpiexec "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}" --bin ${HY_BIN}
    --workdir ${HY_TEST_OUT}/gen_convdiff2d13_same_m --ranks 1 2 3
    -- run.backend=host matrix.generator=convdiff2d13 matrix.size=961 matrix.peclet=2
       spai.levels=2 spai.max_col=16)
set_tests_properties(gen_convdiff2d13_same_m PROPERTIES LABELS unit TIMEOUT 180
  SKIP_RETURN_CODE 77 PROCESSORS 2)
