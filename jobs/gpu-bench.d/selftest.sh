# selftest on the CUDA backend for jobs/gpu-suite.sh (sourced): binding, copy bandwidth, kernel.
bench selftest-1gpu 1 config/selftest.ini run.backend=cuda selftest.copy_mib=1024
[ "${NGPU:-1}" -ge 2 ] && bench selftest-2gpu 2 config/selftest.ini run.backend=cuda selftest.copy_mib=1024
true
