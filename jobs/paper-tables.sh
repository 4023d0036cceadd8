#!/usr/bin/env bash
# jobs/paper-tables.sh - reproduce the tables of a seed paper with one command.
#
#   jobs/paper-tables.sh SEED [--small|--full] [--bin PATH] [ARGS ...]
#   jobs/paper-tables.sh --list
#
# SEED: 000 (gauss, Gaussian elimination), 001 (spai, SPAI + BiCGSTAB), 002 (gemm, sort, conv:
# the oneAPI homework), 004 (lle, locally linear embedding); the workload names are accepted too.  --small (the default) runs the reduced sizes
# that fit a workstation or CI; --full the paper's sizes (the GPU machine; hours).  --bin: the
# hybrid executable (default $HYBRID_BIN, else build-gpu/hybrid or build/hybrid under the project
# root).  The workload's own table script does the work; ARGS go to it unchanged:
#   000 -> jobs/gauss-seed-tables.sh  (--small = --max 256 --reps 1; --full = its defaults, n <= 1024)
#   001 -> jobs/spai-tables.sh        (--small / --full as given)
#   002 -> jobs/seed002-tables.py     (--small / --full as given; one module per workload in
#                                      jobs/seed002/<wl>.py; gemm/sort/conv select one: --only sort)
#   004 -> jobs/lle_experiments.py    (--small = --mode ci; --full = --mode full)
# Each writes its tables and says where; this script finds it, passes the size and the binary
# in the script's own terms, and exits with its exit code (1 when the script does not exist):
# non-zero when a run inside the script failed (the table scripts exit non-zero then).
# *.py scripts run with $HYBRID_PYTHON or python3.  As root, Open MPI's mpiexec is allowed to run
# (OMPI_ALLOW_RUN_AS_ROOT=1, OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }

# The table script of a seed (the first that exists, else the first name).
script_for() {
  local c f
  case "$1" in
    000|0|gauss) c="gauss-seed-tables.sh" ;;
    001|1|spai) c="spai-tables.sh" ;;
    002|2|gemm|sort|conv) c="seed002-tables.py" ;;
    004|4|lle) c="lle-tables.sh lle-tables.py lle_experiments.py" ;;
    *) return 1 ;;
  esac
  for f in $c; do
    [ -f "$here/$f" ] && { echo "$here/$f"; return 0; }
  done
  echo "$here/${c%% *}"
}

[ $# -ge 1 ] || usage 1
case "$1" in
  -h|--help) usage 0 ;;
  --list)
    for s in 000 001 002 004; do
      f=$(script_for $s)
      if [ -f "$f" ]; then echo "$s  $f"; else echo "$s  (missing: $f)"; fi
    done
    exit 0 ;;
esac
seed=$1; shift
script=$(script_for "$seed") || { echo "paper-tables: error: unknown seed '$seed'; usage: jobs/paper-tables.sh 000|001|002|004 [--small|--full] [--bin PATH] [ARGS ...]" >&2; exit 1; }
size=--small
bin=${HYBRID_BIN:-}
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --small|--full) size=$1; shift ;;
    --bin) bin=${2:-}; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ ! -f "$script" ]; then
  echo "paper-tables: error: the table script of seed $seed ($script) does not exist yet;" \
       "nothing was run (jobs/paper-tables.sh --list shows what exists)" >&2
  exit 1
fi
if [ -z "$bin" ]; then
  for b in "$root/build-gpu/hybrid" "$root/build/hybrid"; do
    [ -x "$b" ] && { bin=$b; break; }
  done
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "paper-tables: error: no hybrid executable (build it, or pass --bin PATH)" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# the size and the binary in the script's own options (unless ARGS already give the binary)
given() { local o; for o in "${args[@]+"${args[@]}"}"; do [ "$o" = "$1" ] && return 0; done; return 1; }
pre=()
case "$(basename "$script")" in
  gauss-seed-tables.sh)
    [ "$size" = --small ] && pre+=(--max 256 --reps 1)
    given --bin || pre+=(--bin "$bin") ;;
  spai-tables.sh)
    pre+=("$size")
    given --build || pre+=(--build "$(dirname "$bin")") ;;
  lle_experiments.py)
    if [ "$size" = --small ]; then pre+=(--mode ci); else pre+=(--mode full); fi
    given --hybrid || pre+=(--hybrid "$bin") ;;
  seed002-tables.py)
    pre+=("$size")
    given --hybrid || pre+=(--hybrid "$bin")
    case "$seed" in gemm|sort|conv) given --only || pre+=(--only "$seed") ;; esac ;;
  *)
    if grep -q -e '--small' "$script" && grep -q -e '--full' "$script"; then
      pre+=("$size")
    else
      echo "paper-tables: note: $(basename "$script") takes no --small/--full; running it with its defaults" >&2
    fi ;;
esac
# as root (CI, containers) Open MPI's mpiexec refuses to start unless told; MPICH ignores these
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
  export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
fi
echo "paper-tables: seed $seed $size: $script ${pre[*]+"${pre[*]}"} ${args[*]+"${args[*]}"}"
case "$script" in
  *.py) "${HYBRID_PYTHON:-python3}" "$script" "${pre[@]+"${pre[@]}"}" "${args[@]+"${args[@]}"}" ;;
  *) bash "$script" "${pre[@]+"${pre[@]}"}" "${args[@]+"${args[@]}"}" ;;
esac
rc=$?
# the table script's status is this command's: a run that failed inside it (the script exits
# non-zero then) fails the table command, so a table with holes never passes for complete
if [ "$rc" -ne 0 ]; then
  echo "paper-tables: FAILED: seed $seed: $(basename "$script") exited $rc (a run inside it failed, or the script did)" >&2
else
  echo "paper-tables: seed $seed: $(basename "$script") done (exit 0)"
fi
exit "$rc"
