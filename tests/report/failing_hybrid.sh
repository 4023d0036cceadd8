#!/bin/sh
# tests/report/failing_hybrid.sh - a stand-in for the hybrid executable whose every run fails
# (exit 4, a FAILED line), for the tests that a table command fails when a run inside it does.
echo "hybrid (test stand-in): every run fails"
echo "FAILED: planted failure (tests/report/failing_hybrid.sh)"
exit 4
