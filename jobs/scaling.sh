#!/usr/bin/env bash
# jobs/scaling.sh - a strong or weak scaling study under Slurm: one job per GPU count, then a report.
#
#   jobs/scaling.sh WORKLOAD --gpus 1,2,4,8 --mode strong|weak [--size N] [--config FILE]
#                   [--nodes 1,1,1,2] [--law linear|sqrt|cbrt] [--key section.key] [--out DIR] [--wait]
#                   [--repeat K] [--timeout S] [--sbatch "OPTIONS"] [--dry-run]
#                   [-- section.key=value ...]
#
# Submits jobs/WORKLOAD.slurm once per GPU count P (sbatch --ntasks=P; the script asks one GPU per
# task) from the current directory, which must be the submit dir the job scripts expect (the project
# root: build/hybrid, config/).  Every job gets run.name=WORKLOAD-MODE-scaling, the size override
# below and the overrides after "--"; its log goes to DIR/logs/ and its record to DIR/records/JOBID/.
# --nodes N1,N2,...: the job for the i-th GPU count P_i runs on N_i nodes (sbatch --nodes=N_i
# --ntasks=P_i --ntasks-per-node=P_i/N_i; N_i must divide P_i); one N applies to every P.  The report's nodes
# column shows each run's node count (from its record).
#
# Sizes.  strong: the same problem for every P (--size N sets the size key, else the config's).
#         weak:   work per GPU held constant: size(P) = round(N * P^e), N = --size (the size for
#                 ONE GPU; default: the key's value in the config file), e from the scaling law:
#   workload  size key      law (default)  why
#   gauss     gauss.n       sqrt  (e=1/2)  n x n dense matrix: memory per GPU constant (HPL's rule);
#                                          --law cbrt keeps the flops (n^3) per GPU constant instead
#   spai      matrix.size   linear (e=1)   rows of the generated sparse matrix ~ columns of M per GPU
#   lle       lle.n         linear (e=1)   points; KNN work per GPU ~ n^2/P, so this is memory-weak
#   selftest  selftest.n    linear (e=1)   vector length of the kernel check
#   conv      conv.height   linear (e=1)   image rows at a fixed width: pixels (tiles) per GPU constant
# --key and --law override the table (e.g. another generator's size key).
#
# --dry-run prints the sbatch commands (and sizes) without submitting anything.
# --repeat K submits K jobs per GPU count (the report uses the fastest passed run of each).
# Without --wait: prints the job ids and the report command, and exits 0.  With --wait: polls
# squeue (every second) until the jobs have left the queue (--timeout S: then cancels them and
# exits 124), prints each job's final state, runs jobs/report.py on DIR/records (DIR/report.md,
# report.csv, report-time.png, report-efficiency.png) and exits 1 when any job did not complete.
# Default DIR: results/scaling-WORKLOAD-MODE-YYYYmmdd-HHMMSS.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
die() { echo "scaling: error: $*" >&2; exit 1; }
usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }

[ $# -ge 1 ] || usage 1
case "$1" in -h|--help) usage 0 ;; esac
workload=$1; shift
gpus="" nodes="" mode="" size="" config="" law="" key="" out="" wait=0 timeout=0 sbatch_opts="" repeat=1 dry=0
overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) gpus=${2:-}; shift 2 ;;
    --nodes) nodes=${2:-}; shift 2 ;;
    --mode) mode=${2:-}; shift 2 ;;
    --size) size=${2:-}; shift 2 ;;
    --config) config=${2:-}; shift 2 ;;
    --law) law=${2:-}; shift 2 ;;
    --key) key=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --wait) wait=1; shift ;;
    --dry-run) dry=1; shift ;;
    --timeout) timeout=${2:-}; shift 2 ;;
    --repeat) repeat=${2:-}; shift 2 ;;
    --sbatch) sbatch_opts=${2:-}; shift 2 ;;
    -h|--help) usage 0 ;;
    --) shift; overrides=("$@"); break ;;
    *) die "unknown argument '$1' (see jobs/scaling.sh --help)" ;;
  esac
done

