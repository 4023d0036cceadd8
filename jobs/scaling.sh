#!/usr/bin/env bash
# jobs/scaling.sh - a strong or weak scaling study: one run per GPU count, then a report.
#
#   jobs/scaling.sh WORKLOAD --gpus 1,2,4,8 --mode strong|weak [--size N] [--config FILE]
#                   [--nodes 1,1,1,2] [--law linear|sqrt|cbrt] [--key section.key] [--out DIR] [--wait]
#                   [--repeat K] [--timeout S] [--sbatch "OPTIONS"] [--dry-run] [--plan]
#                   [--launcher slurm|mpiexec] [--bin PATH] [--mpiexec PATH] [--run-timeout S]
#                   [--deadline EPOCH] [--est S] [--startup S] [--work-exp W] [--serial F]
#                   [-- section.key=value ...]
#
# --launcher mpiexec (a machine with GPUs and no Slurm, e.g. one host of 2-8 GPUs): the runs go one
# after another, P = each GPU count, as  MPIEXEC -n P [--bind-to none] BIN CONFIG ... output.dir=
# DIR/records/P  (--bind-to none with Open MPI, which binds a rank to one core otherwise; each rank
# takes the GPU of its node-local rank, as under Slurm), the log in DIR/logs/WORKLOAD-gP-rK.out, the
# exit code and seconds of each run in DIR/jobs.txt; then the same report.  BIN: --bin, else
# $HYBRID_BIN, else build-gpu/hybrid or build/hybrid of the project; MPIEXEC: --mpiexec, else $MPIEXEC,
# else the one in BIN's CMakeCache.txt, else mpiexec.  --run-timeout S kills a run after S seconds
# (exit 124 in jobs.txt); --deadline EPOCH (seconds since 1970) starts no run whose estimate would end
# past it and caps every run's timeout to it (a skipped run is listed in the report).  Exit 1 when
# any run failed, timed out or was skipped.
# --plan prints every run (the command, its size) with an estimate of its time and the total, and
# runs nothing.  The estimate: est(P) = startup + (est - startup) * (size(P) / size(P0))^w *
# (f + (1 - f) P0 / P), est = --est (seconds of one run at the first GPU count P0; without it
# "?"; with --launcher mpiexec the first run's measured seconds replace it once it has passed),
# startup = --startup (default 5 s: start, data generation), w = --work-exp (default 3 for
# gauss, whose work is n^3, else 1), f = --serial (the part that does not spread, default 0).
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
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }

[ $# -ge 1 ] || usage 1
case "$1" in -h|--help) usage 0 ;; esac
workload=$1; shift
gpus="" nodes="" mode="" size="" config="" law="" key="" out="" wait=0 timeout=0 sbatch_opts="" repeat=1 dry=0
launcher=slurm plan=0 bin=${HYBRID_BIN:-} mpiexec=${MPIEXEC:-} run_timeout=0 deadline=0 est="" startup=5 wexp="" serial=0
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
    --launcher) launcher=${2:-}; shift 2 ;;
    --plan) plan=1; shift ;;
    --bin) bin=${2:-}; shift 2 ;;
    --mpiexec) mpiexec=${2:-}; shift 2 ;;
    --run-timeout) run_timeout=${2:-}; shift 2 ;;
    --deadline) deadline=${2:-}; shift 2 ;;
    --est) est=${2:-}; shift 2 ;;
    --startup) startup=${2:-}; shift 2 ;;
    --work-exp) wexp=${2:-}; shift 2 ;;
    --serial) serial=${2:-}; shift 2 ;;
    -h|--help) usage 0 ;;
    --) shift; overrides=("$@"); break ;;
    *) die "unknown argument '$1' (see jobs/scaling.sh --help)" ;;
  esac
done

case "$launcher" in slurm|mpiexec) ;; *) die "--launcher must be slurm or mpiexec (got '$launcher')" ;; esac
num='^[0-9]+([.][0-9]+)?$'
[[ "$run_timeout" =~ ^[0-9]+$ ]] || die "--run-timeout must be whole seconds (got '$run_timeout')"
[[ "$deadline" =~ ^[0-9]+$ ]] || die "--deadline must be seconds since 1970 (got '$deadline')"
[ -z "$est" ] || [[ "$est" =~ $num ]] || die "--est must be seconds (got '$est')"
[[ "$startup" =~ $num ]] || die "--startup must be seconds (got '$startup')"
[ -z "$wexp" ] || [[ "$wexp" =~ $num ]] || die "--work-exp must be a number (got '$wexp')"
[[ "$serial" =~ $num ]] && awk -v f="$serial" 'BEGIN { exit !(f <= 1) }' || die "--serial must be a fraction in [0, 1] (got '$serial')"
script=$here/$workload.slurm
[ "$launcher" = mpiexec ] || [ -r "$script" ] || die "no job script $script for workload '$workload' (have: $(cd "$here" && ls *.slurm | sed 's/\.slurm//' | tr '\n' ' '))"
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
[ "$launcher" = mpiexec ] || [ "$dry" = 1 ] || [ "$plan" = 1 ] || command -v sbatch > /dev/null ||
  die "sbatch not found (run on a Slurm login node, or load the slurm module; or --launcher mpiexec on one host)"
