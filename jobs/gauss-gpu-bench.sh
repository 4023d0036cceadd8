#!/usr/bin/env bash
# gauss-gpu-bench.sh - the gauss GPU benchmarks with their targets, on one machine with 1-2 GPUs:
#   1. blocked FP64 n=32768 on 1 GPU beside cuSOLVER dgetrf+dgetrs and a cuBLAS DGEMM (same run):
#      target factorization rate >= 1.2 x cuSOLVER's at n = 32768 (issue 18; the target line
#      printed at that n)
#   2. mixed (FP32 LU + FP64 refinement) n=32768: target time <= 0.4 x cuSOLVER FP64 solve
#   3. blocked FP64 n=1024 (mean of 10 runs after a warm-up): target <= 3 ms
#   4. blocked FP64 n=32768 on 2 GPUs vs 1: target speed-up >= 1.8, with both 2-GPU grids (1x2:
#      L panels broadcast along the row; 2x1: U rows down the column and row swaps (one exchange
#      per panel, NCCL when used), panel gather through MPI); the faster one is compared; each log
#      says its broadcast path ("gauss: panel broadcasts: nccl ..." or "mpi (host-staged): why")
#   5. (not in the default list) 2 GPUs, grid 1x2, gauss.bcast=mpi: the host-staged path, to
#      compare with item 4's NCCL figure
#   6. HPL-MxP, FP16 trailing updates (matrix = hplmxp, precision = mixed, low = fp16, GMRES-IR
#      in FP64), n = --mxp-n (65536: FP64 copy 34 GB + FP32 factors 17 GB), 1 GPU, the second of
#      two runs: target >= 250 TF-equivalent as HPL-MxP reports it ((2/3 n^3 + 3/2 n^2) over LU +
#      refinement), beside the LU-only rate and the refinement / GMRES iteration counts
#   7. the same with BF16 inputs
#   8. the factor time split (gauss.profile = true, synchronised) of FP64 and of HPL-MxP FP16 at
#      n = --n: panel, swaps, trsm+U, lookahead gemm, rest of the trailing update (not in the
#      default list: it slows the runs); every profile is of the second of two runs (repeat 2):
#      a first run's profile holds the library's first calls (lazy module loading, first
#      heuristics), which land in whatever part calls a kernel first
#  10. n = 1024 FP64 (11 runs, the mean of 10 after a warm-up) beside cuSOLVER getrf + getrs
#      warmed up over as many runs: the small-n LU (gauss.small = on: one cooperative kernel),
#      the blocked LU with the auto nb (one 1024 panel, gauss.small = off) with the vendor and
#      the recursive panel (panel_nb 64, 128), and nb 256 with lookahead; target <= 0.8 x the
#      vendor
#   9. FP64 n = --n with gauss.panel = recursive (panel_nb 64 and 32) beside the vendor panel of
#      item 1's settings (compare_cusolver off, repeat 3), and the recursive panel's profile
#  11. the blocked factor's variants at FP64 n = --n (compare_cusolver off, repeat 2: one timed
#      run after a warm-up), one line each with the factor time and TFLOP/s: the 20:10 path
#      (vendor panel, host pivots), device pivots, the fused panel with lookahead 1 and 0, the
#      fused panel at nb 1024, with gauss.lda = auto (padded) and with base blocks of 16
#      columns (panel_nb 16: fewer, fuller thread blocks); then the fused panel beside cuSOLVER
#  12. n = --mxp-n: FP64 with the fused panel and nb 1024 beside cuSOLVER dgetrf (targets >= 50
#      TF and >= 1.25x in the same run; repeat 2), FP64 fused at the auto nb; HPL-MxP FP16 with
#      the fused panel (auto nb and 1024), the vendor panel, and fused with gauss.tensor = tf32 (the
#      panel's and TRSM's FP32 GEMMs on TF32 tensor cores) (target >= 250 TF-equivalent)
#  13. the profiles (gauss.profile = true) of FP64 and HPL-MxP FP16 with the fused panel at --n
#  14. HPL-MxP FP16 at --mxp-big (98304: FP64 copy 77 GB + FP32 factors 39 GB on the device; at
#      most 106496 on an H200: 91 + 45 GB) without row exchanges (gauss.pivoting = none, as
#      HPL-MxP's rules allow), the FP32 TRSM and panel GEMMs on TF32 tensor cores (gauss.tensor =
#      tf32), nb 2048, traced: the target line, the issue's HPL-MxP figure (H200, 12-02 07:25,
#      b8a85d5: 392.0 TF-equivalent; partial pivoting, the vendor's panel, nb 1024 as before:
#      248.8 in the same run; --only mxpvariant without keys runs that one)
#  mxpvariant. one HPL-MxP FP16 line at --mxp-big (traced, repeat 2) with the arguments after --
#      (e.g. gauss.pivoting=none, gauss.tensor=tf32, gauss.nb=2048): "target HPL-MxP fp16: R
#      TF-equivalent ..." with the variant's keys, so that one GPU run compares variants (one
#      command each, each with its own --out: the logs share a name)
#  trace. the factor time split without synchronisation (gauss.trace = true: events on both
#      streams) of FP64 at --n and at --mxp-n, and of HPL-MxP FP16 at --n and --mxp-n: first
#      panel, swaps, trsm+U, low copies, lookahead gemm, trailing gemm (with their TF), the main
#      stream waiting for the next panel; the side stream's panels; by quarter of the steps
#  chunks. gauss.update_chunks (the trailing update beyond the lookahead panel in chunks, each
#      chunk's row swaps + TRSM on an aux stream beside the previous chunk's GEMM): FP64 at each
#      order of --chunks-n (default --mxp-n and --n) with 1 chunk beside cuSOLVER (same run),
#      then each C:PRIORITY[:SIDE] of --chunks (default "2:high 4:high 4:same"; PRIORITY the aux
#      stream's, SIDE the lookahead panel stream's gauss.side_priority, default high; C = 1 with
#      SIDE = same: the side priority alone), every run traced; one line each with the factor TF,
#      the ratio to 1 chunk and to cuSOLVER
#  variant. one FP64 line at --n with the arguments after -- (compare_cusolver off, repeat 2,
#      traced): "variant FP64 n=N (ARGS): factor T s = R TF"
#  small. the small-n LU (gauss.small = on: one launch per panel) against cuSOLVER getrf + getrs,
#      against the blocked LU (gauss.small = off) and the cooperative kernel (gauss.small = coop)
#      at n = 512, 1024, 2048 (11 runs each): where auto should stop taking it
#  panel. the nb = 1024 FP64 panel alone (test_gauss_trsm_gpu --panel --n, from the build
#      directory of --bin): fused with gauss.panel_sync = flags and = grid beside the vendor's
#      getrf at m = 1024 .. --n rows, and one base block of 32 columns; both ways' pivots and
#      factors compared (where gauss.panel_vendor_short's default comes from)
# usage: jobs/gauss-gpu-bench.sh [--bin build-gpu/hybrid] [--mpiexec mpiexec] [--n 32768]
#                                [--out gauss-gpu-bench] [--only 1,2,3,4[,5,...,14,mxpvariant,trace,chunks,variant,small,panel]] [--mxp-n 65536]
#                                [--mxp-big 98304] [--chunks "2:high 4:high 4:same"] [--chunks-n "65536 32768"]
#                                [-- extra key=value ...]
set -u
BIN=build-gpu/hybrid
MPIEXEC=mpiexec
N=32768
MXPN=65536
MXPBIG=98304
CHV="2:high 4:high 4:same"
CHN=
OUT=gauss-gpu-bench
ONLY=1,2,3,4
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --n) N=$2; shift 2 ;;
    --mxp-n) MXPN=$2; shift 2 ;;
    --mxp-big) MXPBIG=$2; shift 2 ;;
    --chunks) CHV=$2; shift 2 ;;
    --chunks-n) CHN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "gauss-gpu-bench.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
