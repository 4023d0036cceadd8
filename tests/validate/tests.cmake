# tests/validate: hybrid-validate (validate/), label validate.  Registered only when the
# validator is built (PETSc, SLEPc and PETSc's compiler found; validate/CMakeLists.txt says why
# not otherwise).  The validator runs as a singleton (no mpiexec), through tools/runcase.py.
# Data: gen_systems.py writes seeded random systems (x_true drawn, b = A x_true computed in
# Python, independently of app/io) to ${HY_TEST_OUT}/validate_data (fixture validate_data).
if(NOT TARGET hybrid-validate)
  return()
endif()

# the validator links the MPI library that libpetsc links (built with PETSc's own compiler)
add_test(NAME validate_build_mpi
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/build_mpi.sh $<TARGET_FILE:hybrid-validate> ${HYBRID_PETSC_LIBRARY_DIRS})
set_tests_properties(validate_build_mpi PROPERTIES LABELS "validate;unit" TIMEOUT 30)

set(HYV_DATA ${HY_TEST_OUT}/validate_data)
set(HYV_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
# the last line of a run: "PASSED: ..." / "FAILED: ..."
set(HYV_LAST_PASSED "^PASSED: [^\n]*\n?\\Z")
set(HYV_LAST_FAILED "^FAILED: [^\n]*\n?\\Z")

add_test(NAME validate_gen
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/gen_systems.py ${HYV_DATA} --seed 20261130)
set_tests_properties(validate_gen PROPERTIES LABELS validate TIMEOUT 60
  FIXTURES_SETUP validate_data)

# hyv_case(NAME n [EXIT code] [EXPECT regex...] [REJECT regex...] ARGS validator-arguments...)
# Runs `hybrid-validate ARGS` in a fresh folder (which must stay empty: the validator writes
# no file) and checks exit code and output.  An argument "@NAME" stands for the data file
# ${HYV_DATA}/NAME.
function(hyv_case)
  cmake_parse_arguments(C "" "NAME;EXIT" "EXPECT;REJECT;ARGS" ${ARGN})
  if(NOT DEFINED C_EXIT)
    set(C_EXIT 0)
  endif()
  set(opts --exit ${C_EXIT} --timeout 60 --no-files --workdir ${HY_TEST_OUT}/${C_NAME})
  foreach(e IN LISTS C_EXPECT)
    list(APPEND opts --expect "${e}")
  endforeach()
  foreach(e IN LISTS C_REJECT)
    list(APPEND opts --reject "${e}")
  endforeach()
  set(args "")
  foreach(a IN LISTS C_ARGS)
    if(a MATCHES "^@(.*)$")
      list(APPEND args ${HYV_DATA}/${CMAKE_MATCH_1})
    else()
      list(APPEND args "${a}")
    endif()
  endforeach()
  add_test(NAME ${C_NAME} COMMAND ${HY_RUNCASE} ${opts} -- $<TARGET_FILE:hybrid-validate> ${args})
  set_tests_properties(${C_NAME} PROPERTIES LABELS validate TIMEOUT 90
    FIXTURES_REQUIRED validate_data ENVIRONMENT "${HYV_ENV}")
endfunction()

# ---- the executable: OpenMPI + PETSc, never the app's MPICH
add_test(NAME validate_links_openmpi
  COMMAND ${HY_RUNCASE} --exit 0 --expect "libpetsc" --expect "libmpi\\.so\\.40" --reject "mpich"
          -- ldd $<TARGET_FILE:hybrid-validate>)
set_tests_properties(validate_links_openmpi PROPERTIES LABELS validate TIMEOUT 30)

# ---- correct solutions pass (x_true vs PETSc's LU)
hyv_case(NAME validate_solve_dense
  EXPECT "MATSEQDENSE" "x - x_petsc" "${HYV_LAST_PASSED}"
  ARGS solve -dense -A @dense_A.mtx -b @dense_b.mtx -x @dense_x.mtx)
hyv_case(NAME validate_solve_dense_as_aij_petsc
  EXPECT "MATSEQAIJ" "${HYV_LAST_PASSED}"
  ARGS solve -A @dense_A.petsc -b @dense_b.mtx -x @dense_x.mtx)
hyv_case(NAME validate_solve_dense_petsc_as_dense
  EXPECT "MATSEQDENSE" "${HYV_LAST_PASSED}"
  ARGS solve -dense -A @dense_A.petsc -b @dense_b.mtx -x @dense_x.mtx -tol 1e-10)
hyv_case(NAME validate_solve_sparse_mm_gz
  EXPECT "200 x 200" "${HYV_LAST_PASSED}"
  ARGS solve -A @sparse_A.mtx.gz -b @sparse_b.mtx -x @sparse_x.mtx)
hyv_case(NAME validate_solve_sparse_petsc
  EXPECT "${HYV_LAST_PASSED}"
  ARGS solve -A @sparse_A.petsc -b @sparse_b.petsc -x @sparse_x.petsc -tol 1e-10)
hyv_case(NAME validate_solve_sparse_mixed_formats
  EXPECT "${HYV_LAST_PASSED}"
  ARGS solve -A @sparse_A.mtx.gz -b @sparse_b.petsc -x @sparse_x.mtx)
hyv_case(NAME validate_solve_symmetric_storage
  EXPECT "${HYV_LAST_PASSED}"
  ARGS solve -A @spd_A.mtx -b @spd_b.mtx -x @spd_x.mtx)
# PETSc options after "--" reach PETSc: PETSc's own (non-pivoting) LU on a dominant diagonal
hyv_case(NAME validate_solve_petsc_options
  EXPECT "solver petsc\\)" "${HYV_LAST_PASSED}"
  ARGS solve -A @sparse_A.petsc -b @sparse_b.petsc -x @sparse_x.petsc -- -pc_factor_mat_solver_type petsc)
hyv_case(NAME validate_solve_no_x
  EXPECT "backward error of x_petsc" "^PASSED: PETSc LU solve.*no -x given"
  REJECT "given x"
  ARGS solve -A @sparse_A.petsc -b @sparse_b.petsc)

# ---- wrong solutions fail with exit 4 (and pass under a tolerance they meet)
hyv_case(NAME validate_solve_wrong_x_dense EXIT 4
  EXPECT "^FAILED: .*x - x_petsc.* > tol" "${HYV_LAST_FAILED}"
  ARGS solve -dense -A @dense_A.mtx -b @dense_b.mtx -x @dense_x_wrong.mtx)
hyv_case(NAME validate_solve_wrong_x_sparse EXIT 4
  EXPECT "^FAILED: .*> tol 1\\.000e-08" "${HYV_LAST_FAILED}"
  ARGS solve -A @sparse_A.petsc -b @sparse_b.petsc -x @sparse_x_wrong.petsc)
hyv_case(NAME validate_solve_wrong_x_loose_tol
  EXPECT "${HYV_LAST_PASSED}"
  ARGS solve -A @sparse_A.petsc -b @sparse_b.petsc -x @sparse_x_wrong.petsc -tol 1e-3)

# ---- malformed or inconsistent input files: exit 2 with the reader's message
hyv_case(NAME validate_solve_bad_index EXIT 2
  EXPECT "bad_index\\.mtx:4: row index 4 out of range" "${HYV_LAST_FAILED}"
  ARGS solve -A @bad_index.mtx -b @sparse_b.mtx)
hyv_case(NAME validate_solve_truncated_petsc EXIT 2
  EXPECT "bad_truncated\\.petsc: truncated" "${HYV_LAST_FAILED}"
  ARGS solve -A @bad_truncated.petsc -b @sparse_b.petsc)
hyv_case(NAME validate_solve_nan_x EXIT 2
  EXPECT "sparse_x_nan\\.petsc.*NaN" "${HYV_LAST_FAILED}"
  ARGS solve -A @sparse_A.petsc -b @sparse_b.petsc -x @sparse_x_nan.petsc)
hyv_case(NAME validate_solve_b_length EXIT 2
  EXPECT "b has 199 entries but A .* is 200 x 200" "${HYV_LAST_FAILED}"
  ARGS solve -A @sparse_A.petsc -b @sparse_b_short.mtx)
hyv_case(NAME validate_solve_not_square EXIT 2
  EXPECT "A is 3 x 2; solve needs a square matrix" "${HYV_LAST_FAILED}"
  ARGS solve -A @rect_A.mtx -b @rect_b.mtx)
hyv_case(NAME validate_solve_missing_file EXIT 2
  EXPECT "no_such_file\\.mtx: cannot open" "${HYV_LAST_FAILED}"
  ARGS solve -A @no_such_file.mtx -b @sparse_b.mtx)

# ---- singular A: the reference cannot be trusted, exit 3
hyv_case(NAME validate_solve_singular_aij EXIT 3
  EXPECT "singular" "${HYV_LAST_FAILED}"
  ARGS solve -A @singular_A.mtx -b @singular_b.mtx)
hyv_case(NAME validate_solve_singular_dense EXIT 3
  EXPECT "relative residual .* > 1\\.000e-06 \\(-rres\\)" "${HYV_LAST_FAILED}"
  ARGS solve -dense -A @singular_dense_A.mtx -b @singular_b.mtx)
hyv_case(NAME validate_solve_zero_pivot_dense EXIT 3
  EXPECT "zero pivot" "${HYV_LAST_FAILED}"
  ARGS solve -dense -A @zerocol_A.mtx -b @singular_b.mtx)

# ---- usage errors: exit 1
hyv_case(NAME validate_usage_none EXIT 1
  EXPECT "usage: hybrid-validate SUBCOMMAND" "no subcommand given" "${HYV_LAST_FAILED}")
hyv_case(NAME validate_usage_unknown_subcommand EXIT 1
  EXPECT "unknown subcommand 'eigen'" "${HYV_LAST_FAILED}"
  ARGS eigen -A @dense_A.mtx)
hyv_case(NAME validate_usage_missing_b EXIT 1
  EXPECT "option '-b' is required" "${HYV_LAST_FAILED}"
  ARGS solve -A @dense_A.mtx)
hyv_case(NAME validate_usage_unknown_option EXIT 1
  EXPECT "unknown option '-rhs'" "${HYV_LAST_FAILED}"
  ARGS solve -A @dense_A.mtx -rhs @dense_b.mtx)
hyv_case(NAME validate_usage_bad_tol EXIT 1
  EXPECT "'-tol': 'tiny' is not a finite real number" "${HYV_LAST_FAILED}"
  ARGS solve -A @dense_A.mtx -b @dense_b.mtx -tol tiny)
hyv_case(NAME validate_usage_negative_tol EXIT 1
  EXPECT "solve: -tol -1 must be >= 0" "${HYV_LAST_FAILED}"
  ARGS solve -A @dense_A.mtx -b @dense_b.mtx -tol -1)
hyv_case(NAME validate_help EXIT 0
  EXPECT "^  solve " "exit codes:"
  ARGS --help)
hyv_case(NAME validate_solve_help EXIT 0
  EXPECT "usage: hybrid-validate solve" "[-]dense +MATSEQDENSE"
  ARGS solve -h)
