# reliability (issue 20): hostile inputs, file-size limits, planted symlinks.  Driven by
# rel_check.py (modes documented there); host backend, at most 2 ranks, small sizes.
set(REL_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/rel_check.py --hybrid $<TARGET_FILE:hybrid>
  --mpiexec ${MPIEXEC_EXECUTABLE} "--np-flag=${MPIEXEC_NUMPROC_FLAG}" "--preflags=${MPIEXEC_PREFLAGS}")
foreach(m npy csv scale symlink config same unreadable)
  add_test(NAME rel_${m} COMMAND ${REL_CHECK} --workdir ${HY_TEST_OUT}/rel_${m} ${m})
  set_tests_properties(rel_${m} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME rel_fsize COMMAND ${REL_CHECK} --workdir ${HY_TEST_OUT}/rel_fsize fsize)
set_tests_properties(rel_fsize PROPERTIES LABELS unit TIMEOUT 600)

# an empty system (0 x 0 matrix, Matrix Market array or coordinate, or PETSc binary) is input
# error 2 for every gauss algorithm (it was SIGFPE in gauss_numroc, or exit 4 with residual inf)
foreach(alg naive stepwise blocked)
  foreach(f empty.mtx empty_coord.mtx)
    hy_case(NAME rel_gauss_empty_${alg}_${f} RANKS 1 EXIT 2 EXPECT "${f}: matrix is 0 x 0 \\(an empty system\\)"
      RUNCASE --no-files ARGS run.workload=gauss gauss.algorithm=${alg} gauss.matrix=file
      gauss.file=${CMAKE_CURRENT_LIST_DIR}/data/${f} output.record=false)
  endforeach()
  hy_case(NAME rel_gauss_empty_${alg}_petsc RANKS 2 EXIT 2 EXPECT "petsc_empty.petsc: matrix is 0 x 0"
    RUNCASE --no-files ARGS run.workload=gauss gauss.algorithm=${alg} gauss.matrix=file
    gauss.file=${HY_IO_GEN}/petsc_empty.petsc output.record=false)
  set_tests_properties(rel_gauss_empty_${alg}_petsc PROPERTIES FIXTURES_REQUIRED io_gen_bad)
endforeach()

# a solution that overflows the double range (A = 1e-300 I, b = 1e10) is a numerical failure
# (exit 3) naming ||x||, not a validation verdict (was exit 4 with a scaled residual of inf)
foreach(alg naive stepwise blocked)
  hy_case(NAME rel_gauss_overflow_${alg} RANKS 2 EXIT 3
    EXPECT "the solution x holds inf or NaN \\(\\|\\|x\\|\\|_inf = (inf|nan)" REJECT "PASSED"
    RUNCASE --no-files ARGS run.workload=gauss gauss.algorithm=${alg} gauss.matrix=file
    gauss.file=${CMAKE_CURRENT_LIST_DIR}/data/tiny_diag.mtx gauss.rhs=file
    gauss.rhs_file=${CMAKE_CURRENT_LIST_DIR}/data/rhs_1e10.mtx output.record=false)
endforeach()

# gauss.n = 2147483647 (inside the key's range) is refused before any allocation with the
# memory a rank needs and has (exit 5), instead of filling n-vectors until the OOM killer
hy_case(NAME rel_gauss_n_too_big RANKS 2 EXIT 5 TIMEOUT 30
  EXPECT "gauss.n = 2147483647 needs about [0-9.e+]+ GiB of host memory per rank .* but a rank has [0-9.e+]+ GiB here"
  RUNCASE --no-files ARGS run.workload=gauss gauss.n=2147483647 output.record=false)

# one rank of 2 runs out of memory in the workload's biggest allocation ([debug] fail_alloc on
# fail_rank 1: its HY_MALLOC / backend allocations of at least that many bytes fail as if memory
# were exhausted; each threshold is ~90% of rank 1's largest allocation at that size): the job
# ends within 10 s, exit 5, rank 1's message with its host and the bytes (its own abort
# "hybrid: rank 1 on HOST: ..." or, where the allocation is agreed on, rank 0's "(rank 1 on
# HOST) ..."), no output file left; a 4th field: what the message must name besides (sort's
# agreed message: the array, this rank's share and its element count)
set(HY_REL_OOM
  "gauss|14000000|run.workload=gauss gauss.n=2000 output.solution=x.mtx"
  "spai|420000|run.workload=spai matrix.size=20000 output.solution=x.mtx output.preconditioner=m.mtx"
  "lle|108000|run.workload=lle lle.n=3000 output.embedding=e.npy"
  "sort|7200000|run.workload=sort sort.n=2000000 output.sort_keys=k.npy|for b->idx \\(this rank's share of the indices: 1000000 int64 indices\\)"
  "sort_keys|3600000|run.workload=sort sort.n=2000000 output.sort_keys=k.npy|for b->keys \\(this rank's share of the keys: 1000000 int32 keys\\)"
  "conv|7200000|run.workload=conv conv.width=1000 conv.height=1000 output.npy=c.npy"
  "gemm|3500000|run.workload=gemm gemm.m=1000 gemm.n=1000 gemm.k=1000 output.c=c.mtx"
  "selftest|60000000|run.workload=selftest")
