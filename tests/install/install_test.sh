#!/usr/bin/env bash
# install_test.sh BUILD WORK MPIEXEC - install BUILD into WORK/prefix and use the install from
# WORK/elsewhere: bare config names, HYBRID_DATADIR, the man page, an installed job script.
set -uo pipefail
build=${1:?usage: install_test.sh BUILD WORK MPIEXEC}; work=${2:?}; mpiexec=${3:?}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$work"; mkdir -p "$work/elsewhere" "$work/data"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in bin/hybrid share/hybrid/config/selftest.ini share/hybrid/config/spai.ini \
         share/hybrid/jobs/selftest.slurm share/hybrid/jobs/report.py share/hybrid/jobs/scaling.sh \
         share/hybrid/jobs/hyplot.py share/hybrid/jobs/validate_job.py \
         share/man/man1/hybrid.1; do
  [ -s "$prefix/$f" ] || bad "$prefix/$f not installed (or empty)"
done
[ -x "$prefix/bin/hybrid" ] || bad "bin/hybrid is not executable"
if [ -x "$build/hybrid-validate" ] && [ ! -x "$prefix/bin/hybrid-validate" ]; then
  bad "hybrid-validate was built but not installed"
fi
# the man page: roff with the help's sections
man=$prefix/share/man/man1/hybrid.1
grep -q '^\.TH HYBRID 1' "$man" || bad "hybrid.1 has no .TH line"
grep -q '^\.SH EXIT CODES' "$man" || bad "hybrid.1 has no EXIT CODES section (from --help)"
grep -q '^\.SH SECTIONS AND KEYS' "$man" && grep -q 'copy_mib' "$man" || bad "hybrid.1 does not list the keys of --help"
# the installed job script knows its prefix
grep -q "^hybrid_prefix='$prefix'" "$prefix/share/hybrid/jobs/selftest.slurm" \
  || bad "installed selftest.slurm does not name the prefix: $(grep '^hybrid_prefix=' "$prefix/share/hybrid/jobs/selftest.slurm")"

cd "$work/elsewhere" || exit 1
small="selftest.n=1000 selftest.copy_mib=1 selftest.reps=1 run.backend=host"
# 1. a bare name found in the prefix's share/hybrid/config
out=$("$mpiexec" -n 1 "$prefix/bin/hybrid" selftest.ini $small output.dir=r1 2>&1); rc=$?
[ $rc = 0 ] || bad "installed hybrid selftest.ini: exit $rc (want 0): $out"
echo "$out" | grep -q '^PASSED' || bad "installed hybrid selftest.ini: no PASSED line"
rec=$(ls r1/*.json 2>/dev/null | head -1)
if [ -z "$rec" ]; then bad "no record in r1/"; else
  python3 - "$rec" "$prefix/share/hybrid/config/selftest.ini" <<'PY' || bad "record's config is not the installed file"
import json, os, sys
r = json.load(open(sys.argv[1]))
def find(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if isinstance(v, str) and v.endswith("selftest.ini"): return v
            f = find(v)
            if f: return f
    return None
got = find(r)
sys.exit(0 if got and os.path.realpath(got) == os.path.realpath(sys.argv[2]) else 1)
PY
fi
# 2. HYBRID_DATADIR comes before the prefix; the current directory before both
sed 's/^n = .*/n = 777/' "$prefix/share/hybrid/config/selftest.ini" > "$work/data/mine.ini"
out=$(HYBRID_DATADIR=$work/data "$mpiexec" -n 1 "$prefix/bin/hybrid" mine.ini selftest.copy_mib=1 selftest.reps=1 run.backend=host output.record=false 2>&1); rc=$?
[ $rc = 0 ] || bad "HYBRID_DATADIR=... hybrid mine.ini: exit $rc (want 0): $out"
echo "$out" | grep -q "$work/data/mine.ini" || bad "the run does not name \$HYBRID_DATADIR/mine.ini: $out"
# 3. a bare name found nowhere: exit 1, the places looked in are named
out=$("$mpiexec" -n 1 "$prefix/bin/hybrid" nosuch.ini 2>&1); rc=$?
[ $rc = 1 ] || bad "hybrid nosuch.ini: exit $rc (want 1)"
echo "$out" | grep -q "nosuch.ini.*looked in.*share/hybrid/config/nosuch.ini" || bad "hybrid nosuch.ini does not say where it looked: $out"
# 4. the installed job script from another submit dir: PREFIX/bin/hybrid, WORKLOAD.ini from the prefix
mkdir -p "$work/submit" && cd "$work/submit" || exit 1
out=$(HYBRID_LAUNCHER="$mpiexec -n 1" bash "$prefix/share/hybrid/jobs/selftest.slurm" $small 2>&1); rc=$?
[ $rc = 0 ] || bad "installed selftest.slurm: exit $rc (want 0): $out"
echo "$out" | grep -q "^job: executable $prefix/bin/hybrid" || bad "installed job does not run PREFIX/bin/hybrid: $out"
echo "$out" | grep -q "^job: config $prefix/share/hybrid/config/selftest.ini" || bad "installed job does not use PREFIX's selftest.ini: $out"
ls results/local-*/*.json > /dev/null 2>&1 || bad "installed job wrote no record under $work/submit/results/"
# 5. the installed spai job with validation on (HYBRID_VALIDATE=1, when the validator was built
# and installed): PREFIX/share/hybrid/jobs/validate_job.py and PREFIX/bin/hybrid-validate, the
# verdict in the log and validation.petsc.status = passed in the record
if [ -x "$prefix/bin/hybrid-validate" ]; then
  rm -rf results
  out=$(HYBRID_VALIDATE=1 HYBRID_LAUNCHER="$mpiexec -n 1" bash "$prefix/share/hybrid/jobs/spai.slurm" matrix.size=400 2>&1); rc=$?
  [ $rc = 0 ] || bad "installed spai.slurm with HYBRID_VALIDATE=1: exit $rc (want 0): $out"
  echo "$out" | grep -q "^job: validation: $prefix/bin/hybrid-validate spai " || bad "the installed job did not run PREFIX's validator: $out"
  echo "$out" | grep -q "^job: validation (hybrid-validate spai): PASSED" || bad "no PASSED validation verdict in the installed job's log: $out"
  st=$(python3 -c 'import json,glob,sys; r=[json.load(open(p)) for p in glob.glob("results/local-*/*.json")]; print(r[0]["validation"]["petsc"]["status"] if len(r) == 1 else "%d records" % len(r))' 2>&1)
  [ "$st" = passed ] || bad "installed validated job: record validation.petsc.status = $st (want passed)"
fi
[ $fail = 0 ] && echo "ok: installed into $prefix and ran from $work/elsewhere and $work/submit"
exit $fail
