#!/usr/bin/env bash
# jobs/paper-tables.sh - reproduce the tables of a seed paper with one command.
#
#   jobs/paper-tables.sh SEED [--small|--full] [ARGS ...]
#   jobs/paper-tables.sh --list
#
# SEED: 000 (gauss, Gaussian elimination), 001 (spai, SPAI + BiCGSTAB), 004 (lle, locally linear
# embedding); the workload names are accepted too.  --small (the default) runs the reduced sizes
# that fit a workstation or CI; --full the paper's sizes (GPUs and hours).  ARGS go to the
# workload's own table script unchanged:
#   000 -> jobs/gauss-seed-tables.sh     001 -> jobs/spai-tables.sh
#   004 -> jobs/lle-tables.sh, or jobs/lle-tables.py, or the first other jobs/lle-*.sh|py
# Each of those writes its tables (and says where); this script only finds and runs it, and exits
# with its exit code (1 when it does not exist).  Scripts that take no --small/--full get a
# translation (gauss-seed-tables.sh: --small = --max 256 --reps 1, --full = its defaults).
# *.py scripts run with $HYBRID_PYTHON or python3.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }

# The table script of a seed, or nothing.  $2 = 1: print the path it would be.
script_for() {
  case "$1" in
    000|0|gauss) echo "$here/gauss-seed-tables.sh" ;;
    001|1|spai) echo "$here/spai-tables.sh" ;;
    004|4|lle)
      for f in "$here/lle-tables.sh" "$here/lle-tables.py" "$here"/lle-*.sh "$here"/lle-*.py; do
        [ -f "$f" ] && { echo "$f"; return; }
      done
      echo "$here/lle-tables.sh" ;;
    *) return 1 ;;
  esac
}

[ $# -ge 1 ] || usage 1
case "$1" in
  -h|--help) usage 0 ;;
  --list)
    for s in 000 001 004; do
      f=$(script_for $s)
      if [ -f "$f" ]; then echo "$s  $f"; else echo "$s  (missing: $f)"; fi
    done
    exit 0 ;;
esac
seed=$1; shift
script=$(script_for "$seed") || { echo "paper-tables: error: unknown seed '$seed'; usage: jobs/paper-tables.sh 000|001|004 [--small|--full] [ARGS ...]" >&2; exit 1; }
size=--small
args=()
for a in "$@"; do
  case "$a" in
    --small|--full) size=$a ;;
    *) args+=("$a") ;;
  esac
done
if [ ! -f "$script" ]; then
  echo "paper-tables: error: the table script of seed $seed ($script) does not exist yet;" \
       "nothing was run (jobs/paper-tables.sh --list shows what exists)" >&2
  exit 1
fi
# The size flag: passed on when the script takes --small/--full itself; for scripts that do not,
# the translation below (known scripts) or nothing (the script's defaults) with a note.
if grep -q -e '--small' "$script" && grep -q -e '--full' "$script"; then
  sizeargs=("$size")
else
  case "$(basename "$script"):$size" in
    gauss-seed-tables.sh:--small) sizeargs=(--max 256 --reps 1) ;;  # n = 16..256, one timed run
    gauss-seed-tables.sh:--full) sizeargs=() ;;                    # its defaults: the seed's n <= 1024, 3 runs
    *) sizeargs=(); echo "paper-tables: note: $(basename "$script") takes no --small/--full; running it with its defaults" >&2 ;;
  esac
fi
echo "paper-tables: seed $seed $size: $script ${sizeargs[*]+"${sizeargs[*]}"} ${args[*]+"${args[*]}"}"
case "$script" in
  *.py) exec "${HYBRID_PYTHON:-python3}" "$script" "${sizeargs[@]+"${sizeargs[@]}"}" "${args[@]+"${args[@]}"}" ;;
  *) exec bash "$script" "${sizeargs[@]+"${sizeargs[@]}"}" "${args[@]+"${args[@]}"}" ;;
esac
