# tests/tools/tests.cmake - the test tools' own cases (included by tests/CMakeLists.txt):
#  - fixtures_matrices / fixtures_python: the fixtures exist (../shared/matrices with the
#    files the tests read; numpy, scipy, scikit-learn, matplotlib for the checkers).  They fail
#    when one is missing, unless -DHYBRID_TEST_FIXTURES=optional (then they skip, exit 77);
#  - fixtures_selftest: fixtures.py itself fails (exit 1) on a missing folder and module, and
#    skips (77) with --optional;
#  - shape_selftest: tests/tools/shape.sh finds each planted violation in tests/tools/shape_fixture;
#  - shape_tree: shape.sh passes on the real tree.
set(HY_TOOLS_DIR ${CMAKE_CURRENT_LIST_DIR})
set(HY_FIXTURES ${Python3_EXECUTABLE} ${HY_TOOLS_DIR}/fixtures.py)
set(HY_FIXTURES_OPT "")
if(HYBRID_TEST_FIXTURES STREQUAL "optional")
  set(HY_FIXTURES_OPT --optional)
endif()
add_test(NAME fixtures_matrices COMMAND ${HY_FIXTURES} matrices ${HY_SHARED_MATRICES}
  ${HY_SHARED_MATRIX_FILES} ${HY_FIXTURES_OPT})
set(HY_MPL_PYTHON ${HY_PLOT_PYTHON})
if(NOT HY_MPL_PYTHON)
  set(HY_MPL_PYTHON ${Python3_EXECUTABLE})
endif()
add_test(NAME fixtures_python COMMAND ${CMAKE_COMMAND} -E env
  sh -c "\"$0\" \"$1\" python numpy scipy sklearn matplotlib $2 && \"$3\" \"$1\" python matplotlib $2"
  ${Python3_EXECUTABLE} ${HY_TOOLS_DIR}/fixtures.py "${HY_FIXTURES_OPT}" ${HY_MPL_PYTHON})
set_tests_properties(fixtures_matrices fixtures_python PROPERTIES LABELS unit TIMEOUT 60
  SKIP_RETURN_CODE 77)
add_test(NAME fixtures_selftest COMMAND ${HY_RUNCASE} --exit 0
  --expect "^FAILED: fixture missing: the folder /nonexistent/matrices"
  --expect "^FAILED: fixture missing: Python module no_such_module_hy"
  --expect "^SKIP: 2 fixture\\(s\\) missing"
  -- sh -c "\"$0\" \"$1\" matrices /nonexistent/matrices a.mtx; [ $? = 1 ] || exit 9; \"$0\" \"$1\" python no_such_module_hy; [ $? = 1 ] || exit 9; \"$0\" \"$1\" matrices /nonexistent/matrices a.mtx --optional >/dev/null; [ $? = 77 ] || exit 9; \"$0\" \"$1\" python no_such_module_hy nor_this_hy --optional; [ $? = 77 ] || exit 9"
  ${Python3_EXECUTABLE} ${HY_TOOLS_DIR}/fixtures.py)
set_tests_properties(fixtures_selftest PROPERTIES LABELS unit TIMEOUT 60)
add_test(NAME shape_selftest COMMAND ${HY_TOOLS_DIR}/shape_selftest.sh)
set_tests_properties(shape_selftest PROPERTIES LABELS unit TIMEOUT 60)
# the real tree follows the shape rules (DESIGN.md): every violation printed as file:line: what
add_test(NAME shape_tree COMMAND ${HY_TOOLS_DIR}/shape.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(shape_tree PROPERTIES LABELS unit TIMEOUT 60)