HERE=$(cd "$(dirname "$0")/.." && pwd)
# OpenMPI binds each rank to one core by default: the matrix generation and the host BLAS would
# run on one thread (n = 65536: ~25 s of generation); let the rank use the machine's cores
BIND=()
if "$MPIEXEC" --version 2>&1 | grep -qiE 'open mpi|openrte|open-mpi'; then BIND=(--bind-to none); fi
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}   # no NVLink multicast
INI=$HERE/config/bench-gauss.ini
mkdir -p "$OUT"
want() { [[ ",$ONLY," == *",$1,"* ]]; }
run() {  # run NAME RANKS ARGS...
  local name=$1 np=$2; shift 2
  echo "== $name: $np rank(s): $*"
  $MPIEXEC "${BIND[@]+"${BIND[@]}"}" -n "$np" "$BIN" "$INI" output.dir="$OUT/records" "$@" "${EXTRA[@]+"${EXTRA[@]}"}" > "$OUT/$name.log" 2>&1
  echo "   exit $?"
  grep -E "^(reference|compare|mixed: [0-9]|repeat|PASSED|FAILED|gauss: panel broadcasts|hpl-mxp|profile|trace)|^[NSB][DSM][HG]|Gflops per|scaled" "$OUT/$name.log" | sed 's/^/   /'
}
ratio() {  # the compare line of log $1 against the FP64 targets (TF floor $2, ratio floor $3)
  awk -v tf="$2" -v rf="$3" -v name="$1" '/^compare: blocked factor/{match($0, /ratio [0-9.]+/); r = substr($0, RSTART + 6, RLENGTH - 6); printf "target FP64 %s: %s TFLOP/s (>= %s), %s x cuSOLVER (>= %s): %s\n", name, $4, tf, r, rf, ($4 + 0 >= tf && r + 0 >= rf ? "met" : "NOT met"); exit}' "$OUT/$1.log"
}
tval() { awk '/^[NSB][DSM][HG]F? /{print $6; exit}' "$OUT/$1.log"; }
if want 1; then run fp64_$N 1 gauss.n=$N; [ "$N" = 32768 ] && ratio fp64_$N 0 1.2; fi
if want 2; then run mixed_$N 1 gauss.n=$N gauss.precision=mixed; fi
if want 3; then
  run fp64_1024 1 gauss.n=1024 gauss.compare_cusolver=false gauss.repeat=11
  t=$(tval fp64_1024); [ -n "$t" ] && awk -v t="$t" 'BEGIN{printf "target n=1024: %.3f ms (target <= 3 ms): %s\n", t*1e3, (t*1e3 <= 3 ? "met" : "NOT met")}'
