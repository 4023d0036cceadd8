# conv benchmarks for jobs/gpu-suite.sh (sourced; uses its bench NAME RANKS ARGS...): the targets
# of issue 14 (config/bench-conv.ini says what each prints).  Lines to read: "conv: NAME device
# time .. kernel time .." per variant, "conv: tiled kernel at F x the memory floor" (target
# F >= 0.7 at ksize 3), "conv: vendor cuDNN kernel time .. best of ours (..) ..: R x the vendor's
# speed" (target R >= 1.0 at ksize 15 and 31; fft vs the direct kernels from the same lines).
bench conv-ks3 1 config/bench-conv.ini
bench conv-ks15 1 config/bench-conv.ini conv.ksize=15
bench conv-ks31 1 config/bench-conv.ini conv.ksize=31
# 2 ranks sharing one GPU, 10 passes: the pixels must equal 1 rank's (conv_gpu_vs_host checks;
# here the times of the halo exchange through pinned memory)
bench conv-share-1rank 1 config/bench-conv.ini conv.passes=10 conv.compare=none conv.width=8192 conv.height=8192
bench conv-share-2ranks 2 config/bench-conv.ini conv.passes=10 conv.compare=none conv.width=8192 conv.height=8192
true
