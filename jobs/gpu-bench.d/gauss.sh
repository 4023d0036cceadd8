# gauss benchmarks for jobs/gpu-suite.sh (sourced): the four targets of the gauss issue, each
# printed with its target by jobs/gauss-gpu-bench.sh (FP64 vs cuSOLVER dgetrf + DGEMM, mixed
# precision vs the vendor FP64 solve, n = 1024, 2 GPUs vs 1).
[[ -z "${SUITE_FILTER:-}" || gauss =~ ${SUITE_FILTER} ]] &&
  bash jobs/gauss-gpu-bench.sh --bin "$BUILD/hybrid" --mpiexec "$MPIEXEC" --out "$OUT/gauss" \
    --only "$([ "${NGPU:-1}" -ge 2 ] && echo 1,2,3,4 || echo 1,2,3)" | tee -a "$OUT/suite.log"
true
