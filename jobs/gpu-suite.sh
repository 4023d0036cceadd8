#!/usr/bin/env bash
# gpu-suite.sh - build with CUDA, run the GPU tests and the benchmarks in one go, on a machine
# with one or more GPUs (no Slurm needed).  Logs go to $OUT (default ./gpu-out).
#
#   jobs/gpu-suite.sh [build|test|bench|all] ...      (default: all)
#
# Environment: BUILD (default build-gpu), ARCH (CUDA architectures, default 90), NGPU (GPUs to
# use for the 2-GPU runs; default: all visible), CMAKE_ARGS (extra -D options), SUITE_FILTER
# (regex of benchmark names to run), MPIEXEC (default: the one CMake found).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
ARCH=${ARCH:-90}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
what=${1:-all}
export NCCL_NVLS_ENABLE=0   # never use NVLink multicast on shared hosts
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
NGPU=${NGPU:-$ngpu}
log() { echo "== $(date -u +%T) $*" | tee -a "$OUT/suite.log"; }

do_build() {
  log "build: $BUILD, CUDA arch $ARCH, $ngpu GPU(s)"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHYBRID_CUDA=ON -DHYBRID_GPU_TESTS=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" ${CMAKE_ARGS:-} > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; return 1; }
  cmake --build "$BUILD" -j "$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  grep -E "warning" "$OUT/build.log" | sort -u | head -20
  log "build ok"
}

do_test() {
  log "ctest -L gpu"
  (cd "$BUILD" && ctest -L gpu --output-on-failure --timeout 300) > "$OUT/ctest-gpu.log" 2>&1
  local rc=$?
  grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$OUT/ctest-gpu.log" | tail -25
  return $rc
}

MPIEXEC=${MPIEXEC:-$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)}
MPIEXEC=${MPIEXEC:-mpiexec}

# bench NAME RANKS ARGS...: one run of hybrid, its log kept, the figures lines echoed.
bench() {
  local name=$1 np=$2; shift 2
  [[ -n "${SUITE_FILTER:-}" && ! "$name" =~ ${SUITE_FILTER} ]] && return 0
  log "bench $name: $np rank(s): $*"
  timeout 500 "$MPIEXEC" -n "$np" "$BUILD/hybrid" "$@" output.dir="$OUT/records" > "$OUT/bench-$name.log" 2>&1
  echo "   rc=$?"
  grep -E "^(T/V|WR|bench|floor|ratio|target|  [a-z].*:|PASSED|FAILED)|GFLOP|TFLOP|ms|iterations" "$OUT/bench-$name.log" | tail -25
}

do_bench() {
  for f in jobs/gpu-bench.d/*.sh; do
    [ -f "$f" ] || continue
    # shellcheck source=/dev/null
    source "$f"
  done
}

case "$what" in
  build) do_build ;;
  test) do_test ;;
  bench) do_bench ;;
  all) do_build && { do_test; do_bench; } ;;
  *) echo "usage: $0 [build|test|bench|all]"; exit 1 ;;
esac
