# Slurm end-to-end tests (label slurm): a private 1-node Slurm cluster (slurmctld + slurmd from
# Debian's slurm-wlm, no munge, 8 CPUs and 4 fake GPUs declared) is started by the fixture test
# slurm_cluster_start and stopped by slurm_cluster_stop, which ctest runs even when tests fail;
# its state lives in <build>/tests/slurm-cluster and a watchdog stops it after 15 minutes in case
# ctest itself is killed.  Each test submits a jobs/*.slurm script with sbatch as a user would
# and checks Slurm's job state and exit code, the log and the JSON records.
# HYBRID_SLURM_TESTS: AUTO (register when slurmctld/slurmd/sbatch are installed), ON (required),
# OFF.  The tests need root (slurmd starts jobs as the submitting user), as in CI.
set(HYBRID_SLURM_TESTS AUTO CACHE STRING "Slurm end-to-end tests: AUTO, ON or OFF")
find_program(HY_SLURMCTLD slurmctld PATHS /usr/sbin /usr/local/sbin)
find_program(HY_SLURMD slurmd PATHS /usr/sbin /usr/local/sbin)
find_program(HY_SBATCH sbatch)
execute_process(COMMAND id -u OUTPUT_VARIABLE _hy_uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(_hy_slurm_ok FALSE)
if(HY_SLURMCTLD AND HY_SLURMD AND HY_SBATCH AND _hy_uid STREQUAL "0")
  set(_hy_slurm_ok TRUE)
endif()
if(HYBRID_SLURM_TESTS STREQUAL "ON" AND NOT _hy_slurm_ok)
  message(FATAL_ERROR "HYBRID_SLURM_TESTS=ON but slurmctld/slurmd/sbatch were not found "
    "(Debian: apt-get install slurm-wlm) or CMake does not run as root (slurmd must)")
endif()

if(NOT HY_PLOT_PYTHON)
  message(STATUS "hybrid: no python3 with matplotlib: report plot tests are skipped (apt-get install python3-matplotlib)")
endif()

set(HY_SLURM_DIR ${CMAKE_CURRENT_SOURCE_DIR}/slurm)
set(HY_JOBS_DIR ${CMAKE_SOURCE_DIR}/jobs)

# lint: scripts parse, the common body is the same in every jobs/*.slurm, argument errors
add_test(NAME slurm_scripts_lint COMMAND bash ${HY_SLURM_DIR}/lint.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(slurm_scripts_lint PROPERTIES LABELS "slurm;unit" TIMEOUT 60)

if(NOT HYBRID_SLURM_TESTS STREQUAL "OFF" AND _hy_slurm_ok)
  set(HY_CLUSTER ${CMAKE_CURRENT_BINARY_DIR}/slurm-cluster)
  set(HY_SLURM_OUT ${HY_TEST_OUT}/slurm)
  add_test(NAME slurm_cluster_start
    COMMAND ${Python3_EXECUTABLE} ${HY_SLURM_DIR}/cluster.py start ${HY_CLUSTER} --cpus 8 --gpus 4 --lifetime 900)
  set_tests_properties(slurm_cluster_start PROPERTIES FIXTURES_SETUP slurm_cluster LABELS slurm TIMEOUT 60)
  add_test(NAME slurm_cluster_stop COMMAND ${Python3_EXECUTABLE} ${HY_SLURM_DIR}/cluster.py stop ${HY_CLUSTER})
  set_tests_properties(slurm_cluster_stop PROPERTIES FIXTURES_CLEANUP slurm_cluster LABELS slurm TIMEOUT 60)

  # hy_slurm_test(NAME name TIMEOUT s [TWO_NODES] ARGS slurmtest.py-arguments...)
  # TWO_NODES: on the two-node cluster (fixture slurm_cluster2) instead of the one-node one
  function(hy_slurm_test)
    cmake_parse_arguments(S "TWO_NODES" "NAME;TIMEOUT" "ARGS" ${ARGN})
    if(NOT S_TIMEOUT)
      set(S_TIMEOUT 90)
    endif()
    set(cluster ${HY_CLUSTER})
    set(fixture slurm_cluster)
    if(S_TWO_NODES)
      set(cluster ${HY_CLUSTER2})
      set(fixture slurm_cluster2)
    endif()
    math(EXPR inner "${S_TIMEOUT} - 20")
    add_test(NAME ${S_NAME}
      COMMAND ${Python3_EXECUTABLE} ${HY_SLURM_DIR}/slurmtest.py
        --cluster ${cluster} --src ${CMAKE_SOURCE_DIR} --bindir $<TARGET_FILE_DIR:hybrid>
        --workdir ${HY_SLURM_OUT}/${S_NAME} --timeout ${inner} ${S_ARGS})
    # RUN_SERIAL: the jobs share the cluster's 4 GPUs and the machine's cores
    set_tests_properties(${S_NAME} PROPERTIES FIXTURES_REQUIRED ${fixture} LABELS slurm
      TIMEOUT ${S_TIMEOUT} SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
  endfunction()

  # the allocation check exactly as a user submits it: no arguments (config/selftest.ini,
  # build/hybrid found from the submit dir), 4 ranks with 4 distinct GPUs
  hy_slurm_test(NAME slurm_selftest_default ARGS job --script selftest.slurm
    --gpus 4 --records 1 --record-status passed --ranks 4
    --expect "^job: srun --mpi=\\S+ \\S+/build/hybrid config/selftest.ini output.dir=results/[0-9]+"
    --expect "^PASSED: selftest"
    --expect "^job: hybrid exited 0")
  # the installed job script (tests/install: install_prefix installs into its prefix), submitted
  # from a folder with neither build/ nor config/: PREFIX/bin/hybrid, PREFIX's selftest.ini
  set(_hy_prefix ${HY_TEST_OUT}/install_prefix/prefix)
  hy_slurm_test(NAME slurm_installed_job ARGS job --src ${_hy_prefix}/share/hybrid
    --no-build-link --no-config-link --script selftest.slurm --records 1 --record-status passed --ranks 4
    --expect "^job: executable ${_hy_prefix}/bin/hybrid$"
    --expect "^job: config ${_hy_prefix}/share/hybrid/config/selftest.ini"
    --expect "^PASSED: selftest" --expect "^job: hybrid exited 0")
  set_tests_properties(slurm_installed_job PROPERTIES FIXTURES_REQUIRED "slurm_cluster;hybrid_installed")
  # --cpus-per-task reaches the ranks (SRUN_CPUS_PER_TASK): hybrid's threads per rank follow it
  hy_slurm_test(NAME slurm_selftest_cpus ARGS job --script selftest.slurm --sbatch=--cpus-per-task=2
    --sbatch=--ntasks=2 --records 1 --record-status passed --ranks 2
    --expect "^BLAS: .* 2 thread\\(s\\) per rank \\(SLURM_CPUS_PER_TASK\\)$"
    --expect "^PASSED: selftest")
  # a config path plus overrides, sbatch options overriding the script's #SBATCH lines
  hy_slurm_test(NAME slurm_selftest_overrides ARGS job --script selftest.slurm
    --sbatch=--ntasks=2 --gpus 2 --records 1 --record-status passed --ranks 2
    --record-key selftest.n=5000 --record-key selftest.copy_mib=1 --record-key run.name=override-test
    --expect "^PASSED: selftest: 4 checks on 2 rank"
    -- config/selftest.ini selftest.n=5000 selftest.copy_mib=1 run.name=override-test)
  # HYBRID_BIN, an explicit srun MPI plugin and results under HYBRID_RESULTS are honoured
  hy_slurm_test(NAME slurm_selftest_env ARGS job --script selftest.slurm --no-build-link
    --env HYBRID_BIN=$<TARGET_FILE:hybrid> --env HYBRID_SHOW_BINDING=0
    --sbatch=--ntasks=1 --records 1 --record-status passed --ranks 1
    --expect "^job: executable /\\S+/hybrid$"
    --expect "^PASSED:"
    -- config/selftest.ini selftest.copy_mib=1)
  # HYBRID_LAUNCHER: mpiexec inside the allocation instead of srun
  hy_slurm_test(NAME slurm_selftest_mpiexec ARGS job --script selftest.slurm
    --env HYBRID_LAUNCHER=${MPIEXEC_EXECUTABLE} --env OMPI_ALLOW_RUN_AS_ROOT=1
    --env OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    --sbatch=--ntasks=2 --records 1 --record-status passed --ranks 2
    --expect "^job: ${MPIEXEC_EXECUTABLE} \\S+/build/hybrid config/selftest.ini"
    --expect "^job:   task 1 on "
    --expect "^PASSED: selftest: 4 checks on 2 rank"
    -- config/selftest.ini selftest.copy_mib=1)
  # a bad configuration: the job ends FAILED with exit code 1 and the message in its log
  hy_slurm_test(NAME slurm_selftest_badconfig ARGS job --script selftest.slurm
    --sbatch=--ntasks=2
    "--write=bad.ini=[run]\\nworkload = selftest\\n[selftest]\\nbogus = 3\\n"
    --state FAILED --exit 1:0 --records 0
    --expect "bad.ini:4: key 'bogus' is not known in section \\[selftest\\]"
    --expect "^FAILED: configuration error"
    --expect "^job: hybrid exited 1"
    -- bad.ini)
  hy_slurm_test(NAME slurm_selftest_missing_config ARGS job --script selftest.slurm
    --state FAILED --exit 1:0 --records 0
    --expect "configuration file 'nothere.ini' not found"
    -- nothere.ini)
  # one rank fails alone mid-run (MPI_Abort): the job must end FAILED, not hang, and Slurm's
  # ExitCode is hybrid's code (the rank writes it into run.exit_file, the job script exits with
  # it; srun alone says 137): 5 (the default fail_code), and 2 (another code passes through)
  hy_slurm_test(NAME slurm_selftest_rank_abort ARGS job --script selftest.slurm
    --sbatch=--ntasks=2 --state FAILED --exit 5:0
    --expect "hybrid: rank 1 on " --expect "^job: hybrid exited 5 "
    -- config/selftest.ini selftest.copy_mib=1 debug.fail_rank=1)
  hy_slurm_test(NAME slurm_selftest_rank_abort_code2 ARGS job --script selftest.slurm
    --sbatch=--ntasks=2 --state FAILED --exit 2:0 --records 0
    --expect "hybrid: rank 1 on .*injected failure" --expect "^job: the launcher exited [0-9]+ after a rank ended the job with hybrid's exit code 2"
    --expect "^job: hybrid exited 2 "
    -- config/selftest.ini selftest.copy_mib=1 debug.fail_rank=1 debug.fail_code=2)

  # srun starts ranks of both MPI libraries (the job script picks --mpi=pmi2 for MPICH and
  # --mpi=pmix for Open MPI from the binary's libraries): a small MPI program built with each
  foreach(mpi mpich openmpi)
    find_program(HY_MPICC_${mpi} mpicc.${mpi})
    if(HY_MPICC_${mpi})
      if(mpi STREQUAL "mpich")
        set(_plugin pmi2)
        set(_lib MPICH)
      else()
        set(_plugin pmix)
        set(_lib "Open MPI")
      endif()
      hy_slurm_test(NAME slurm_launch_${mpi} ARGS job --script selftest.slurm
        --build-hello ${HY_MPICC_${mpi}} --sbatch=--ntasks=3 --gpus 3
        --expect "^job: srun --mpi=${_plugin} "
        --expect "^mpi_hello: 3 of 3 ranks answered: ${_lib}"
        -- config/selftest.ini)
    endif()
  endforeach()

  # the workloads: run once config/<w>.ini exists, with the small overrides in
  # tests/slurm/<w>.small (skipped while either is missing)
  foreach(w gauss spai lle sort conv gemm)
    hy_slurm_test(NAME slurm_${w} TIMEOUT 120 ARGS job --script ${w}.slurm
      --require ${CMAKE_SOURCE_DIR}/config/${w}.ini --require ${HY_SLURM_DIR}/${w}.small
      --args-file ${HY_SLURM_DIR}/${w}.small --env HYBRID_SHOW_BINDING=1
      --sbatch=--ntasks=2 --gpus 2 --records 1 --record-status passed --ranks 2
      --expect "^PASSED:" --expect "^job: hybrid exited 0"
      -- config/${w}.ini)
  endforeach()

  # validation in the job (HYBRID_VALIDATE=1): the run writes A, b and M, hybrid-validate spai
  # checks them after the run; the verdict in the log and in the record (validation.petsc)
  if(TARGET hybrid-validate)
    hy_slurm_test(NAME slurm_spai_validate TIMEOUT 150 ARGS job --script spai.slurm
      --args-file ${HY_SLURM_DIR}/spai.small --env HYBRID_VALIDATE=1
      --sbatch=--ntasks=2 --records 1 --ranks 2
      --record-field validation.petsc.status=passed --record-field validation.petsc.exit_code=0
      --record-field validation.passed=true
      --expect "^job: validation on: output.matrix=results/[0-9]+/validate/A.petsc output.rhs=\\S+ output.preconditioner=\\S+"
      --expect "^validate: PASSED" --expect "^job: validation \\(hybrid-validate spai\\): PASSED"
      --expect "^job: exit 0$"
      -- config/spai.ini)
  endif()
  # a validator that fails (HYBRID_VALIDATOR=/bin/false): the passed run's job ends with its code
  # (1), the record says validation.petsc.status = error
  hy_slurm_test(NAME slurm_gauss_validate_fails TIMEOUT 90 ARGS job --script gauss.slurm
    --args-file ${HY_SLURM_DIR}/gauss.small --env HYBRID_VALIDATE=1 --env HYBRID_VALIDATOR=/bin/false
    --sbatch=--ntasks=2 --records 1 --ranks 2 --state FAILED --exit 1:0
    --record-field validation.petsc.status=error --record-field validation.petsc.exit_code=1
    --expect "^PASSED:" --expect "^job: validation \\(hybrid-validate solve\\): error"
    --expect "^job: exit 1$"
    -- config/gauss.ini)

  # a weak scaling study over 1, 2 and 4 ranks: records, report table, CSV and plots
  if(HY_PLOT_PYTHON)
    hy_slurm_test(NAME slurm_scaling_selftest TIMEOUT 150 ARGS study --gpus 1,2,4
      --env HYBRID_PYTHON=${HY_PLOT_PYTHON} --size-key selftest.n=100000
      -- selftest --mode weak --size 100000 -- selftest.copy_mib=1)
    # strong scaling, two runs per GPU count (the report takes the faster)
    hy_slurm_test(NAME slurm_scaling_strong_repeat TIMEOUT 120 ARGS study --gpus 1,2
      --env HYBRID_PYTHON=${HY_PLOT_PYTHON}
      -- selftest --mode strong --repeat 2 --size 50000 -- selftest.copy_mib=1)
    # a job that fails (rank 1 aborts in the 2-rank run): scaling.sh says so and exits 1, the
    # report still covers the run that passed
    hy_slurm_test(NAME slurm_scaling_failed_job TIMEOUT 90 ARGS study --gpus 1,2 --rows 1
      --env HYBRID_PYTHON=${HY_PLOT_PYTHON} --study-exit 1
      --expect "2 GPU\\(s\\): job [0-9]+ FAILED" --expect "some jobs did not complete" --md-expect "^- 2 GPU\\(s\\): job [0-9]+ FAILED, log "
      -- selftest --mode strong -- selftest.copy_mib=1 selftest.n=10000 debug.fail_rank=1)
  endif()

  # Two nodes for real (issue 21): cluster.py --nodes 2 makes two network namespaces joined by
  # a veth pair (10.251.0.1/2, nowhere else), host names nodeA/nodeB (UTS namespaces), slurmctld
  # + slurmd nodeA in the first, slurmd nodeB in the second, 4 CPUs and 4 fake GPUs each; MPI
  # crosses over TCP.  Every job runs -N 2 --ntasks-per-node=2 and again -N 1 --ntasks=4
  # (--same-as): the two must agree.  HYBRID_SLURM_2NODE_TESTS: AUTO (with the other Slurm
  # tests when ip, nsenter and unshare exist), ON, OFF.
  set(HYBRID_SLURM_2NODE_TESTS AUTO CACHE STRING "two-node Slurm tests (network namespaces): AUTO, ON or OFF")
  find_program(HY_IP ip PATHS /usr/sbin /sbin)
  find_program(HY_NSENTER nsenter)
  find_program(HY_UNSHARE unshare)
  if(HYBRID_SLURM_2NODE_TESTS STREQUAL "ON" AND NOT (HY_IP AND HY_NSENTER AND HY_UNSHARE))
    message(FATAL_ERROR "HYBRID_SLURM_2NODE_TESTS=ON needs ip (iproute2), nsenter and unshare (util-linux)")
  endif()
  if(NOT HYBRID_SLURM_2NODE_TESTS STREQUAL "OFF" AND HY_IP AND HY_NSENTER AND HY_UNSHARE)
    set(HY_CLUSTER2 ${CMAKE_CURRENT_BINARY_DIR}/slurm-cluster2)
    add_test(NAME slurm2_cluster_start
      COMMAND ${Python3_EXECUTABLE} ${HY_SLURM_DIR}/cluster.py start ${HY_CLUSTER2} --nodes 2
        --cpus 4 --gpus 4 --lifetime 600)
    set_tests_properties(slurm2_cluster_start PROPERTIES FIXTURES_SETUP slurm_cluster2 LABELS slurm
      TIMEOUT 60)
    add_test(NAME slurm2_cluster_stop COMMAND ${Python3_EXECUTABLE} ${HY_SLURM_DIR}/cluster.py stop ${HY_CLUSTER2})
    set_tests_properties(slurm2_cluster_stop PROPERTIES FIXTURES_CLEANUP slurm_cluster2 LABELS slurm
      TIMEOUT 60)
    set(_two --sbatch=-N2 --sbatch=--ntasks-per-node=2 --nodes 2 --ranks 4 --records 1
      --record-status passed --same-as=-N1 --same-as=--ntasks=4)
    # the allocation check: 2 nodes, node-local ranks 0,1 on each, 4 distinct (host, GPU) pairs
    hy_slurm_test(NAME slurm2_selftest TWO_NODES ARGS job --script selftest.slurm ${_two}
      --gpus 4 --expect "^ranks 4 on 2 node\\(s\\)" --expect "^PASSED: selftest: 4 checks on 4 rank"
      -- config/selftest.ini selftest.copy_mib=1 selftest.n=20000)
    # every workload at its small size; floats within 1e-9 relative of the one-node run
    # (reduction orders may differ between the transports), and its result written by each run
    # to out-2nodes/ and out-1node/ ({run}) and compared likewise: x, M, embedding, sorted
    # keys, pixels, C
    set(_out_gauss output.solution={run}/x.mtx)
    set(_out_spai output.solution={run}/x.mtx output.preconditioner={run}/M.mtx)
    set(_out_lle output.embedding={run}/embedding.npy)
    set(_out_sort output.sort_keys={run}/keys.npy output.sort_index={run}/index.npy)
    set(_out_conv output.npy={run}/pixels.npy)
    set(_out_gemm output.c={run}/c.mtx)
    foreach(w gauss spai lle sort conv gemm)
      hy_slurm_test(NAME slurm2_${w} TWO_NODES TIMEOUT 120 ARGS job --script ${w}.slurm ${_two}
        --require ${CMAKE_SOURCE_DIR}/config/${w}.ini --require ${HY_SLURM_DIR}/${w}.small
        --args-file ${HY_SLURM_DIR}/${w}.small --env HYBRID_SHOW_BINDING=1 --gpus 4
        --rtol 1e-9 --atol 1e-12 --expect "^PASSED:" --expect "^job: hybrid exited 0"
        -- config/${w}.ini ${_out_${w}})
    endforeach()
    # rank 3 (on nodeB) fails alone: the whole job ends FAILED within 10 s with ExitCode 3:0
    # (hybrid's code through run.exit_file), the log has that rank's message with its host and
    # MPICH's abort with the code
    hy_slurm_test(NAME slurm2_rank_abort TWO_NODES ARGS job --script selftest.slurm
      --sbatch=-N2 --sbatch=--ntasks-per-node=2 --env HYBRID_SHOW_BINDING=0
      --state FAILED --exit 3:0 --within 10 --records 0 --host-in-log 3:nodeB
      --expect "injected failure \\(\\[debug\\] fail_rank = 3" --expect "^job: hybrid exited 3 "
      --expect "MPI_Abort\\(MPI_COMM_WORLD, 3\\)"
      -- config/selftest.ini selftest.copy_mib=1 debug.fail_rank=3 debug.fail_code=3)
    # the same mid-run: rank 2 (nodeB) stops inside selftest's kernel stage while the others go
    # on to the next collective; they must not hang
    hy_slurm_test(NAME slurm2_rank_abort_stage TWO_NODES ARGS job --script selftest.slurm
      --sbatch=-N2 --sbatch=--ntasks-per-node=2 --env HYBRID_SHOW_BINDING=0
      --state FAILED --exit 5:0 --within 10 --records 0 --host-in-log 2:nodeB
      --expect "injected failure \\(\\[debug\\] fail_rank = 2, fail_stage = kernel\\)" --expect "^job: hybrid exited 5 "
      --expect "MPI_Abort\\(MPI_COMM_WORLD, 5\\)"
      -- config/selftest.ini selftest.copy_mib=1 debug.fail_rank=2 debug.fail_stage=kernel
         debug.fail_code=5)
    # scaling.sh --nodes: 2 ranks on one node, 4 on two; the report's nodes column says 1, 2
    if(HY_PLOT_PYTHON)
      hy_slurm_test(NAME slurm2_scaling_nodes TWO_NODES ARGS study --gpus 2,4 --nodes-col 1,2
        --env HYBRID_PYTHON=${HY_PLOT_PYTHON} --size-key selftest.n=50000
        -- selftest --nodes 1,2 --mode weak --size 50000 -- selftest.copy_mib=1)
    endif()
  endif()
elseif(NOT _hy_slurm_ok)
  message(STATUS "hybrid: Slurm tests not registered: they need slurmctld, slurmd and sbatch "
    "(apt-get install slurm-wlm) and root")
endif()
