# spai benchmarks for jobs/gpu-suite.sh (sourced; uses its bench NAME RANKS ARGS... and NGPU).
# Figures to read: "spai: setup phases (ms ...)" (which phase takes the time, and "built on the
# device|host"), "spai: setup X ms against the target <= 20 ms" (cfd2's size, nnz(M) ~ nnz(A));
# "bicgstab: ... floor ... ratio" (target <= 1.3); "spmv (cuSPARSE library, alone)" (the
# vendor's figure from the same run); "total: setup + solve" at 1 and 2 GPUs on 10.6M rows
# (target speedup >= 1.8).  The kernel-class sweep: jobs/spai-bench.sh BUILD sweep.
bench spai-cfd2size-1gpu 1 config/bench-spai.ini
# the same with the pattern and M's rows built on the host (the setup before the device path)
bench spai-cfd2size-1gpu-hostsetup 1 config/bench-spai.ini spai.gpu_setup=host
[ "${NGPU:-1}" -ge 2 ] && bench spai-cfd2size-2gpu 2 config/bench-spai.ini
# the solver alone (5-point 2D, n = 921,600, no preconditioner): the iteration against its two
# SpMVs ("spmv (cuSPARSE library, alone)"), the vector updates and the three dot groups
bench spai-poisson2d-921k-none-1gpu 1 config/bench-spai.ini matrix.generator=poisson2d matrix.size=921600 solver.precond=none
bench spai-10M-1gpu 1 config/bench-spai.ini matrix.generator=poisson3d matrix.size=10648000
[ "${NGPU:-1}" -ge 2 ] && bench spai-10M-2gpu 2 config/bench-spai.ini matrix.generator=poisson3d matrix.size=10648000
true
