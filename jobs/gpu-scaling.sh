#!/usr/bin/env bash
# jobs/gpu-scaling.sh - the multi-GPU scaling table of issue 22 (1 -> 2 GPUs) or 23 (1 -> 2 -> 4 -> 8)
# in one command on one host with GPUs and no Slurm (a device machine): every study by
# jobs/scaling.sh --launcher mpiexec, the reports by jobs/report.py, a summary against the
# targets, and one tar of it all.
#
#   jobs/gpu-scaling.sh [--issue 22|23] [--gpus 1,2,4,8] [--small] [--plan] [--only REGEX]
#                       [--budget S] [--bin PATH] [--build DIR] [--mpiexec PATH] [--out DIR]
#                       [--tar FILE] [--paper|--no-paper]
#
# --issue: 22 (default when fewer than 4 GPUs are visible) or 23; --gpus: the GPU counts (default
#   1,2 for 22; 1,2,4 or 1,2,4,8 for 23, as many as are visible).
# --small: tiny sizes on run.backend=auto (the host backend where there is no GPU: CI runs it
#   with 1 and 2 ranks; a smoke run on one GPU with --gpus 1).
# --plan: print every run with its estimated seconds, each study's and the whole table's total
#   against the budget, and run nothing.
# --only REGEX: only the studies whose name (gauss-strong, lle-weak, ...) matches.
# --budget S (default 540): the whole command, build included, ends within S seconds: a study
#   whose estimate (the table's, scaled by what the studies done took against theirs) does not
#   fit into what is left is skipped (said in the summary), runs get
#   timeouts that end by the deadline (jobs/scaling.sh --deadline), 20 s stay for the report.
# --bin PATH: the hybrid executable; otherwise BUILD/hybrid (--build, default build-gpu), built
#   first (CUDA, Release, the hybrid target only) when it does not exist.
# --out DIR (default results/gpu-scaling-<issue>-<date>): DIR/<study>/ (jobs/scaling.sh's folder:
#   records/P/, logs/, report.md, report.csv, report-time.png, report-efficiency.png),
#   DIR/summary.md and DIR/summary.csv; --tar FILE (default $OUT/gpu-scaling-<issue>.tar.gz when
#   $OUT is set, else DIR.tar.gz) holds DIR, rewritten after every study so that a killed command
#   leaves what was done; with $OUT set, summary.md is copied there too.
# --paper (default for 23 without --only): also jobs/paper-tables.sh 001 --full --ranks "1 2 4 8"
#   into DIR/paper-001 with the time that is left.
# Sets NCCL_NVLS_ENABLE=0 (no NVLink multicast on shared hosts; also TORCH_SYMM_MEM_DISABLE_MULTICAST
# and NVSHMEM_DISABLE_NVLS) and Open MPI's binding policy none.  Exit: 0 every run passed, 1 a
# run failed, timed out or was skipped, or a usage error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
die() { echo "gpu-scaling: error: $*" >&2; exit 1; }
usage() { sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }
t_start=$(date +%s)

issue="" gpus="" small=0 plan=0 only="" budget=540 bin="" build=build-gpu mpiexec=${MPIEXEC:-} out="" tar="" paper=""
while [ $# -gt 0 ]; do
  case "$1" in
    --issue) issue=${2:-}; shift 2 ;;
    --gpus) gpus=${2:-}; shift 2 ;;
    --small) small=1; shift ;;
    --plan) plan=1; shift ;;
    --only) only=${2:-}; shift 2 ;;
    --budget) budget=${2:-}; shift 2 ;;
    --bin) bin=${2:-}; shift 2 ;;
    --build) build=${2:-}; shift 2 ;;
    --mpiexec) mpiexec=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --tar) tar=${2:-}; shift 2 ;;
    --paper) paper=1; shift ;;
    --no-paper) paper=0; shift ;;
    -h|--help) usage 0 ;;
    *) die "unknown argument '$1' (see jobs/gpu-scaling.sh --help)" ;;
  esac
done
[[ "$budget" =~ ^[1-9][0-9]*$ ]] || die "--budget must be whole seconds (got '$budget')"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ -n "$issue" ] || { [ "$ngpu" -ge 4 ] && issue=23 || issue=22; }
case "$issue" in 22|23) ;; *) die "--issue must be 22 or 23 (got '$issue')" ;; esac
if [ -z "$gpus" ]; then
  if [ "$issue" = 22 ]; then gpus=1,2; elif [ "$ngpu" -ge 8 ]; then gpus=1,2,4,8; else gpus=1,2,4; fi
