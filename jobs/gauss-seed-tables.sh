#!/usr/bin/env bash
# gauss-seed-tables.sh - reproduce the seed's (000) tables: Gaussian elimination times for
# n = 16, 32, ..., 1024: serial (1 rank, host, naive) vs GPU naive with device memory (seed:
# buffer) vs GPU naive with managed memory (seed: USM), the seed's own figures beside ours, and
# a column for our blocked LU.  Without a usable GPU the GPU columns say n/a.
#
# usage: jobs/gauss-seed-tables.sh [--bin build/hybrid] [--max 1024] [--reps 3]
#                                  [--precision single] [--out DIR] [--mpiexec "mpiexec -n 1"]
# Each figure is the mean of --reps runs after one warm-up run in the same process (the seed: one
# warm-up, then the mean of k runs; here gauss.repeat = reps + 1), in ms, from the HPL line's Time (elimination + back substitution; for naive
# it includes the matrix upload and download, like the seed's buffer version).  The seed used
# float: --precision single by default; matrix diagdom (naive does not pivot).
# The figures come from each run's JSON record (DIR/TAG.rec/, metrics.time_seconds, read by
# jobs/hyplot.py), not from its printed output.
# Writes DIR/tables.txt (the printed tables), DIR/times.csv (n, seed and our figures in ms) and,
# when python3 has matplotlib, DIR/times.png (time against n) and DIR/speedup.png (serial time
# over GPU time against n, the seed's curve beside ours).
# Exit status: 0 when every run passed; 1 on a usage error; 4 when any run failed (its cell
# says FAIL, its log is kept in DIR, and the last line names the failed runs).  The GPU probe
# run only decides whether the GPU columns are measured (n/a without a GPU).
set -u
BIN=build/hybrid
MAX=1024
REPS=3
PREC=single
OUT=gauss-seed-tables
MPIEXEC=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --max) MAX=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --precision) PREC=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    *) echo "gauss-seed-tables.sh: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
if [ ! -x "$BIN" ]; then echo "gauss-seed-tables.sh: no executable '$BIN' (--bin)" >&2; exit 1; fi
JOBS=$(cd "$(dirname "$0")" && pwd)   # jobs/hyplot.py: records and plots
PY=${HYBRID_PYTHON:-python3}
mkdir -p "$OUT"

# the seed's figures (ms): serial, GPU buffer, GPU USM (Intel UHD P630 / Xeon E-2176G)
declare -A SEED_SER=([16]=0.470433 [32]=0.812061 [64]=6.41777 [128]=50.598 [256]=406.665 [512]=3236.67 [1024]=25885.7)
declare -A SEED_BUF=([16]=1.42439 [32]=2.292 [64]=4.03059 [128]=5.60625 [256]=7.42548 [512]=75.7885 [1024]=590.462)
declare -A SEED_USM=([16]=1.59059 [32]=2.02017 [64]=2.9549 [128]=4.81008 [256]=5.91026 [512]=89.6216 [1024]=616.103)

# one run: prints the time in ms from its record (metrics.time_seconds, the HPL line's Time), or
# "FAIL" when it did not pass (exit code not 0, no record or one that did not pass); the log and
# the record (DIR/TAG.rec/) are kept and the run's name added to DIR/failed.txt
FAILED_LIST="$OUT/failed.txt"
: > "$FAILED_LIST"
one() {
  local log=$1; shift
  local rd=${log%.log}.rec   # the run's JSON record: the figure is its metrics.time_seconds
  rm -rf "$rd"
  $MPIEXEC "$BIN" run.workload=gauss "output.dir=$rd" run.progress=0 "$@" > "$log" 2>&1
  local rc=$?
  local ms
  ms=$("$PY" "$JOBS/hyplot.py" record "$rd" metrics.time_seconds --scale 1000)
  if [ $rc -ne 0 ] || [ "$ms" = FAIL ] || [ -z "$ms" ]; then
    echo "$(basename "$log" .log) (exit $rc)" >> "$FAILED_LIST"
    echo "FAIL"
    return
  fi
  echo "$ms"
}
# mean of REPS runs after one warm-up run, all in one process (gauss.repeat)
timed() {
  local tag=$1; shift
  one "$OUT/$tag.log" gauss.repeat=$((REPS + 1)) "$@"
}

GPU=0
if [ "$(one "$OUT/probe.log" run.backend=cuda gauss.algorithm=naive gauss.n=16 gauss.matrix=diagdom)" != "FAIL" ]; then GPU=1; fi
: > "$FAILED_LIST"   # the probe decides the GPU columns; it is not a run of the tables
echo "gauss seed tables: $BIN, precision $PREC, matrix diagdom, mean of $REPS run(s) after a warm-up; GPU: $([ $GPU = 1 ] && echo yes || echo 'none (GPU columns n/a)')"
COMMON="gauss.matrix=diagdom gauss.precision=$PREC"
declare -A SER BUF USM BLK
n=16
while [ "$n" -le "$MAX" ]; do
  SER[$n]=$(timed "serial.$n" run.backend=host gauss.algorithm=naive gauss.n=$n $COMMON)
  if [ $GPU = 1 ]; then
    BUF[$n]=$(timed "device.$n" run.backend=cuda gauss.algorithm=naive gauss.memory=device gauss.n=$n $COMMON)
    USM[$n]=$(timed "managed.$n" run.backend=cuda gauss.algorithm=naive gauss.memory=managed gauss.n=$n $COMMON)
    BLK[$n]=$(timed "blocked.$n" run.backend=cuda gauss.algorithm=blocked gauss.n=$n $COMMON)
  else
    BUF[$n]="n/a"; USM[$n]="n/a"
    BLK[$n]=$(timed "blocked.$n" run.backend=host gauss.algorithm=blocked gauss.n=$n $COMMON)
  fi
  n=$((n * 2))
