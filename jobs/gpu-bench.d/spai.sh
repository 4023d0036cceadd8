# spai benchmarks for jobs/gpu-suite.sh (sourced; uses its bench NAME RANKS ARGS... and NGPU).
# Figures to read: "spai: setup" and its phase table (target <= 20 ms at cfd2's size, nnz(M) ~
# nnz(A)); "bicgstab: ... floor ... ratio" (target <= 1.3); "spmv (cuSPARSE library, alone)" (the
# vendor's figure from the same run); "total: setup + solve" at 1 and 2 GPUs on 10.6M rows
# (target speedup >= 1.8).  The kernel-class sweep: jobs/spai-bench.sh BUILD sweep.
bench spai-cfd2size-1gpu 1 config/bench-spai.ini
[ "${NGPU:-1}" -ge 2 ] && bench spai-cfd2size-2gpu 2 config/bench-spai.ini
bench spai-10M-1gpu 1 config/bench-spai.ini matrix.generator=poisson3d matrix.size=10648000
[ "${NGPU:-1}" -ge 2 ] && bench spai-10M-2gpu 2 config/bench-spai.ini matrix.generator=poisson3d matrix.size=10648000
true
