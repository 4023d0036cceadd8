# jobs/spai-tables.sh on the host at tiny sizes (tests/jobs/test_spai_tables.py parses what it
# prints and compares it with closed forms and the runs' records): the analogue check (rows and
# nonzeros per row within 10% of the paper's, venkat01 and cfd2 distinct), planted misses that
# must stop it (exit 1), Tables 3 and 6 against their records, Table 6 without the matrices
set(HY_SPAI_TABLES ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_spai_tables.py)
foreach(mode analogues miss tiny table6 nomatrices)
  add_test(NAME spai_tables_${mode} COMMAND ${HY_SPAI_TABLES} ${mode}
    --script ${CMAKE_SOURCE_DIR}/jobs/spai-tables.sh --bin ${HY_BIN}
    --workdir ${HY_TEST_OUT}/spai_tables_${mode} --matrices ${HY_SHARED_MATRICES})
  set_tests_properties(spai_tables_${mode} PROPERTIES LABELS unit TIMEOUT 180 SKIP_RETURN_CODE 77)
endforeach()
