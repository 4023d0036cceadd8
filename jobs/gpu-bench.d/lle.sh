# lle benchmarks for jobs/gpu-suite.sh (sourced): N = 20k and 1M end to end beside scikit-learn,
# KNN against torch.cdist + topk, KNN + weights on 2 GPUs vs 1 (jobs/lle-gpu.sh prints each
# figure with its target).
[[ -z "${SUITE_FILTER:-}" || lle =~ ${SUITE_FILTER} ]] &&
  BUILD="$BUILD" OUT="$OUT/lle" MPIEXEC="$MPIEXEC" bash jobs/lle-gpu.sh bench | tee -a "$OUT/suite.log"
true
