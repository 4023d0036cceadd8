#!/usr/bin/env bash
# sanitize.sh [BUILD] - the ASan + UBSan build of the host backend (BUILD, default build-san
# beside build/: -DHYBRID_SANITIZE=ON -DHYBRID_CUDA=OFF, no validator, no Slurm tests) and its
# tests: `ctest -L sanitize`, the bad-config / bad-input corpora of every workload, tests/io and
# tests/config and tests/reliability, each failing on any ASan or UBSan report (tests/CMakeLists.txt
# sets the sanitizers' options).  Run by .ci/run after `make test`, and by `make sanitize`.
# Environment: JOBS (parallel build and test jobs, default nproc), CMAKE_ARGS (extra -D options).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-san}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
echo "sanitize: $(date -u +%FT%TZ) ASan + UBSan build in $build"
cmake -S "$src" -B "$build" -DHYBRID_SANITIZE=ON -DHYBRID_CUDA=OFF -DHYBRID_VALIDATE=OFF \
  -DHYBRID_SLURM_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} > /dev/null
# the build runs `hybrid --help` (the man page): MPICH's own leaks are not hybrid's
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
cmake --build "$build" -j "$jobs"
cd "$build"
ctest -L sanitize --output-on-failure --timeout 300 -j "$jobs"
echo "sanitize: $(date -u +%FT%TZ) done"
