# hybrid: front end to CMake/ctest.  Quick start:  make run   |   make test
#
#   make deps    install what building and running need (Debian/Ubuntu as root), else print it
#   make build   configure and build build/hybrid (CUDA backend when the toolkit is found)
#   make run     deps + build + the default job: 2 ranks on the embedded default config
#   make test    deps + test deps (PETSc/SLEPc, Slurm, Python packages) + build + ctest
#   make install build, then install into PREFIX (default /usr/local): bin/hybrid,
#                bin/hybrid-validate, share/hybrid/{config,jobs}, share/man/man1/hybrid.1
#   make sanitize  ASan + UBSan build of the host backend in build-san, then ctest -L sanitize
#                (the bad-config / bad-input corpora; tests/tools/sanitize.sh)
#   make clean   remove the build folder
#
# Variables: BUILD (build folder), PREFIX (make install), NP (ranks for make run), CMAKE_ARGS (extra -D options),
# CTEST_ARGS (e.g. -L unit), JOBS (parallel build jobs).  A missing test fixture
# (../shared/matrices, numpy/scipy/scikit-learn/matplotlib) fails make test; to let those
# tests skip instead: make test CMAKE_ARGS=-DHYBRID_TEST_FIXTURES=optional

BUILD      ?= build
NP         ?= 2
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
CTEST_ARGS ?=
MPIEXEC    ?= mpiexec
PREFIX     ?= /usr/local

# Debian/Ubuntu packages: to build and run, and in addition to test.
# libopenblas-dev: CMake links OpenBLAS when it is there (README "BLAS and threads"); on Debian it
# also becomes the system's libblas.so.3 / liblapack.so.3 (update-alternatives), PETSc's too.
DEPS_RUN  = build-essential cmake pkg-config mpich libmpich-dev libinih-dev libblas-dev \
            liblapack-dev libopenblas-dev zlib1g-dev libpng-dev libsuitesparse-dev python3
DEPS_TEST = petsc-dev slepc-dev openmpi-bin slurm-wlm python3-numpy python3-scipy python3-sklearn \
            python3-matplotlib
# Python modules the tests and the report tool import (pip fallback for a non-Debian python3).
PY_MODULES = numpy scipy sklearn matplotlib
PY_PIP     = numpy scipy scikit-learn matplotlib

.PHONY: all deps test-deps build run test sanitize install clean

all: build

deps:
	@$(MAKE) --no-print-directory _apt PKGS="$(DEPS_RUN)"

test-deps: deps
	@$(MAKE) --no-print-directory _apt PKGS="$(DEPS_TEST)"
	@missing=""; for m in $(PY_MODULES); do python3 -c "import $$m" 2>/dev/null || missing="$$missing $$m"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: python3 ($$(command -v python3)) lacks:$$missing; installing with pip"; \
	  python3 -m pip install -q $(PY_PIP) || python3 -m pip install -q --break-system-packages $(PY_PIP) || \
	  { echo "make deps: install the Python packages $(PY_PIP) for $$(command -v python3)"; exit 1; }; \
	fi

# Install the Debian packages of PKGS that are missing (as root on Debian/Ubuntu); elsewhere
# say what to install or load.
_apt:
	@if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
	  missing=""; for p in $(PKGS); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	  done; \
	  if [ -z "$$missing" ]; then exit 0; fi; \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "make deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "make deps: missing Debian packages:$$missing"; \
	    echo "  run: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	else \
	  echo "make deps: not a Debian/Ubuntu system. Install (or 'module load') the equivalents of:"; \
	  echo "  $(PKGS)"; \
	  echo "  (an MPI-3 library with mpicc/mpiexec, libinih, BLAS/LAPACK, zlib, libpng, SuiteSparse,"; \
	  echo "   CMake >= 3.24, Python 3; for tests PETSc+SLEPc, Slurm, numpy/scipy/scikit-learn/matplotlib)"; \
	  for t in cmake mpicc mpiexec pkg-config; do command -v $$t >/dev/null || { echo "  missing: $$t"; exit 1; }; done; \
	fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: deps
	@$(MAKE) --no-print-directory build
	@m=$$(sed -n "s/^MPIEXEC_EXECUTABLE:FILEPATH=//p" $(BUILD)/CMakeCache.txt); m=$${m:-$(MPIEXEC)}; \
	  echo "$$m -n $(NP) $(BUILD)/hybrid"; $$m -n $(NP) $(BUILD)/hybrid

test: test-deps
	@# configure again: test-deps may have just installed what the validator and tests look for
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) > /dev/null
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure --timeout 900 $(CTEST_ARGS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

sanitize: test-deps
	JOBS=$(JOBS) CMAKE_ARGS="$(CMAKE_ARGS)" bash tests/tools/sanitize.sh build-san

clean:
	rm -rf $(BUILD)
