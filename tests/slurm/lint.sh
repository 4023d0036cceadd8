#!/usr/bin/env bash
# lint.sh SRC - static checks of the job scripts (no cluster needed): every jobs/*.slurm and
# jobs/*.sh parses, has the #SBATCH lines the README promises and the same common body (the part
# below the "common body" marker); scaling.sh and report.py reject bad arguments with a message;
# scaling.sh --nodes places each job's ranks (--dry-run).
set -uo pipefail
src=${1:?usage: lint.sh SRC}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
body() { sed -n '/^# -* common body/,$p' "$1"; }
ref=$src/jobs/selftest.slurm
[ -n "$(body "$ref")" ] || bad "$ref has no common-body marker"
for f in "$src"/jobs/*.slurm "$src"/jobs/*.sh; do
  [ -e "$f" ] || continue
  bash -n "$f" || bad "$f does not parse"
  [ -x "$f" ] || bad "$f is not executable"
done
for f in "$src"/jobs/*.slurm; do
  for opt in job-name ntasks gpus-per-task time output; do
    grep -q "^#SBATCH --$opt=" "$f" || bad "$f lacks '#SBATCH --$opt='"
  done
  grep -q '^#SBATCH --output=%x-%j.out$' "$f" || bad "$f: log not named by job id (%x-%j.out)"
  w=$(basename "$f" .slurm)
  grep -q "^workload=$w\$" "$f" || bad "$f does not set workload=$w"
  if ! diff <(body "$ref") <(body "$f") > /dev/null; then
    bad "$f: common body differs from selftest.slurm:"; diff <(body "$ref") <(body "$f") | head -20
  fi
done
echo "ok: $(ls "$src"/jobs/*.slurm | wc -l) job scripts parse and share the common body"

# argument errors: exit 1 with a message, before anything is submitted
expect_err() { # regex command...
  local rx=$1; shift
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qE -- "$rx" <<< "$out"; then
    bad "'$*' exited $rc, expected 1 and /$rx/; output: $out"
  else
    echo "ok: $* -> $(head -1 <<< "$out")"
  fi
}
cd "$src" || exit 1
expect_err "--mode must be strong or weak" jobs/scaling.sh selftest --gpus 1,2 --mode fast
expect_err "--gpus must be a comma-separated list" jobs/scaling.sh selftest --gpus 1,,2 --mode strong
expect_err "no job script .*nosuch.slurm" jobs/scaling.sh nosuch --gpus 1 --mode strong
expect_err "override 'oops' is not section.key=value" jobs/scaling.sh selftest --gpus 1 --mode strong -- oops
expect_err "configuration file 'none.ini' not found" jobs/scaling.sh selftest --gpus 1 --mode weak --config none.ini
expect_err "--law must be linear, sqrt or cbrt" jobs/scaling.sh gauss --gpus 1 --mode weak --law square
# weak-scaling sizes (--dry-run: nothing is submitted)
expect_sizes() { # "want" command...
  local want=$1; shift
  local got
  got=$("$@" 2>&1 | grep -oE '(gauss|selftest|lle)\.n=[0-9]+|matrix\.size=[0-9]+' | tr '\n' ' ')
  if [ "$got" = "$want" ]; then echo "ok: $* -> $got"; else bad "'$*' gave sizes '$got', expected '$want'"; fi
}
expect_sizes "gauss.n=1000 gauss.n=2000 gauss.n=4000 " \
  jobs/scaling.sh gauss --config config/selftest.ini --gpus 1,4,16 --mode weak --size 1000 --dry-run
expect_sizes "gauss.n=1000 gauss.n=1587 gauss.n=2520 " \
  jobs/scaling.sh gauss --config config/selftest.ini --gpus 1,4,16 --mode weak --law cbrt --size 1000 --dry-run
expect_sizes "matrix.size=400 matrix.size=800 matrix.size=3200 " \
  jobs/scaling.sh spai --config config/selftest.ini --gpus 1,2,8 --mode weak --size 400 --dry-run
expect_sizes "lle.n=500 lle.n=500 lle.n=1500 lle.n=1500 " \
  jobs/scaling.sh lle --config config/selftest.ini --gpus 1,3 --mode weak --size 500 --repeat 2 --dry-run
n1=$(awk -F= '/^n *=/ { gsub(/ /, "", $2); print $2 }' config/selftest.ini)
expect_sizes "selftest.n=$n1 selftest.n=$((2 * n1)) " \
  jobs/scaling.sh selftest --gpus 1,2 --mode weak --dry-run
expect_sizes "selftest.n=777 selftest.n=777 " \
  jobs/scaling.sh selftest --gpus 1,2 --mode strong --size 777 --dry-run
expect_sizes "" jobs/scaling.sh selftest --gpus 1,2 --mode strong --dry-run
expect_err "weak scaling needs --size N" \
  jobs/scaling.sh lle --config config/selftest.ini --gpus 1,2 --mode weak --dry-run
# --nodes: the placement options of each job (--dry-run), and its errors
expect_place() { # "want" command...
  local want=$1; shift
  local got
  got=$("$@" 2>&1 | grep -oE -- '--nodes=[0-9]+ --ntasks=[0-9]+ --ntasks-per-node=[0-9]+|--ntasks=[0-9]+ --job' | tr '\n' ';')
  if [ "$got" = "$want" ]; then echo "ok: $* -> $got"; else bad "'$*' gave placements '$got', expected '$want'"; fi
}
expect_place "--nodes=1 --ntasks=2 --ntasks-per-node=2;--nodes=2 --ntasks=8 --ntasks-per-node=4;" \
  jobs/scaling.sh selftest --gpus 2,8 --nodes 1,2 --mode strong --dry-run
expect_place "--nodes=2 --ntasks=2 --ntasks-per-node=1;--nodes=2 --ntasks=4 --ntasks-per-node=2;" \
  jobs/scaling.sh selftest --gpus 2,4 --nodes 2 --mode strong --dry-run
expect_place "--ntasks=1 --job;--ntasks=2 --job;" jobs/scaling.sh selftest --gpus 1,2 --mode strong --dry-run
expect_err "--nodes: 2 node\(s\) do not divide 3 GPU\(s\) evenly" \
  jobs/scaling.sh selftest --gpus 2,3 --nodes 2 --mode strong --dry-run
expect_err "--nodes has 3 counts, --gpus 2" jobs/scaling.sh selftest --gpus 2,4 --nodes 1,2,2 --mode strong --dry-run
expect_err "--nodes must be a comma-separated list" jobs/scaling.sh selftest --gpus 2 --nodes 0 --mode strong --dry-run

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_err "no hybrid records in" python3 jobs/report.py "$tmp"
expect_err "unknown seed '999'" jobs/paper-tables.sh 999
for s in 000 001 004; do
  f=$(jobs/paper-tables.sh --list | awk -v s=$s '$1 == s { print $NF }' | tr -d ')')
  if [ -f "$f" ]; then
    echo "ok: paper-tables.sh $s -> $f"
  else
    expect_err "does not exist yet" jobs/paper-tables.sh $s --small
  fi
done
exit $fail
