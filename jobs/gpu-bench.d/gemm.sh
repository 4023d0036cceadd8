# gemm benchmarks for jobs/gpu-suite.sh (sourced; uses its bench NAME RANKS ARGS...): the four
# targets of issue 12 (config/bench-gemm.ini says what each prints).  Lines to read:
# "gemm: target: ..." (each with its ratio), "gemm: device time ... kernel time ...", "gemm:
# vendor (cuBLAS) rate in this run", "gemm: tiled takes X% of naive's kernel time".
bench gemm-tiled-float-8192 1 config/bench-gemm.ini
bench gemm-vendor-double-32768 1 config/bench-gemm.ini gemm.kernel=vendor gemm.precision=double \
  gemm.m=32768 gemm.n=32768 gemm.k=32768 gemm.compare=false
bench gemm-vendor-bf16-16384 1 config/bench-gemm.ini gemm.kernel=vendor gemm.precision=bf16 \
  gemm.m=16384 gemm.n=16384 gemm.k=16384 gemm.compare=false
bench gemm-vendor-fp16-16384 1 config/bench-gemm.ini gemm.kernel=vendor gemm.precision=fp16 \
  gemm.m=16384 gemm.n=16384 gemm.k=16384 gemm.compare=false
bench gemm-tiled-float-1024 1 config/bench-gemm.ini gemm.m=1024 gemm.n=1024 gemm.k=1024
[ "${NGPU:-1}" -ge 2 ] && bench gemm-vendor-double-2gpu 2 config/bench-gemm.ini gemm.kernel=vendor \
  gemm.precision=double gemm.m=32768 gemm.n=32768 gemm.k=32768 gemm.compare=false gemm.bcast=nccl
true