foreach(c IN LISTS HY_REL_OOM)
  string(REPLACE "|" ";" c "${c}")
  list(GET c 0 wl)
  list(GET c 1 thr)
  list(GET c 2 args)
  set(names "")
  list(LENGTH c nf)
  if(nf GREATER 3)
    list(GET c 3 names)
    set(names EXPECT "out of memory allocating [0-9]+ bytes.* ${names}")
  endif()
  separate_arguments(args)
  hy_case(NAME rel_oom_rank1_${wl} RANKS 2 EXIT 5 TIMEOUT 60
    EXPECT "rank 1 on [^ :)]+[:)] .*out of memory allocating [0-9]+ bytes" ${names}
    REJECT "PASSED"
    RUNCASE --timeout 10 --no-files "--expect-num=${thr}::out of memory allocating ([0-9]+) bytes"
    ARGS ${args} debug.fail_rank=1 debug.fail_alloc=${thr} output.record=false)
endforeach()

# the real thing (rel_check.py ulimit): rank 1 alone under `ulimit -v` (mpiexec's MPMD form) runs
# out of memory in each workload's biggest allocation at a size rank 0 fits: a small run passes
# under the same limit, the big one ends within 10 s, exit 5, rank 1's message naming the
# allocation and its bytes (parsed), no output file.  Rank 0 touches up to ~1 GB before the abort.
add_test(NAME rel_oom_ulimit COMMAND ${REL_CHECK} --workdir ${HY_TEST_OUT}/rel_oom_ulimit --run-timeout 60 ulimit)
set_tests_properties(rel_oom_ulimit PROPERTIES LABELS mpi TIMEOUT 300 PROCESSORS 2)
# rank 1 dies in the loader (ulimit -v below what the binary needs to start; MPMD): MPICH's hydra
# waits for ever on a rank that exits before MPI_Init (hydra_pmi_proxy polling a core), so the
# limit's wrapper turns an exit >= 126 into SIGKILL of itself: the job ends within 10 s, non-zero,
# with the loader's message (rel_check.py --only exec, the old 'exec' wrapper, hangs: 20 s)
add_test(NAME rel_mpmd_loader COMMAND ${REL_CHECK} --workdir ${HY_TEST_OUT}/rel_mpmd_loader --run-timeout 20 loader)
set_tests_properties(rel_mpmd_loader PROPERTIES LABELS mpi TIMEOUT 90 PROCESSORS 2)

# memory pre-checks (hy_mem_check, app/runtime/memcheck.c): a size inside a key's range that
# needs more memory per rank than a rank has is refused before allocating: exit 5 within
# seconds, the size, the figure needed (parsed: the workload's lower bound at that rank count;
# lle at 1 rank: at 2 its gather's MPI count limit refuses n first, exit 1) and the limit
# (parsed: what a rank has here).  Without the check these runs allocate until the OOM
# killer or fail in malloc far into the run.
set(HY_REL_MEM
  "sort|2|sort: n = 17000000000 keys|60:70|sort.n=17000000000"
  "gemm|2|gemm.m x k x n = 2147483647 x 2147483647 x 2147483647|5e10:5.3e10|gemm.m=2147483647 gemm.n=2147483647 gemm.k=2147483647"
  "conv|2|conv.width x height x channels = 1048576 x 1048576 x 4|1.6e4:1.7e4|conv.width=1048576 conv.height=1048576"
  "lle|1|lle.n = 2000000000|250:256|lle.n=2000000000"
  "spai|2|matrix.size = 2000000000|55:65|matrix.size=2000000000"
  "selftest|2|selftest.n = 10000000000, copy_mib = 64|145:152|selftest.n=10000000000")
foreach(c IN LISTS HY_REL_MEM)
  string(REPLACE "|" ";" c "${c}")
  list(GET c 0 wl)
  list(GET c 1 np)
  list(GET c 2 what)
  list(GET c 3 range)
  list(GET c 4 args)
  separate_arguments(args)
  string(REGEX REPLACE "([.*+()])" "\\\\\\1" what_re "${what}")
  hy_case(NAME rel_mem_${wl}_too_big RANKS ${np} EXIT 5 TIMEOUT 60
    EXPECT "${what_re} needs about [0-9.e+]+ GiB of host memory per rank \\(.*\\) but a rank has [0-9.e+]+ GiB here"
    REJECT "PASSED"
    RUNCASE --timeout 20 --no-files "--expect-num=${range}:needs about ([0-9.e+]+) GiB of host memory"
    "--expect-num=0.01:1e5:but a rank has ([0-9.e+]+) GiB here"
    ARGS run.workload=${wl} ${args} output.record=false)
endforeach()

# the device figure of the pre-check (the backend's mem_info entry; NULL on host): gemm whose
# blocks need ~250 GiB of device memory, the host limit lifted (HYBRID_IO_MEM_LIMIT = 1 PB) so
# that the device decides: exit 5 naming the device figure and the free memory (parsed)
if(HYBRID_GPU_TESTS)
  hy_case(NAME gpu_rel_mem_gemm_device RANKS 1 EXIT 5 TIMEOUT 60 LABELS gpu
    EXPECT "gemm.m x k x n = 150000 x 150000 x 150000 needs about [0-9.e+]+ GiB of device memory per rank .* but rank 0 has [0-9.e+]+ GiB on device 0"
    REJECT "PASSED"
    RUNCASE --timeout 20 --no-files "--expect-num=200:600:needs about ([0-9.e+]+) GiB of device memory"
    "--expect-num=1:200:but rank 0 has ([0-9.e+]+) GiB on device"
    ARGS run.workload=gemm run.backend=cuda gemm.m=150000 gemm.n=150000 gemm.k=150000 output.record=false)
  set_tests_properties(gpu_rel_mem_gemm_device PROPERTIES ENVIRONMENT "HYBRID_IO_MEM_LIMIT=1000000000000000")
endif()