fi
bcast() { sed -n 's/^gauss: panel broadcasts: \([a-z]*\).*/\1/p' "$OUT/$1.log" | head -1; }
if want 4; then
  run fp64_${N}_1gpu 1 gauss.n=$N gauss.compare_cusolver=false
  run fp64_${N}_2gpu 2 gauss.n=$N gauss.compare_cusolver=false gauss.grid=1x2
  run fp64_${N}_2gpu_2x1 2 gauss.n=$N gauss.compare_cusolver=false gauss.grid=2x1
  t1=$(tval fp64_${N}_1gpu)
  best=""; bt=""
  for g in "1x2:fp64_${N}_2gpu" "2x1:fp64_${N}_2gpu_2x1"; do
    t=$(tval "${g#*:}")
    [ -n "$t1" ] && [ -n "$t" ] && awk -v a="$t1" -v b="$t" -v g="${g%%:*}" -v bc="$(bcast "${g#*:}")" \
      'BEGIN{printf "2 GPUs, grid %s, broadcasts %s: %.3f s vs 1 GPU %.3f s, speed-up %.3f\n", g, bc, b, a, a/b}'
    if [ -n "$t" ] && { [ -z "$bt" ] || awk -v t="$t" -v b="$bt" 'BEGIN{exit !(t < b)}'; }; then bt=$t; best=$g; fi
  done
  [ -n "$t1" ] && [ -n "$bt" ] && awk -v a="$t1" -v b="$bt" -v g="${best%%:*}" -v bc="$(bcast "${best#*:}")" \
    'BEGIN{printf "target 2 GPUs vs 1 (grid %s, broadcasts %s): %.3f s vs %.3f s, speed-up %.3f (target >= 1.8): %s\n", g, bc, b, a, a/b, (a/b >= 1.8 ? "met" : "NOT met")}'
fi
if want 5; then
  run fp64_${N}_2gpu_mpi 2 gauss.n=$N gauss.compare_cusolver=false gauss.grid=1x2 gauss.bcast=mpi
  t1=$(tval fp64_${N}_1gpu); t=$(tval fp64_${N}_2gpu_mpi)
  [ -n "$t1" ] && [ -n "$t" ] && awk -v a="$t1" -v b="$t" 'BEGIN{printf "2 GPUs, grid 1x2, broadcasts mpi (host-staged): %.3f s vs 1 GPU %.3f s, speed-up %.3f\n", b, a, a/b}'
fi
MXP=(gauss.matrix=hplmxp gauss.precision=mixed gauss.refine=gmres gauss.compare_cusolver=false gauss.repeat=2)
mxp() {  # the HPL-MxP rate of log $1 against the 250 TF-equivalent target
  awk '/^hpl-mxp: /{l = $3; sub(",", "", l); for (i = 1; i <= NF; i++) if ($i == "Gflops") {printf "target HPL-MxP %s: %.1f TF-equivalent (target >= 250): %s\n", l, $(i-1)/1e3, ($(i-1)/1e3 >= 250 ? "met" : "NOT met"); exit}}' "$OUT/$1.log"
}
if want 6; then run mxp_fp16_$MXPN 1 gauss.n=$MXPN gauss.low=fp16 "${MXP[@]}"; mxp mxp_fp16_$MXPN; fi
if want 7; then run mxp_bf16_$MXPN 1 gauss.n=$MXPN gauss.low=bf16 "${MXP[@]}"; mxp mxp_bf16_$MXPN; fi
if want 8; then
  run profile_fp64_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.repeat=2 gauss.profile=true
  run profile_mxp_fp16_$N 1 gauss.n=$N gauss.low=fp16 "${MXP[@]}" gauss.repeat=2 gauss.profile=true
fi
if want 9; then
  run panel_vendor_$N 1 gauss.n=$N gauss.compare_cusolver=false
  run panel_rec64_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.panel=recursive
  run panel_rec32_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.panel=recursive gauss.panel_nb=32
  run profile_rec64_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.panel=recursive gauss.repeat=2 gauss.profile=true
  tv=$(tval panel_vendor_$N)
  for r in rec64 rec32; do
    t=$(tval panel_${r}_$N)
    [ -n "$tv" ] && [ -n "$t" ] && awk -v a="$tv" -v b="$t" -v r="$r" -v n="$N" \
      'BEGIN{printf "panel %s vs vendor, FP64 n=%d: %.4f s vs %.4f s (%.1f vs %.1f TFLOP/s), speed-up %.3f\n", r, n, b, a, 2/3*n^3/b/1e12, 2/3*n^3/a/1e12, a/b}'
  done
fi
if want 10; then
  for v in "small:gauss.small=on" "vendor:gauss.small=off" "rec64:gauss.panel=recursive gauss.panel_nb=64" "rec128:gauss.panel=recursive gauss.panel_nb=128" "nb256:gauss.nb=256"; do
    # shellcheck disable=SC2086
    run small1024_${v%%:*} 1 gauss.n=1024 gauss.repeat=11 ${v#*:}
    awk -v v="${v%%:*}" '/^compare: blocked solve time/{for (i = 1; i <= NF; i++) if ($i == "ratio") {r = $(i+1); sub(";", "", r); printf "target n=1024 (%s): ours / vendor getrf+getrs (means, warm) = %s (target <= 0.8): %s\n", v, r, (r + 0 <= 0.8 ? "met" : "NOT met"); exit}}' "$OUT/small1024_${v%%:*}.log"
  done
fi
# the factor time F of log $1 ("Gflops per ...: ... factor F s") as "F s, R TFLOP/s" for order $2
ftime() {
  awk -v n="$2" -v v="$1" '/^Gflops per /{for (i = 1; i <= NF; i++) if ($i == "factor") {f = $(i+1); printf "study n=%d %s: factor %.4f s, %.2f TFLOP/s\n", n, v, f, 2/3*n^3/f/1e12; exit}}' "$OUT/$1.log"
}
if want 11; then
  for v in "old_vendor_hostpiv:gauss.panel=vendor gauss.pivots=host" "vendor:gauss.panel=vendor" \
           "fused:gauss.panel=fused" "fused_la0:gauss.panel=fused gauss.lookahead=0" \
           "fused_nb1024:gauss.panel=fused gauss.nb=1024" "fused_padlda:gauss.panel=fused gauss.lda=auto" \
           "fused_pnb16:gauss.panel=fused gauss.panel_nb=16"; do
    # shellcheck disable=SC2086
    run study_${v%%:*}_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.repeat=2 ${v#*:}
    ftime study_${v%%:*}_$N $N
  done
  run study_fused_vs_vendor_$N 1 gauss.n=$N gauss.panel=fused gauss.repeat=2
  ratio study_fused_vs_vendor_$N 33.7 1.2
fi
if want 12; then
  run big_fp64_fused_nb1024_$MXPN 1 gauss.n=$MXPN gauss.panel=fused gauss.nb=1024 gauss.repeat=2
  ratio big_fp64_fused_nb1024_$MXPN 50 1.25
  ftime big_fp64_fused_nb1024_$MXPN $MXPN
  run big_fp64_fused_$MXPN 1 gauss.n=$MXPN gauss.panel=fused gauss.compare_cusolver=false gauss.repeat=2
  ftime big_fp64_fused_$MXPN $MXPN
  for v in "fused:gauss.panel=fused" "fused_nb1024:gauss.panel=fused gauss.nb=1024" "vendor:gauss.panel=vendor" \
           "fused_tf32:gauss.panel=fused gauss.tensor=tf32"; do
    # shellcheck disable=SC2086
    run big_mxp_fp16_${v%%:*}_$MXPN 1 gauss.n=$MXPN gauss.low=fp16 ${v#*:} "${MXP[@]}"
    echo "   (${v%%:*})"; mxp big_mxp_fp16_${v%%:*}_$MXPN
  done
fi
if want 13; then
  run profile_fp64_fused_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.repeat=2 gauss.profile=true gauss.panel=fused
  run profile_mxp_fp16_fused_$N 1 gauss.n=$N gauss.low=fp16 "${MXP[@]}" gauss.repeat=2 gauss.profile=true gauss.panel=fused
fi
if want 14; then
  run big_mxp_fp16_$MXPBIG 1 gauss.n=$MXPBIG gauss.low=fp16 gauss.trace=true gauss.pivoting=none gauss.tensor=tf32 \
    gauss.nb=2048 "${MXP[@]}"
  mxp big_mxp_fp16_$MXPBIG
fi
if want mxpvariant; then
  run mxpvariant_fp16_$MXPBIG 1 gauss.n=$MXPBIG gauss.low=fp16 gauss.trace=true "${MXP[@]}"
  echo "   (variant: ${EXTRA[*]+${EXTRA[*]}})"; mxp mxpvariant_fp16_$MXPBIG
fi
if want trace; then
  for nn in $N $MXPN; do
    run trace_fp64_$nn 1 gauss.n=$nn gauss.compare_cusolver=false gauss.repeat=2 gauss.trace=true
    run trace_mxp_fp16_$nn 1 gauss.n=$nn gauss.low=fp16 "${MXP[@]}" gauss.trace=true
  done
fi
ftime() { sed -n 's/^Gflops per [^(]*(time [0-9.]* s: factor \([0-9.]*\) s.*/\1/p' "$OUT/$1.log" | head -1; }
vtime() { sed -n 's/^reference: [A-Za-z]* dgetrf \([0-9.]*\) ms.*/\1/p' "$OUT/$1.log" | head -1; }
if want chunks; then
  # gauss.update_chunks in FP64 at each order of --chunks-n (default --mxp-n and --n): 1 chunk
  # (the default) beside cuSOLVER, then each variant C:PRIORITY of --chunks (default 2 and 4
  # chunks with the aux stream's priority high, 4 at the main stream's), each with the trace
  # (unsynchronised: the aux stream's line)
  for nn in ${CHN:-$MXPN $N}; do
    run chunks1_fp64_$nn 1 gauss.n=$nn gauss.repeat=2 gauss.trace=true
    for v in $CHV; do
      IFS=: read -r vc vp vs <<< "$v"
      run chunks${v//:/}_fp64_$nn 1 gauss.n=$nn gauss.compare_cusolver=false gauss.repeat=2 gauss.trace=true \
        gauss.update_chunks=$vc gauss.update_priority=${vp:-high} gauss.side_priority=${vs:-high}
    done
    t1=$(ftime chunks1_fp64_$nn); tv=$(vtime chunks1_fp64_$nn)
    for v in 1 $CHV; do
      v=${v//:/}
      t=$(ftime chunks${v}_fp64_$nn)
      [ -n "$t" ] && [ -n "$t1" ] && [ -n "$tv" ] && awk -v n="$nn" -v t="$t" -v a="$t1" -v r="$tv" -v v="$v" \
        'BEGIN{tf = 2/3*n^3/t/1e12; printf "update chunks %s, FP64 n=%d: factor %.4f s = %.2f TF, %.3fx of 1 chunk, %.3fx cuSOLVER dgetrf (%.2f TF, same run as 1 chunk; targets at 65536 >= 50 TF and >= 1.25x, at 32768 >= 1.2x)\n", v, n, t, tf, a/t, r/1e3/t, 2/3*n^3/(r/1e3)/1e12}'
    done
  done
fi
if want variant; then
  # one FP64 line at --n with the arguments after -- (compare_cusolver off, repeat 2, traced)
  run variant_fp64_$N 1 gauss.n=$N gauss.compare_cusolver=false gauss.repeat=2 gauss.trace=true
  t=$(ftime variant_fp64_$N)
  [ -n "$t" ] && awk -v n="$N" -v t="$t" -v x="${EXTRA[*]+${EXTRA[*]}}" \
    'BEGIN{printf "variant FP64 n=%d (%s): factor %.4f s = %.2f TF\n", n, x, t, 2/3*n^3/t/1e12}'
fi
if want small; then
  for n in 512 1024 2048; do
    run small_n${n} 1 gauss.n=$n gauss.repeat=11 gauss.small=on
    run small_coop_n${n} 1 gauss.n=$n gauss.repeat=11 gauss.small=coop gauss.compare_cusolver=false
    run small_off_n${n} 1 gauss.n=$n gauss.repeat=11 gauss.small=off gauss.compare_cusolver=false
    r=$(awk '/^compare: blocked solve time/{for (i = 1; i <= NF; i++) if ($i == "ratio") {r = $(i+1); sub(";", "", r); print r; exit}}' "$OUT/small_n${n}.log")
    ts=$(tval small_n${n}); tc=$(tval small_coop_n${n}); tb=$(tval small_off_n${n})
    [ -n "$r" ] && [ -n "$ts" ] && [ -n "$tb" ] && awk -v n="$n" -v r="$r" -v ts="$ts" -v tb="$tb" -v tc="${tc:-0}" \
      'BEGIN{printf "small-n LU n=%d: %.3f ms, ours / vendor getrf+getrs (means, warm) = %s (target <= 0.8): %s; blocked LU (gauss.small=off) %.3f ms: small is %.2fx faster; coop kernel (gauss.small=coop) %.3f ms\n", n, ts*1e3, r, (r + 0 <= 0.8 ? "met" : "NOT met"), tb*1e3, tb/ts, tc*1e3}'
  done
fi
if want panel; then
  T=$(dirname "$BIN")/tests/test_gauss_trsm_gpu
  [ -x "$T" ] || T=$(find "$(dirname "$BIN")" -name test_gauss_trsm_gpu -type f | head -1)
  echo "== panel: $T --panel $N"
  if [ -n "$T" ] && [ -x "$T" ]; then "$T" --panel "$N" 2>&1 | tee "$OUT/panel_$N.log" | sed 's/^/   /'
  else echo "   no test_gauss_trsm_gpu beside $BIN (a build with -DHYBRID_CUDA=ON makes it)"; fi
fi
echo "logs in $OUT/"
