# tests/config/tests.cmake - configuration tests (included by tests/CMakeLists.txt):
#  - test_cfg: unit program (parser, every type, overrides, messages) linked to hybrid_core;
#  - hybrid_cfgtest: app/main.c with the registry of cfgtest.c (selftest + "cfgtest", a key of
#    every type), for the real/grid cases and the exit-4 path;
#  - one case per line of bad/CASES (bad files and command lines -> exit 1 + message);
#  - good configurations: config/selftest.ini at 1, 2, 3 ranks with a validated record,
#    overrides visible in the record, the embedded default, --help, --version.
# Note: this file is include()d, so its own folder is CMAKE_CURRENT_LIST_DIR.
set(HY_CFG_DIR ${CMAKE_CURRENT_LIST_DIR})
set(HY_SELFTEST_INI ${CMAKE_SOURCE_DIR}/config/selftest.ini)

add_executable(test_cfg ${HY_CFG_DIR}/test_cfg.c ${HY_CFG_DIR}/cfgtest.c)
target_link_libraries(test_cfg PRIVATE hybrid_core)
add_executable(hybrid_cfgtest ${CMAKE_SOURCE_DIR}/app/main.c ${HY_CFG_DIR}/cfgtest.c)
target_link_libraries(hybrid_cfgtest PRIVATE hybrid_core)
if(DEFINED HYBRID_WARN)
  target_compile_options(test_cfg PRIVATE ${HYBRID_WARN})
  target_compile_options(hybrid_cfgtest PRIVATE ${HYBRID_WARN})
endif()

add_test(NAME config_unit COMMAND test_cfg)
set_tests_properties(config_unit PROPERTIES LABELS unit TIMEOUT 30)