fi
[[ "$gpus" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--gpus must be a comma-separated list of counts (got '$gpus')"
maxp=${gpus##*,}
[ "$small" = 1 ] || [ "$plan" = 1 ] || [ "$ngpu" -ge "$maxp" ] ||
  die "$maxp GPUs asked (--gpus $gpus), $ngpu visible (nvidia-smi -L): ranks would share GPUs; use --gpus or --small"
[ -n "$paper" ] || { [ "$issue" = 23 ] && [ -z "$only" ] && [ "$small" = 0 ] && paper=1 || paper=0; }

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
fi

# The studies: name workload mode config est startup serial target scaling.sh-options -- overrides.
# est: seconds of one run at P = 1 at these sizes on one H200 (from the README's figures and the
# last H200 runs, start and data generation included; a guess where no run exists: the first run
# measured replaces it); serial: the part that does not spread over GPUs (an estimate for the
# time plan; lle: config/lle.ini's chol-nd spreads over the ranks since session 9, rank 0 alone
# 24.8% of its eigen-solve at 1M on 2 ranks sharing one H200, 5f1ee7b: 0.5 stays a safe upper
# bound until a 2-GPU run measures it); target: what the summary checks, KIND@P>=X,... (speedup
# or efficiency at P GPUs).
studies() {
  if [ "$small" = 1 ]; then
    local b=run.backend=auto
    cat <<EOF
gauss-strong gauss strong config/bench-gauss.ini 2 0.5 0 - --size 384 -- $b gauss.nb=64 gauss.repeat=1 gauss.compare_cusolver=false
gauss-weak gauss weak config/bench-gauss.ini 2 0.5 0 - --size 256 -- $b gauss.nb=64 gauss.repeat=1 gauss.compare_cusolver=false
spai-strong spai strong config/bench-spai.ini 2 0.5 0 - -- $b matrix.generator=poisson3d matrix.size=13824 spai.repeat=1
lle-strong lle strong config/lle.ini 3 0.5 0.5 - -- $b lle.n=3000
lle-weak lle weak config/lle.ini 3 0.5 0.5 - --size 2000 -- $b
gemm-strong gemm strong config/bench-gemm.ini 2 0.5 0 - -- $b gemm.kernel=vendor gemm.precision=double gemm.m=256 gemm.n=256 gemm.k=256 gemm.nb=64 gemm.compare=false
sort-strong sort strong config/bench-sort.ini 2 0.5 0 - -- $b sort.n=262144 sort.vendor=false
conv-strong conv strong config/bench-conv.ini 2 0.5 0 - -- $b conv.ksize=15 conv.passes=2 conv.width=256 conv.height=256 conv.compare=none
EOF
    return
  fi
  local g="gauss.nb=1024 gauss.repeat=1 gauss.compare_cusolver=false"
  local m="gemm.kernel=vendor gemm.precision=double gemm.compare=false"
  local c="conv.ksize=15 conv.passes=10 conv.width=32768 conv.compare=none"
  if [ "$issue" = 22 ]; then
    cat <<EOF
gauss-strong gauss strong config/bench-gauss.ini 25 10 0 speedup@2>=1.8 --size 65536 -- $g
gauss-weak gauss weak config/bench-gauss.ini 25 10 0 efficiency@2>=0.9 --size 65536 -- $g
spai-strong spai strong config/bench-spai.ini 30 12 0 speedup@2>=1.8 -- matrix.generator=poisson3d matrix.size=10648000 spai.repeat=1
lle-strong lle strong config/lle.ini 35 6 0.5 speedup@2>=1.8 -- run.backend=cuda lle.n=1000000
lle-weak lle weak config/lle.ini 20 6 0.5 - --size 500000 -- run.backend=cuda
gemm-strong gemm strong config/bench-gemm.ini 15 8 0 speedup@2>=1.85 -- $m gemm.m=32768 gemm.n=32768 gemm.k=32768
sort-strong sort strong config/bench-sort.ini 25 15 0 speedup@2>=1.6 --size 2147483648 -- sort.vendor=false
conv-strong conv strong config/bench-conv.ini 30 15 0 speedup@2>=1.85 --size 32768 -- $c
EOF
  else
    # issue 23's sizes (gauss 98304, spai 10.6M+, lle 4M, sort 2^32); gemm 65536 and conv 32768^2
    # (the issue names none: 22's conv, gemm doubled to fill 8 GPUs)
    cat <<EOF
gauss-strong gauss strong config/bench-gauss.ini 40 15 0 efficiency@4>=0.85,efficiency@8>=0.75 --size 98304 -- $g
gauss-weak gauss weak config/bench-gauss.ini 25 10 0 efficiency@4>=0.85,efficiency@8>=0.75 --size 65536 -- $g
gemm-strong gemm strong config/bench-gemm.ini 40 25 0 efficiency@4>=0.85,efficiency@8>=0.75 -- $m gemm.m=65536 gemm.n=65536 gemm.k=65536
gemm-weak gemm weak config/bench-gemm.ini 15 8 0 efficiency@4>=0.85,efficiency@8>=0.75 --key gemm.n --law linear --size 32768 -- $m gemm.m=32768 gemm.k=32768
conv-strong conv strong config/bench-conv.ini 30 15 0 efficiency@4>=0.85,efficiency@8>=0.75 --size 32768 -- $c
conv-weak conv weak config/bench-conv.ini 30 15 0 efficiency@4>=0.85,efficiency@8>=0.75 --size 32768 -- $c
spai-strong spai strong config/bench-spai.ini 30 12 0 efficiency@4>=0.7,efficiency@8>=0.6 -- matrix.generator=poisson3d matrix.size=10648000 spai.repeat=1
spai-weak spai weak config/bench-spai.ini 30 12 0 efficiency@4>=0.7,efficiency@8>=0.6 --size 10648000 -- matrix.generator=poisson3d spai.repeat=1
lle-strong lle strong config/lle.ini 150 20 0.5 efficiency@4>=0.7,efficiency@8>=0.6 -- run.backend=cuda lle.n=4000000
lle-weak lle weak config/lle.ini 35 6 0.5 efficiency@4>=0.7,efficiency@8>=0.6 --size 1000000 -- run.backend=cuda
sort-strong sort strong config/bench-sort.ini 40 25 0 efficiency@4>=0.7,efficiency@8>=0.6 --size 4294967296 -- sort.vendor=false
sort-weak sort weak config/bench-sort.ini 25 15 0 efficiency@4>=0.7,efficiency@8>=0.6 --size 1073741824 -- sort.vendor=false
EOF
  fi
}

stamp=$(date -u +%Y%m%d-%H%M%S)
out=${out:-results/gpu-scaling-$issue-$stamp}
if [ -z "$tar" ]; then
  if [ -n "${OUT:-}" ]; then tar=$OUT/gpu-scaling-$issue.tar.gz; else tar=${out%/}.tar.gz; fi
fi
deadline=$((t_start + budget - 20))

# the executable: given, or BUILD/hybrid, built when missing (counted in the budget)
case "$build" in /*) ;; *) build=$root/$build ;; esac
if [ -z "$bin" ]; then
  bin=$build/hybrid
  if [ ! -x "$bin" ] && [ "$plan" = 0 ]; then
    echo "gpu-scaling: building $build (CUDA, Release, target hybrid)"
    (cd "$root" && cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHYBRID_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90}" ${CMAKE_ARGS:-} > /dev/null &&
     cmake --build "$build" -j "$(nproc)" --target hybrid > "$build.log" 2>&1) ||
      { tail -30 "$build.log" 2>/dev/null; die "the build of $build failed"; }
  fi
fi
[ -e "$bin" ] && bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
sc=("$here/scaling.sh")

# plan: every study's runs and totals, nothing run
if [ "$plan" = 1 ]; then
  total=0 names=() ests=()
  while read -r name wl mode cfg est st ser target rest; do
    [ -n "$only" ] && ! [[ "$name" =~ $only ]] && continue
    read -r -a opts <<< "$rest"
    t=$("${sc[@]}" "$wl" --launcher mpiexec --plan --gpus "$gpus" --mode "$mode" --config "$root/$cfg" \
          --est "$est" --startup "$st" --serial "$ser" --bin "$bin" --out "$out/$name" "${opts[@]}" |
        tee /dev/stderr | sed -n 's/^plan: .* est total \([0-9.]*\) s$/\1/p')
    total=$(awk -v a="$total" -v b="${t:-0}" 'BEGIN { print a + b }')
    names+=("$name") ests+=("${t:-0}")
    echo "plan: study $name: est $t s, target ${target/-/none}"
  done < <(studies 2>&1)
  [ "$paper" = 1 ] && echo "plan: then jobs/paper-tables.sh 001 --full --ranks \"1 2 4 8\" with the time left" \
    "(in a call of its own: --only '^\$' --paper)"
  echo "plan: issue $issue, GPUs $gpus: est total $total s of a budget of $budget s (build not counted)"
  # the studies in table order, packed into calls of --budget (the first also builds: ~150 s
  # when BIN does not exist yet), each call's --only ready to paste
  bsec=150
  [ -x "$bin" ] && bsec=0
  first=$((budget - 20 - bsec))
  awk -v first="$first" -v rest="$((budget - 20))" -v names="${names[*]}" -v ests="${ests[*]}" 'BEGIN {
    n = split(names, nm, " "); split(ests, es, " "); c = 0
    for (i = 1; i <= n; i++) {   # first fit, in table order
      for (j = 1; j <= c && es[i] > room[j]; j++) ;
      if (j > c) { c = j; room[j] = (j == 1 ? first : rest); list[j] = ""; sum[j] = 0 }
      if (es[i] > room[j]) printf "plan: note: %s alone (est %.0f s) does not fit into one call\n", nm[i], es[i]
      list[j] = list[j] (list[j] == "" ? "" : "|") nm[i]; room[j] -= es[i]; sum[j] += es[i]
    }
    for (j = 1; j <= c; j++) printf "plan: call %d: --only '"'"'^(%s)$'"'"' (est %.0f s)\n", j, list[j], sum[j]
    if (c > 1) printf "plan: %d calls (the first builds: %d s for its studies)\n", c, first
  }'
  exit 0
fi

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
[ -n "${OUT:-}" ] && mkdir -p "$OUT"
exec > >(tee -a "$out/gpu-scaling.log") 2>&1   # the driver's own lines go into the tar too
echo "gpu-scaling: issue $issue, GPUs $gpus, $ngpu visible, budget $budget s, binary $bin, into $out"
pack() { tar czf "$tar.tmp" -C "$(dirname "$out")" "$(basename "$out")" 2> /dev/null && mv "$tar.tmp" "$tar"; }
: > "$out/studies.txt"
bad=0 est_done=0 took_done=0
while read -r name wl mode cfg est st ser target rest; do
  [ -n "$only" ] && ! [[ "$name" =~ $only ]] && continue
  read -r -a opts <<< "$rest"
  common=("$wl" --launcher mpiexec --gpus "$gpus" --mode "$mode" --config "$root/$cfg" --est "$est"
          --startup "$st" --serial "$ser" --bin "$bin" ${mpiexec:+--mpiexec "$mpiexec"} --out "$out/$name")
  need=$("${sc[@]}" "${common[@]}" --plan "${opts[@]}" | sed -n 's/^plan: .* est total \([0-9.]*\) s$/\1/p')
  plan_need=${need:-0}
  # the estimates scaled by what the studies done so far took against theirs
  need=$(awk -v n="$plan_need" -v e="$est_done" -v t="$took_done" 'BEGIN { printf "%.0f", (e > 0 ? n * t / e : n) }')
  now=$(date +%s)
  if awk -v a="$now" -v b="${need:-0}" -v d="$deadline" 'BEGIN { exit !(a + b > d) }'; then
    echo "gpu-scaling: $name: skipped: est $need s, $((deadline - now)) s left"
    echo "$name $wl $mode skipped ${target} est=$need left=$((deadline - now))" >> "$out/studies.txt"
    bad=1
    continue
  fi
  echo "gpu-scaling: $name: est $need s (table $plan_need s; $((deadline - now)) s left)"
  t1=$(date +%s)
  "${sc[@]}" "${common[@]}" --deadline "$deadline" "${opts[@]}" < /dev/null 2>&1 | tee "$out/$name.log"
  rc=${PIPESTATUS[0]}
  est_done=$(awk -v a="$est_done" -v b="$plan_need" 'BEGIN { print a + b }')
  took_done=$((took_done + $(date +%s) - t1))
  [ "$rc" = 0 ] || bad=1
  echo "$name $wl $mode rc=$rc $target" >> "$out/studies.txt"
  "${HYBRID_PYTHON:-python3}" "$here/scaling_summary.py" "$out" > /dev/null 2>&1
  pack
done < <(studies)

if [ "$paper" = 1 ]; then
  left=$((deadline - $(date +%s)))
  if [ "$left" -gt 60 ]; then
    echo "gpu-scaling: paper-tables 001 --full --ranks \"1 2 4 8\" ($left s left)"
    (cd "$out" && timeout -k 10 "$left" bash "$here/paper-tables.sh" 001 --full --ranks "1 2 4 8" --bin "$bin" \
       --out "$out/paper-001") < /dev/null > "$out/paper-001.log" 2>&1
    rc=$?
    echo "paper-001 spai paper rc=$rc -" >> "$out/studies.txt"
    [ "$rc" = 0 ] || { bad=1; echo "gpu-scaling: paper-tables exited $rc (log: $out/paper-001.log)"; }
  else
    echo "paper-001 spai paper skipped - left=$left" >> "$out/studies.txt"
    echo "gpu-scaling: paper-tables skipped: $left s left"
    bad=1
  fi
fi
"${HYBRID_PYTHON:-python3}" "$here/scaling_summary.py" "$out" || bad=1
pack
[ -n "${OUT:-}" ] && cp "$out/summary.md" "$OUT/summary-$issue.md" 2> /dev/null
echo "gpu-scaling: $(( $(date +%s) - t_start )) s; summary $out/summary.md; tar $tar"
exit $bad