done
BLKDEV=$([ $GPU = 1 ] && echo "GPU" || echo "host")

# the tables, printed and kept in DIR/tables.txt
print_tables() {
echo
echo "Table 1. serial vs GPU (buffer / device memory), time in ms"
printf "%6s | %12s %12s | %12s %12s | %14s\n" "n" "seed serial" "seed GPU" "ours serial" "ours GPU" "ours blocked $BLKDEV"
n=16
while [ "$n" -le "$MAX" ]; do
  printf "%6d | %12s %12s | %12s %12s | %14s\n" "$n" "${SEED_SER[$n]:-}" "${SEED_BUF[$n]:-}" "${SER[$n]}" "${BUF[$n]}" "${BLK[$n]}"
  n=$((n * 2))
done
echo
echo "Table 2. GPU buffer (device memory) vs USM (managed memory), time in ms"
printf "%6s | %12s %12s | %12s %12s\n" "n" "seed buffer" "seed USM" "ours device" "ours managed"
n=16
while [ "$n" -le "$MAX" ]; do
  printf "%6d | %12s %12s | %12s %12s\n" "$n" "${SEED_BUF[$n]:-}" "${SEED_USM[$n]:-}" "${BUF[$n]}" "${USM[$n]}"
  n=$((n * 2))
done
echo
}
print_tables | tee "$OUT/tables.txt"
# the figures as CSV, and the plots (skipped with a note when matplotlib is missing)
{
  echo "n,seed_serial_ms,seed_gpu_buffer_ms,seed_gpu_usm_ms,serial_ms,gpu_device_ms,gpu_managed_ms,blocked_${BLKDEV}_ms"
  n=16
  while [ "$n" -le "$MAX" ]; do
    echo "$n,${SEED_SER[$n]:-},${SEED_BUF[$n]:-},${SEED_USM[$n]:-},${SER[$n]},${BUF[$n]},${USM[$n]},${BLK[$n]}"
    n=$((n * 2))
  done
} > "$OUT/times.csv"
"$PY" - "$OUT" "$JOBS" "$PREC" "$BLKDEV" <<'PY'
import csv, os, sys
out, jobs, prec, blkdev = sys.argv[1:5]
sys.path.insert(0, jobs)
import hyplot
rows = list(csv.DictReader(open(os.path.join(out, "times.csv"))))
def num(v):
    try:
        return float(v)
    except ValueError:
        return None
if hyplot.mpl() is None:
    print("plots: skipped (python3 has no matplotlib; make deps installs it)")
    sys.exit(0)
ns = [int(r["n"]) for r in rows]
cols = [c for c in rows[0] if c != "n"]
series = [(c[:-3].replace("_", " "), ns, [num(r[c]) for r in rows]) for c in cols]
sub = "precision %s, matrix diagdom, naive (serial: host; GPU: device / managed memory), blocked on %s" % (prec, blkdev)
hyplot.line_plot(os.path.join(out, "times.png"), "gauss (seed 000): time against n\n" + sub, "n (matrix order)",
                 "time (ms, mean of the timed runs)", series, logx=2, logy=True,
                 dashed=[s[0] for s in series if s[0].startswith("seed")])
sp = []
for lab, a, b in (("seed: serial / GPU buffer", "seed_serial_ms", "seed_gpu_buffer_ms"),
                  ("seed: serial / GPU USM", "seed_serial_ms", "seed_gpu_usm_ms"),
                  ("ours: serial / GPU device", "serial_ms", "gpu_device_ms"),
                  ("ours: serial / GPU managed", "serial_ms", "gpu_managed_ms")):
    sp.append((lab, ns, [num(r[a]) / num(r[b]) if num(r[a]) and num(r[b]) else None for r in rows]))
hyplot.line_plot(os.path.join(out, "speedup.png"), "gauss (seed 000): GPU speed-up against n\n" + sub,
                 "n (matrix order)", "speed-up (serial time / GPU time, 1 = none)", sp, logx=2, logy=True, hline=1.0,
                 dashed=[s[0] for s in sp if s[0].startswith("seed")])
print("plots: %s, %s" % (os.path.join(out, "times.png"), os.path.join(out, "speedup.png")))
PY
echo "logs, tables.txt, times.csv and plots in $OUT/; tables done"
NFAIL=$(wc -l < "$FAILED_LIST")
if [ "$NFAIL" -gt 0 ]; then
  echo "gauss-seed-tables.sh: $NFAIL run(s) failed (FAIL in the tables; logs in $OUT/): $(tr '\n' ' ' < "$FAILED_LIST")" >&2
  exit 4
fi