# ---------------------------------------------------------------- bad/CASES
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${HY_CFG_DIR}/bad/CASES)
file(STRINGS ${HY_CFG_DIR}/bad/CASES hy_cfg_lines)
set(HY_BIN_HYBRID ${HY_BIN})
foreach(line IN LISTS hy_cfg_lines)
  if(line MATCHES "^#" OR line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([^|]*)\\|([0-9]+)\\|(.+)$")
    message(FATAL_ERROR "tests/config/bad/CASES: bad line '${line}' (want ARGS|EXIT|REGEX)")
  endif()
  set(args_text "${CMAKE_MATCH_1}")
  set(code "${CMAKE_MATCH_2}")
  set(regex "${CMAKE_MATCH_3}")
  string(REPLACE " " ";" words "${args_text}")
  set(args "")
  foreach(w IN LISTS words)
    if(w STREQUAL "@selftest.ini")
      list(APPEND args ${HY_SELFTEST_INI})
    elseif(w MATCHES "\\.ini$")
      list(APPEND args ${HY_CFG_DIR}/bad/${w})
    else()
      list(APPEND args "${w}")
    endif()
  endforeach()
  string(REGEX REPLACE "\\.ini( |$)" "\\1" name "${args_text}")
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" name "${name}")
  string(REGEX REPLACE "^_|_$" "" name "${name}")
  set(name config_bad_${name})
  set(extra "")
  if(code EQUAL 1)
    set(extra EXPECT "^FAILED: configuration error \\(exit 1\\)" REJECT "^PASSED" "^record:"
      RUNCASE --no-files)
  endif()
  if(args_text MATCHES "cfgtest")
    set(HY_BIN $<TARGET_FILE:hybrid_cfgtest>)
  endif()
  hy_case(NAME ${name} RANKS 1 EXIT ${code} TIMEOUT 30 EXPECT "${regex}" ${extra} ARGS ${args})
  set(HY_BIN ${HY_BIN_HYBRID})
endforeach()

# A bad configuration at 2 and 3 ranks: every rank exits 1, rank 0 alone prints, no hang.
foreach(np 2 3)
  hy_case(NAME config_bad_np${np} RANKS ${np} EXIT 1 TIMEOUT 30
    EXPECT "unknown_key\\.ini:4: key 'size' is not known in section \\[selftest\\]"
    "^FAILED: configuration error \\(exit 1\\)"
    REJECT "^PASSED" "FAILED[^\n]*\n(.*\n)*FAILED" RUNCASE --no-files --timeout 25
    ARGS ${HY_CFG_DIR}/bad/unknown_key.ini)
endforeach()

# ---------------------------------------------------------------- good configurations
# config/selftest.ini passes at 1, 2, 3 ranks; one valid record each, with the rank count.
foreach(np 1 2 3)
  hy_case(NAME config_selftest_np${np} RANKS ${np} EXIT 0 JSON TIMEOUT 60
    EXPECT "workload selftest, ${np} rank\\(s\\)" "^config: .*config/selftest\\.ini$"
    "^record: results/selftest-[0-9-]+\\.json$" "^PASSED: selftest: 4 checks on ${np} rank"
    REJECT "FAILED" "hybrid: error" "warning: .*not read"
    RUNCASE --json-field ranks=${np} --json-field workload=selftest
    --json-field validation.passed=true --json-field config.run.workload=selftest
    --json-field config.selftest.copy_mib=16 --json-field unused_keys=[]
    ARGS ${HY_SELFTEST_INI})
endforeach()

# Overrides change the values the run uses and the record's config (an enum in any case is
# kept as declared; text with quotes and a backslash survives the JSON record).
hy_case(NAME config_override_np2 RANKS 2 EXIT 0 JSON TIMEOUT 60
  EXPECT "kernel: daxpy on host vs a long-double loop, n = 12345:" "^PASSED"
  RUNCASE --json-field config.selftest.n=12345 --json-field config.run.seed=7
  --json-field config.selftest.reps=2 --json-field config.run.backend=host --json-field backend=host
  "--json-field=config.run.name=say \"hi\" \\ back"
  ARGS ${HY_SELFTEST_INI} selftest.n=12345 run.seed=7 selftest.reps=2 run.backend=HOST
  "run.name=say \"hi\" \\ back")

# The embedded default (no arguments: the first workload of app/workloads.c) at 2 ranks.
hy_case(NAME config_default_np2 RANKS 2 EXIT 0 JSON TIMEOUT 60
  EXPECT "^config: \\(embedded default\\)$" "^PASSED: "
  RUNCASE "--json-field=config_file=(embedded default)"
  ARGS)

# --help: workloads, sections, keys with defaults and allowed values, exit codes.
hy_case(NAME config_help RANKS 1 EXIT 0 TIMEOUT 30
  EXPECT "^usage: mpiexec -n N hybrid \\[CONFIG\\.ini\\] \\[section\\.key=value \\.\\.\\.\\]"
  "^  selftest +check an allocation" "^  \\[run\\]$" "^  \\[output\\]$" "^  \\[debug\\]$"
  "^  \\[selftest\\]$" "^    workload +text +default 'selftest'"
  "(?s)embedded default configuration of the first registered workload\n\\(([a-z]+)\\) runs.*^workloads \\(\\[run\\] workload = NAME\\):\n  \\1 "
  "^A CONFIG that names no \\[run\\] workload runs 'selftest'"
  "^    backend +enum +default 'auto'. one of auto\\|cuda\\|host"
  "^    n +int +default '1000000'. an integer in \\[1, 10000000000\\]"
  "^    record +bool +default 'true'" "^  0  ok" "^  1  usage or configuration error"
  "^  2  input data error" "^  3  numerical failure" "^  4  validation failed" "^  5  system error"
  REJECT "FAILED" RUNCASE --no-files
  ARGS --help)

# --version: version and git id, nothing else.
hy_case(NAME config_version RANKS 1 EXIT 0 TIMEOUT 30
  EXPECT "^hybrid [0-9]+\\.[0-9]+\\.[0-9]+ \\(git [0-9A-Za-z._-]+\\)$"
  REJECT "FAILED" "PASSED" RUNCASE --no-files
  ARGS --version)

# Every numeric / enum / bool / grid key of the real registry (core + every workload of
# app/workloads.c) at both ends: min and max accepted and read back, one past each refused.
add_executable(test_keyranges ${HY_CFG_DIR}/test_keyranges.c)
target_link_libraries(test_keyranges PRIVATE hybrid_core)
add_test(NAME config_key_ranges COMMAND test_keyranges)
set_tests_properties(config_key_ranges PROPERTIES LABELS unit TIMEOUT 30)

# Keys nobody reads: for every workload of the registry, the other workloads' keys set in a file
# or on the command line are reported (cfg_unused), its own and the core's are not.
add_executable(test_unused ${HY_CFG_DIR}/test_unused.c)
target_link_libraries(test_unused PRIVATE hybrid_core)
add_test(NAME config_unused_keys_unit COMMAND test_unused)
set_tests_properties(config_unused_keys_unit PROPERTIES LABELS unit TIMEOUT 30)

# Keys nobody reads, end to end: a warning on rank 0 before the run naming each key and where it
# was set, the list in the record (unused_keys, always present); the run itself is unchanged.
hy_case(NAME config_unused_cmdline_np2 RANKS 2 EXIT 0 JSON TIMEOUT 60
  EXPECT "^hybrid: warning: 2 key\\(s\\) set but not read by workload selftest: gauss\\.n \\(command line\\), lle\\.k \\(command line\\)$"
  "^PASSED: selftest: 4 checks on 2 rank"
  REJECT "warning:[^\n]*\n(.*\n)*.*warning:"
  RUNCASE "--json-field=unused_keys=[\"gauss.n\", \"lle.k\"]" --json-field config.gauss.n=10
  ARGS ${HY_SELFTEST_INI} selftest.n=1000 selftest.copy_mib=1 gauss.n=10 lle.k=5)
hy_case(NAME config_unused_file_np1 RANKS 1 EXIT 0 JSON TIMEOUT 60
  EXPECT "^hybrid: warning: 2 key\\(s\\) set but not read by workload selftest: spai\\.tau \\([^ ]*unused_keys\\.ini:10\\), lle\\.k \\([^ ]*unused_keys\\.ini:12\\)$"
  "^PASSED: selftest"
  RUNCASE "--json-field=unused_keys=[\"spai.tau\", \"lle.k\"]"
  ARGS ${HY_CFG_DIR}/unused_keys.ini)
# `hybrid gauss.n=10`: no file, so the first registered workload's embedded default runs
hy_case(NAME config_unused_default_np1 RANKS 1 EXIT 0 JSON TIMEOUT 60
  EXPECT "^hybrid: warning: 1 key\\(s\\) set but not read by workload [a-z]+: gauss\\.n \\(command line\\)$"
  "^config: \\(embedded default\\)$" "^PASSED"
  RUNCASE "--json-field=unused_keys=[\"gauss.n\"]"
  ARGS gauss.n=10)
# no file and another workload selected: the embedded default's keys (the first workload's)
# are not the user's, so nothing is reported
hy_case(NAME config_unused_embedded_other_np1 RANKS 1 EXIT 0 JSON TIMEOUT 60
  EXPECT "^config: \\(embedded default\\)$" "^PASSED: selftest"
  REJECT "set but not read"
  RUNCASE "--json-field=unused_keys=[]"
  ARGS run.workload=selftest selftest.n=1000 selftest.copy_mib=1)

# The shipped configs set only what they mean to (tests/tools/config_defaults.py): every other
# key at its registry default, so that a default the H200 measurements chose is what a user of
# config/NAME.ini runs (config/lle.ini held cnd_top = tiles after the default became auto).
# The allowed keys are each file's problem size and workload.
set(HY_CFG_ALLOW_gauss run.workload gauss.n)
set(HY_CFG_ALLOW_spai run.workload matrix.generator matrix.size spai.tau)
set(HY_CFG_ALLOW_lle run.workload lle.n lle.trust_sample)
set(HY_CFG_ALLOW_gemm run.workload)
set(HY_CFG_ALLOW_sort run.workload sort.n)
set(HY_CFG_ALLOW_conv run.workload run.seed conv.width conv.height conv.passes)
set(HY_CFG_ALLOW_selftest selftest.copy_mib)
foreach(w gauss spai lle gemm sort conv selftest)
  add_test(NAME config_defaults_${w}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/config_defaults.py --bin ${HY_BIN_HYBRID}
            ${CMAKE_SOURCE_DIR}/config/${w}.ini --allow ${HY_CFG_ALLOW_${w}})
  set_tests_properties(config_defaults_${w} PROPERTIES LABELS unit TIMEOUT 60
    PASS_REGULAR_EXPRESSION "PASSED: .*${w}\\.ini" FAIL_REGULAR_EXPRESSION "FAILED")
endforeach()
