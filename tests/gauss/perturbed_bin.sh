#!/bin/sh
# perturbed_bin.sh - hybrid with [debug] perturb = 1e-3 appended: every gauss run it makes
# fails its check (exit 4); the real executable is $HY_REAL_BIN.  For the table tests.
exec "$HY_REAL_BIN" "$@" debug.perturb=1e-3
