# gauss benchmarks for jobs/gpu-suite.sh (sourced): the targets of the gauss issues, each
# printed with its target by jobs/gauss-gpu-bench.sh (FP64 vs cuSOLVER dgetrf + DGEMM, mixed
# precision vs the vendor FP64 solve, n = 1024, 2 GPUs vs 1, HPL-MxP FP16 and BF16 at n = 65536,
# HPL-MxP FP16 at n = 98304: the issue's figure).
[[ -z "${SUITE_FILTER:-}" || gauss =~ ${SUITE_FILTER} ]] &&
  bash jobs/gauss-gpu-bench.sh --bin "$BUILD/hybrid" --mpiexec "$MPIEXEC" --out "$OUT/gauss" \
    --only "$([ "${NGPU:-1}" -ge 2 ] && echo 1,2,3,4,6,7,14 || echo 1,2,3,6,7,14)" | tee -a "$OUT/suite.log"
true
# mixed precision through TF32 tensor cores with GMRES-IR (refine = auto) vs cuSOLVER's FP64
# solve, n = 32768 (target: FP64-accurate in <= 0.4 x the vendor's time)
bench gauss-tf32-gmres 1 config/gauss-tf32-gmres.ini
true
