#!/usr/bin/env bash
# jobs/spai-bench.sh - the spai workload on the GPU machine: setup and iteration figures on a
# generated matrix of cfd2's size at 1 and 2 GPUs, a >= 10M-row run at 1 and 2 GPUs (setup +
# solve speedup), and a sweep of the CUDA kernel-class thresholds ([spai] gpu_* keys).
#
#   jobs/spai-bench.sh [BUILD] [all|cfd|big|sweep]      (BUILD default build-gpu; what default all)
#
# Environment: MPIEXEC (default: the one CMake found), OUT (log folder, default ./spai-bench-out),
# BIG (rows of the large run, default 10648000 = 220^3), NGPU (default: GPUs visible), and the
# sweep's values SWEEP_BLOCK, SWEEP_SMALL_ROWS, SWEEP_SMALL_COLS, SWEEP_MEDIUM (lists).
# Each run prints the phase table and the lines below; this script echoes the figures:
#   spai: setup T s ...           target: <= 0.020 s on one H200 for cfd2's size, nnz(M) ~ nnz(A)
#   bicgstab: X us per iteration; floor Y us ...: ratio R      target: R <= 1.3
#   total: setup + solve = S s    target: S(1 GPU) / S(2 GPUs) >= 1.8 on >= 10M rows
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
what=${2:-all}
OUT=${OUT:-$PWD/spai-bench-out}
BIG=${BIG:-10648000}
mkdir -p "$OUT"
MPIEXEC=${MPIEXEC:-$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)}
MPIEXEC=${MPIEXEC:-mpiexec}
NGPU=${NGPU:-$(nvidia-smi -L 2>/dev/null | wc -l)}
export NCCL_NVLS_ENABLE=0

# run NAME RANKS ARGS...: one run, log kept, figure lines echoed
run() {
  local name=$1 np=$2; shift 2
  echo "== $name: $np rank(s): $*"
  timeout 580 "$MPIEXEC" -n "$np" "$BUILD/hybrid" config/bench-spai.ini "$@" output.dir="$OUT/records" \
    > "$OUT/$name.log" 2>&1
  echo "   exit $?"
  grep -E "^(matrix|spai|spmv|bicgstab|total|PASSED|FAILED)|^spai (index|submat|qr|pattern|distr|assem)|hybrid: error" "$OUT/$name.log"
}

if [[ $what == all || $what == cfd ]]; then
  run cfd-1gpu 1
  # a second process (config/bench-spai.ini's spai.repeat = 5 also gives cold and warm runs in
  # one process: "spai: repeat 5: ...")
  run cfd-1gpu-again 1
  [ "$NGPU" -ge 2 ] && run cfd-2gpu 2
fi
if [[ $what == all || $what == big ]]; then
  run big-1gpu 1 matrix.generator=poisson3d matrix.size=$BIG spai.tau=0.99 spai.repeat=3
  [ "$NGPU" -ge 2 ] && run big-2gpu 2 matrix.generator=poisson3d matrix.size=$BIG spai.tau=0.99 spai.repeat=3
  if [ "$NGPU" -ge 2 ]; then
    t1=$(sed -n 's/^total: setup + solve = \([0-9.e+-]*\) s.*/\1/p' "$OUT/big-1gpu.log")
    t2=$(sed -n 's/^total: setup + solve = \([0-9.e+-]*\) s.*/\1/p' "$OUT/big-2gpu.log")
    [ -n "$t1" ] && [ -n "$t2" ] && python3 -c "print('speedup 2 GPUs vs 1 on $BIG rows (setup + solve): %.2f (target >= 1.8)' % ($t1 / $t2))"
  fi
fi
if [[ $what == all || $what == sweep ]]; then
  echo "== sweep of the kernel classes (setup only, cfd2's size): qr+solve seconds"
  printf "%8s %8s %8s %6s  %10s %10s  %s\n" small_r small_c medium block qr+solve submat classes
  for block in ${SWEEP_BLOCK:-64 128 256}; do
    for sr in ${SWEEP_SMALL_ROWS:-32 64 128}; do
      for sc in ${SWEEP_SMALL_COLS:-8 16 32}; do
        for me in ${SWEEP_MEDIUM:-0 2048 4096 8192}; do
          log="$OUT/sweep.log"
          # one run per process (the phase table sums the runs of spai.repeat)
          "$MPIEXEC" -n 1 "$BUILD/hybrid" config/bench-spai.ini solver.solve=false output.record=false spai.repeat=1 \
            spai.gpu_small_rows=$sr spai.gpu_small_cols=$sc spai.gpu_medium_elems=$me spai.gpu_block=$block \
            > "$log" 2>&1
          qr=$(awk '/^spai qr\+solve/ {print $4}' "$log")
          sm=$(awk '/^spai submatrices/ {print $4}' "$log")
          cl=$(sed -n 's/.*small\/medium\/large \([0-9/]*\).*/\1/p' "$log")
          printf "%8s %8s %8s %6s  %10s %10s  %s\n" $sr $sc $me $block "$qr" "$sm" "$cl"
        done
      done
    done
  done
fi