[ "$launcher" = slurm ] || [ ${#nlist[@]} = 0 ] || die "--nodes needs --launcher slurm (mpiexec runs on one host)"

case "$workload" in
  gauss) dkey=gauss.n; dlaw=sqrt ;;
  spai) dkey=matrix.size; dlaw=linear ;;
  lle) dkey=lle.n; dlaw=linear ;;
  selftest) dkey=selftest.n; dlaw=linear ;;
  conv) dkey=conv.height; dlaw=linear ;;
  sort) dkey=sort.n; dlaw=linear ;;
  *) dkey=""; dlaw=linear ;;
esac
[ -n "$wexp" ] || { [ "$workload" = gauss ] && wexp=3 || wexp=1; }
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

[ -z "$size" ] || [ -n "$key" ] || die "--size needs --key for workload '$workload'"
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
# the size override of the run at GPU count P (nothing: the config's size), and its number
size_arg() {
  if [ "$mode" = weak ]; then echo "$key=$(size_for "$1")"; elif [ -n "$size" ]; then echo "$key=$size"; fi
}
# estimated seconds of one run at GPU count P (the model in the header), or "?" without --est
est_for() {
  [ -n "$est" ] || { echo "?"; return; }
  local n=1 n0=1
  [ "$mode" = weak ] && { n=$(size_for "$1"); n0=$(size_for "${plist[0]}"); }
  awk -v e="$est" -v s="$startup" -v w="$wexp" -v f="$serial" -v p="$1" -v p0="${plist[0]}" \
      -v n="$n" -v n0="$n0" 'BEGIN {
    if (s > e) s = e
    printf "%.1f\n", s + (e - s) * (n / n0) ^ w * (f + (1 - f) * p0 / p) }'
}
if [ "$launcher" = mpiexec ]; then
  if [ -z "$bin" ]; then
    for b in "$here/../build-gpu/hybrid" "$here/../build/hybrid"; do [ -x "$b" ] && { bin=$b; break; }; done
  fi
  [ -n "$bin" ] && [ -x "$bin" ] || [ "$plan" = 1 ] || die "no hybrid executable (build it, or pass --bin PATH / set HYBRID_BIN)"
  [ -n "$bin" ] && bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  [ -n "$mpiexec" ] || mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$(dirname "${bin:-.}")/CMakeCache.txt" 2>/dev/null)
  mpiexec=${mpiexec:-mpiexec}
  bind=()
  # Open MPI binds each rank to one core unless told; MPICH's hydra binds nothing by default
  "$mpiexec" --version 2>&1 | grep -q -i "open mpi\|openrte" && bind=(--bind-to none)
  if [ "$(id -u)" = 0 ]; then   # as root Open MPI refuses to start unless told; MPICH ignores these
    export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
  fi
fi
# the command of the run at the i-th GPU count, one line (the sbatch line, or the mpiexec line)
run_line() {
  local p=${plist[$1]} sz
  sz=$(size_arg "$p")
  if [ "$launcher" = mpiexec ]; then
    echo "$mpiexec -n $p${bind[*]:+ ${bind[*]}} ${bin:-BIN} $config ${sz:+$sz }run.name=$name" \
         "${overrides[*]+"${overrides[*]} "}output.dir=$out/records/$p"
  else
    echo "HYBRID_RESULTS=$out/records sbatch --parsable $(place "$1") --job-name=hybrid-$workload-g$p" \
         "--output=$out/logs/%x-%j.out${sbatch_opts:+ $sbatch_opts} $script $config ${sz:+$sz }run.name=$name" \
         "${overrides[*]+"${overrides[*]}"}"
  fi
}
if [ "$dry" = 1 ] || [ "$plan" = 1 ]; then
  total=0 unknown=0 nrun=0
  for i in "${!plist[@]}"; do
    e=$(est_for "${plist[i]}")
    for ((k = 0; k < repeat; k++)); do
      nrun=$((nrun + 1))
      if [ "$plan" = 1 ]; then
        echo "plan: $workload $mode P=${plist[i]} run $((k + 1)): est $e s: $(run_line "$i")"
        if [ "$e" = "?" ]; then unknown=1; else total=$(awk -v a="$total" -v b="$e" 'BEGIN { print a + b }'); fi
      else
        run_line "$i"
      fi
    done
  done
  [ "$plan" = 1 ] && echo "plan: $workload $mode: $nrun run(s), est total $( [ "$unknown" = 1 ] && echo "? (no --est)" || echo "$total") s"
  exit 0
fi
mkdir -p "$out/logs" "$out/records" || die "cannot create $out"
out=$(cd "$out" && pwd)
: > "$out/jobs.txt"
echo "scaling: $workload, $mode scaling over GPUs $gpus, config $config${key:+, size key $key}" \
     "$( [ "$mode" = weak ] && echo "(weak: $key = $size * P^e, law $law)")"
