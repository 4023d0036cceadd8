#!/usr/bin/env bash
# build_mpi.sh VALIDATOR PETSC_LIBDIR... - hybrid-validate must link the MPI library libpetsc
# links (the one its compiler wrapper belongs to): a validator built with another MPI's wrapper
# (e.g. MPICH's mpicc against Debian's OpenMPI PETSc) links two MPIs or the wrong one.
set -uo pipefail
exe=${1:?usage: build_mpi.sh VALIDATOR PETSC_LIBDIR...}; shift
lib=""
for d in "$@"; do
  for f in "$d"/libpetsc.so "$d"/libpetsc_real.so "$d"/libpetsc*.so; do
    [ -e "$f" ] && { lib=$f; break 2; }
  done
done
[ -n "$lib" ] || { echo "FAIL: no libpetsc*.so in $*"; exit 1; }
mpis() { ldd "$1" | awk '/libmpi(ch)?\.so|libmpi_[a-z]*\.so/ {print $3}' | grep -v '^$' | xargs -r -n1 readlink -f | sort -u; }
want=$(mpis "$lib" | grep -E 'libmpi(ch)?\.so' ); got=$(mpis "$exe" | grep -E 'libmpi(ch)?\.so')
echo "libpetsc ($lib) links: ${want:-none}"
echo "hybrid-validate ($exe) links: ${got:-none}"
[ -n "$want" ] || { echo "FAIL: cannot tell which MPI $lib links"; exit 1; }
[ "$want" = "$got" ] || { echo "FAIL: hybrid-validate links '$got', PETSc links '$want'"; exit 1; }
echo "ok: the validator and PETSc link the same MPI"
