#!/usr/bin/env bash
# tests/tools/shape_selftest.sh - shape.sh must fail on tests/tools/shape_fixture and report
# exactly the violations listed in its EXPECTED (a long function, one in an extern "C" block, a
# key read outside an options function, a backend-kind test, a HYBRID_ environment variable),
# and none of the look-alikes (a 120-line function, a long key table, opts and check functions,
# app/config/, app/runtime/, strings and comments, the documented HYBRID_IO_MEM_LIMIT hook).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$("$here/shape.sh" "$here/shape_fixture")
rc=$?
echo "$out"
fail=0
[ "$rc" = 1 ] || { echo "FAIL: shape.sh exited $rc on the fixture, expected 1"; fail=1; }
got=$(echo "$out" | grep -v '^shape:' | grep -c .)
want=$(grep -v '^#' "$here/shape_fixture/EXPECTED" | grep -c .)
[ "$got" = "$want" ] || { echo "FAIL: $got violation(s) reported, expected $want"; fail=1; }
while IFS= read -r e; do
  case "$e" in \#*|"") continue ;; esac
  n=$(echo "$out" | grep -cF -- "$e")
  [ "$n" = 1 ] || { echo "FAIL: expected one line starting '$e', found $n"; fail=1; }
done < "$here/shape_fixture/EXPECTED"
[ "$fail" = 0 ] && echo "PASSED: shape.sh reports exactly the $want planted violations"
exit $fail