report_cmd=("${HYBRID_PYTHON:-python3}" "$here/report.py" "$out/records" --out "$out/report" --mode "$mode")
[ -n "$key" ] && report_cmd+=(--size-key "$key")
bad=0
notes=()
if [ "$launcher" = mpiexec ]; then
  for i in "${!plist[@]}"; do
    p=${plist[i]}
    n=$(size_arg "$p")
    e=$(est_for "$p")
    args=("$config")
    [ -n "$n" ] && args+=("$n")
    args+=("run.name=$name" "${overrides[@]+"${overrides[@]}"}" "output.dir=$out/records/$p")
    mkdir -p "$out/records/$p"
    for ((k = 1; k <= repeat; k++)); do
      log=$out/logs/$workload-g$p-r$k.out
      t=$run_timeout
      if [ "$deadline" -gt 0 ]; then
        now=$(date +%s)
        if [ "$now" -ge "$deadline" ] || { [ "$e" != "?" ] && awk -v a="$now" -v b="$e" -v d="$deadline" 'BEGIN { exit !(a + b > d) }'; }; then
          echo "$p $k skipped - ${n#*=}" >> "$out/jobs.txt"
          echo "scaling: $p GPU(s), run $k: skipped (est $e s, $((deadline - now)) s left before the deadline)"
          notes+=("- $p GPU(s), run $k: skipped: est $e s, $((deadline - now)) s left before the deadline")
          bad=1
          continue
        fi
        left=$((deadline - now))
        { [ "$t" = 0 ] || [ "$t" -gt "$left" ]; } && t=$left
      fi
      echo "scaling: $p GPU(s), run $k: $(run_line "$i")"
      t0=$(date +%s.%N)
      if [ "$t" -gt 0 ]; then
        timeout -k 10 "$t" "$mpiexec" -n "$p" "${bind[@]+"${bind[@]}"}" "$bin" "${args[@]}" < /dev/null > "$log" 2>&1
      else
        "$mpiexec" -n "$p" "${bind[@]+"${bind[@]}"}" "$bin" "${args[@]}" < /dev/null > "$log" 2>&1
      fi
      rc=$?
      secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
      echo "$p $k $rc $secs ${n#*=}" >> "$out/jobs.txt"
      why="exit $rc"
      { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && why="timed out after $t s (exit $rc)"
      echo "scaling: $p GPU(s), run $k: $why, $secs s (est $e s)${n:+, $n} (log: $log)"
      [ "$rc" = 0 ] || { bad=1; notes+=("- $p GPU(s), run $k: $why, log $log"); }
      # the first run measured calibrates the estimates of the others (for the deadline)
      if [ "$rc" = 0 ] && [ "$i" = 0 ] && [ "$k" = 1 ]; then est=$secs; e=$secs; fi
    done
  done
else
  ids=()
  for i in "${!plist[@]}"; do
    p=${plist[i]}
    args=("$config")
    sz=$(size_arg "$p")
    n=${sz#*=}
    [ -n "$sz" ] && args+=("$sz")
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

  while read -r p id n; do
    st=$(squeue -h --states=all -j "$id" -o %T 2>/dev/null)
    [ -n "$st" ] || st=$(sacct -n -X -P -j "$id" -o State 2>/dev/null | head -1)
    [[ "$st" =~ ^[A-Z_]+$ ]] || st=UNKNOWN
    echo "scaling: $p GPU(s): job $id ${st:-UNKNOWN} (log: $(ls "$out"/logs/*-"$id".out 2>/dev/null))"
    [ "$st" = COMPLETED ] || { bad=1; notes+=("- $p GPU(s): job $id $st, log $(ls "$out"/logs/*-"$id".out 2>/dev/null)"); }
  done < "$out/jobs.txt"
fi
# the report needs matplotlib for its plots; take the first python3 that has it
if [ -z "${HYBRID_PYTHON:-}" ]; then
  for py in python3 /usr/bin/python3; do
    if "$py" -c "import matplotlib" 2> /dev/null; then report_cmd[0]=$py; break; fi
  done
fi
echo "scaling: ${report_cmd[*]}"
"${report_cmd[@]}" || bad=1
if [ "${#notes[@]}" -gt 0 ] && [ ! -f "$out/report.md" ]; then
  printf '# hybrid scaling report\n\nNo run left a record in %s.\n' "$out/records" > "$out/report.md"
fi
if [ "${#notes[@]}" -gt 0 ] && [ -f "$out/report.md" ]; then
  printf '\n%s that did not complete (their runs may have left no record):\n\n%s\n' \
    "$( [ "$launcher" = mpiexec ] && echo Runs || echo "Slurm jobs")" \
    "$(printf '%s\n' "${notes[@]}")" >> "$out/report.md"
fi
[ "$bad" = 0 ] || echo "scaling: error: some $( [ "$launcher" = mpiexec ] && echo runs || echo jobs) did not complete or the report failed (see above)" >&2
exit $bad
