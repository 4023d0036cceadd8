#!/bin/sh
# gitid_archive.sh SRC WORK - a `git archive` export of SRC's HEAD (no .git) gets the commit as its
# git id: app/gitid.txt filled in by export-subst, read by app/gitid.cmake.  Skips (77) without git
# or outside a checkout.
src=$1 work=$2
command -v git > /dev/null && git -C "$src" rev-parse HEAD > /dev/null 2>&1 || { echo "SKIP: no git checkout"; exit 77; }
rm -rf "$work" && mkdir -p "$work/tree" || exit 1
git -C "$src" archive HEAD app/gitid.txt app/gitid.cmake | tar -x -C "$work/tree" || exit 1
HYBRID_GIT_ID= cmake -DSRC="$work/tree" -DOUT="$work/id.h" -P "$work/tree/app/gitid.cmake" || exit 1
id=$(sed -n 's/^#define HYBRID_GIT_ID "\(.*\)"$/\1/p' "$work/id.h")
full=$(git -C "$src" rev-parse HEAD)
case "$full" in
  "$id"*) [ -n "$id" ] && [ "${#id}" -ge 7 ] && { echo "ok: the archive's git id $id is HEAD ($full)"; exit 0; } ;;
esac
echo "FAIL: the archive's git id is '$id', HEAD is $full"
exit 1
