# tests/io/tests.cmake - the I/O tests (included by tests/CMakeLists.txt).
#  - test_io: unit program linked to hybrid_core (round trips, expansions, errors, real matrices,
#    the malformed corpus read directly);
#  - one hy_case per line of bad/CASES, through `hybrid --inspect FILE` (exit code + message).
# Files named @gen/... in CASES are written at test time by `test_io gen` (fixture io_gen_bad).
# Note: this file is include()d, so its own folder is CMAKE_CURRENT_LIST_DIR.
set(HY_IO_DIR ${CMAKE_CURRENT_LIST_DIR})
set(HY_IO_OUT ${CMAKE_CURRENT_BINARY_DIR}/io)
set(HY_IO_GEN ${HY_IO_OUT}/gen)
file(MAKE_DIRECTORY ${HY_IO_OUT})

add_executable(test_io ${HY_IO_DIR}/test_io.c)
target_link_libraries(test_io PRIVATE hybrid_core)
if(DEFINED HYBRID_WARN)
  target_compile_options(test_io PRIVATE ${HYBRID_WARN})
endif()

add_test(NAME io_roundtrip COMMAND test_io roundtrip 0 ${HY_IO_OUT}/roundtrip)
add_test(NAME io_real COMMAND test_io real ${HY_SHARED_MATRICES} ${HY_IO_OUT}/real)
add_test(NAME io_bad_unit COMMAND test_io bad ${HY_IO_DIR}/bad/CASES ${HY_IO_DIR}/bad ${HY_IO_OUT}/gen_unit)
set_tests_properties(io_roundtrip io_real io_bad_unit PROPERTIES LABELS unit TIMEOUT 300)
set_tests_properties(io_real PROPERTIES SKIP_RETURN_CODE 77)

add_test(NAME io_gen_bad COMMAND test_io gen ${HY_IO_GEN})
set_tests_properties(io_gen_bad PROPERTIES LABELS unit FIXTURES_SETUP io_gen_bad)

# one executable-level case per manifest line: name exit file mem fragment
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${HY_IO_DIR}/bad/CASES)
file(STRINGS ${HY_IO_DIR}/bad/CASES hy_io_lines)
foreach(line IN LISTS hy_io_lines)
  if(line MATCHES "^[ \t]*(#|$)")
    continue()
  endif()
  if(NOT line MATCHES "^([A-Za-z0-9_]+)[ \t]+([0-9]+)[ \t]+([^ \t]+)[ \t]+([^ \t]+)[ \t]+(.+)$")
    message(FATAL_ERROR "tests/io/bad/CASES: cannot parse line: ${line}")
  endif()
  set(c_name ${CMAKE_MATCH_1})
  set(c_exit ${CMAKE_MATCH_2})
  set(c_file ${CMAKE_MATCH_3})
  set(c_mem ${CMAKE_MATCH_4})
  set(c_frag "${CMAKE_MATCH_5}")
  set(c_gen OFF)
  if(c_file MATCHES "^@gen/(.*)$")
    set(c_path ${HY_IO_GEN}/${CMAKE_MATCH_1})
    set(c_gen ON)
  else()
    set(c_path ${HY_IO_DIR}/bad/${c_file})
  endif()
  hy_case(NAME io_bad_${c_name} RANKS 1 EXIT ${c_exit} EXPECT "${c_frag}" TIMEOUT 60
          ARGS --inspect ${c_path})
  if(c_gen)
    set_tests_properties(io_bad_${c_name} PROPERTIES FIXTURES_REQUIRED io_gen_bad)
  endif()
  if(NOT c_mem STREQUAL "-")
    set_tests_properties(io_bad_${c_name} PROPERTIES ENVIRONMENT "HYBRID_IO_MEM_LIMIT=${c_mem}")
  endif()
endforeach()