script=$here/$workload.slurm
[ -r "$script" ] || die "no job script $script for workload '$workload' (have: $(cd "$here" && ls *.slurm | sed 's/\.slurm//' | tr '\n' ' '))"
case "$mode" in strong|weak) ;; *) die "--mode must be strong or weak (got '${mode}')" ;; esac
[[ "$gpus" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--gpus must be a comma-separated list of positive counts, e.g. 1,2,4,8 (got '$gpus')"
IFS=, read -r -a plist <<< "$gpus"
nlist=()
if [ -n "$nodes" ]; then
  [[ "$nodes" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--nodes must be a comma-separated list of positive counts, e.g. 1,2 (got '$nodes')"
  IFS=, read -r -a nlist <<< "$nodes"
  if [ "${#nlist[@]}" = 1 ]; then
    for ((i = 1; i < ${#plist[@]}; i++)); do nlist+=("${nlist[0]}"); done
  fi
  [ "${#nlist[@]}" = "${#plist[@]}" ] || die "--nodes has ${#nlist[@]} counts, --gpus ${#plist[@]} (give one node count, or one per GPU count)"
  for ((i = 0; i < ${#plist[@]}; i++)); do
    [ $(( plist[i] % nlist[i] )) = 0 ] || die "--nodes: ${nlist[i]} node(s) do not divide ${plist[i]} GPU(s) evenly"
  done
fi
# the sbatch options placing P_i ranks: --ntasks=P, or --nodes=N --ntasks=P --ntasks-per-node=P/N
place() {
  if [ ${#nlist[@]} -gt 0 ]; then
    echo "--nodes=${nlist[$1]} --ntasks=${plist[$1]} --ntasks-per-node=$(( plist[$1] / nlist[$1] ))"
  else
    echo "--ntasks=${plist[$1]}"
  fi
}
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive integer (got '$repeat')"
[[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout must be whole seconds (got '$timeout')"
[ -z "$size" ] || [[ "$size" =~ ^[1-9][0-9]*$ ]] || die "--size must be a positive integer (got '$size')"
for o in "${overrides[@]+"${overrides[@]}"}"; do
  [[ "$o" == *.*=* ]] || die "override '$o' is not section.key=value"
done
[ "$dry" = 1 ] || command -v sbatch > /dev/null || die "sbatch not found (run on a Slurm login node, or load the slurm module)"

case "$workload" in
  gauss) dkey=gauss.n; dlaw=sqrt ;;
  spai) dkey=matrix.size; dlaw=linear ;;
  lle) dkey=lle.n; dlaw=linear ;;
  selftest) dkey=selftest.n; dlaw=linear ;;
  conv) dkey=conv.height; dlaw=linear ;;
  *) dkey=""; dlaw=linear ;;
esac
key=${key:-$dkey}
law=${law:-$dlaw}
case "$law" in linear|sqrt|cbrt) ;; *) die "--law must be linear, sqrt or cbrt (got '$law')" ;; esac
config=${config:-config/$workload.ini}
[ -r "$config" ] || die "configuration file '$config' not found (run from the project root, or pass --config)"

# The value of section.key in an INI file (last assignment wins), or nothing.
ini_get() {
  awk -v want_s="${2%%.*}" -v want_k="${2#*.}" '
    { sub(/[;#].*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
    /^\[.*\]$/ { s = tolower(substr($0, 2, length($0) - 2)); next }
    s == tolower(want_s) && index($0, "=") {
      k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
      gsub(/[ \t]+$/, "", k); gsub(/^[ \t]+/, "", v)
      if (tolower(k) == tolower(want_k)) val = v
    }
    END { if (val != "") print val }' "$1"
}

if [ "$mode" = weak ]; then
  [ -n "$key" ] || die "weak scaling of '$workload' needs --key section.key (its size key)"
  if [ -z "$size" ]; then
    size=$(ini_get "$config" "$key")
    [[ "$size" =~ ^[1-9][0-9]*$ ]] || die "weak scaling needs --size N (the $key for one GPU): $config does not set $key"
  fi
fi

# size for P GPUs
size_for() {
  awk -v n="$size" -v p="$1" -v law="$law" 'BEGIN {
    e = (law == "sqrt") ? 0.5 : (law == "cbrt") ? 1.0 / 3.0 : 1.0
    printf "%d\n", int(n * p ^ e + 0.5) }'
}

name="$workload-$mode-scaling"
stamp=$(date -u +%Y%m%d-%H%M%S)
out=${out:-results/scaling-$workload-$mode-$stamp}
if [ "$dry" = 1 ]; then
  for i in "${!plist[@]}"; do
    p=${plist[i]}
    sz=()
    if [ "$mode" = weak ]; then sz=("$key=$(size_for "$p")"); elif [ -n "$size" ]; then sz=("$key=$size"); fi
    for ((k = 0; k < repeat; k++)); do
      echo "HYBRID_RESULTS=$out/records sbatch --parsable $(place "$i") --job-name=hybrid-$workload-g$p" \
           "--output=$out/logs/%x-%j.out${sbatch_opts:+ $sbatch_opts} $script $config ${sz[*]+"${sz[*]} "}run.name=$name" \
           "${overrides[*]+"${overrides[*]}"}"
    done
  done
  exit 0
fi
mkdir -p "$out/logs" "$out/records" || die "cannot create $out"
out=$(cd "$out" && pwd)
: > "$out/jobs.txt"
echo "scaling: $workload, $mode scaling over GPUs $gpus, config $config${key:+, size key $key}" \
     "$( [ "$mode" = weak ] && echo "(weak: $key = $size * P^e, law $law)")"
ids=()
for i in "${!plist[@]}"; do
  p=${plist[i]}
  args=("$config")
  n=""
  if [ "$mode" = weak ]; then
    n=$(size_for "$p")
    args+=("$key=$n")
  elif [ -n "$size" ]; then
    [ -n "$key" ] || die "--size needs --key for workload '$workload'"
    n=$size
    args+=("$key=$n")
  fi
  args+=("run.name=$name" "${overrides[@]+"${overrides[@]}"}")
  for ((k = 0; k < repeat; k++)); do
    # shellcheck disable=SC2086
    id=$(HYBRID_RESULTS="$out/records" sbatch --parsable $(place "$i") --job-name="hybrid-$workload-g$p" \
           --output="$out/logs/%x-%j.out" $sbatch_opts "$script" "${args[@]}") \
      || die "sbatch failed for $p GPU(s)${ids[*]:+ (jobs already submitted: ${ids[*]})}"
    id=${id%%;*}
    ids+=("$id")
    echo "$p $id ${n:-config}" >> "$out/jobs.txt"
    echo "scaling: $p GPU(s): job $id${n:+, $key=$n}${nlist[i]:+, ${nlist[i]} node(s)}"
  done
done

report_cmd=("${HYBRID_PYTHON:-python3}" "$here/report.py" "$out/records" --out "$out/report" --mode "$mode")
[ -n "$key" ] && report_cmd+=(--size-key "$key")
if [ "$wait" = 0 ]; then
  echo "scaling: submitted ${ids[*]}; records go to $out/records"
  echo "scaling: when they have ended: ${report_cmd[*]}"
  exit 0
fi

joined=$(IFS=,; echo "${ids[*]}")
t0=$(date +%s)
errors=0
while :; do
  # a failing squeue (controller busy) does not end the wait; "Invalid job id" (jobs purged) does
  if q=$(squeue -h -j "$joined" -o %i 2>&1); then
    errors=0
    [ -z "$q" ] && break
  elif grep -q "Invalid job id" <<< "$q"; then
    break
  else
    errors=$((errors + 1))
    [ "$errors" -lt 120 ] || die "squeue failed $errors times in a row: $q"
  fi
  if [ "$timeout" -gt 0 ] && [ $(( $(date +%s) - t0 )) -ge "$timeout" ]; then
    echo "scaling: error: jobs still queued/running after $timeout s; cancelling $joined" >&2
    scancel "${ids[@]}"
    exit 124
  fi
  sleep 1
done

bad=0
notes=()
while read -r p id n; do
  st=$(squeue -h --states=all -j "$id" -o %T 2>/dev/null)
  [ -n "$st" ] || st=$(sacct -n -X -P -j "$id" -o State 2>/dev/null | head -1)
  [[ "$st" =~ ^[A-Z_]+$ ]] || st=UNKNOWN
  echo "scaling: $p GPU(s): job $id ${st:-UNKNOWN} (log: $(ls "$out"/logs/*-"$id".out 2>/dev/null))"
  [ "$st" = COMPLETED ] || { bad=1; notes+=("- $p GPU(s): job $id $st, log $(ls "$out"/logs/*-"$id".out 2>/dev/null)"); }
done < "$out/jobs.txt"

# the report needs matplotlib for its plots; take the first python3 that has it
if [ -z "${HYBRID_PYTHON:-}" ]; then
  for py in python3 /usr/bin/python3; do
    if "$py" -c "import matplotlib" 2> /dev/null; then report_cmd[0]=$py; break; fi
  done
fi
echo "scaling: ${report_cmd[*]}"
"${report_cmd[@]}" || bad=1
if [ "${#notes[@]}" -gt 0 ] && [ -f "$out/report.md" ]; then
  printf '\nSlurm jobs that did not complete (their runs may have left no record):\n\n%s\n' \
    "$(printf '%s\n' "${notes[@]}")" >> "$out/report.md"
fi
[ "$bad" = 0 ] || echo "scaling: error: some jobs did not complete or the report failed (see above)" >&2
exit $bad
