#!/usr/bin/env bash
# jobs/spai-gpu-check.sh - on the GPU machine: build with CUDA (sm_90) and the GPU tests, run the
# spai GPU tests (CUDA M and iterations against the host backend) and the benchmark.
#   jobs/spai-gpu-check.sh [BUILD] [bench what: all|cfd|big|sweep|none]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHYBRID_CUDA=ON -DHYBRID_GPU_TESTS=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/spai-cmake.log 2>&1 || { tail -30 /tmp/spai-cmake.log; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target hybrid > /tmp/spai-build.log 2>&1 ||
  { grep -E "error" -A3 /tmp/spai-build.log | head -60; exit 1; }
(cd "$BUILD" && ctest -L gpu -R spai -V --timeout 300) > /tmp/spai-ctest.log 2>&1
grep -E "^[0-9]+: (compare|iterations|nnz_M|AM_I|verdict|FAIL|SKIP)|tests passed|Passed|Failed|\*\*\*" /tmp/spai-ctest.log | tail -60
[ "${2:-cfd}" != none ] && jobs/spai-bench.sh "$BUILD" "${2:-cfd}"
exit 0
