# spai benchmarks for jobs/gpu-suite.sh (sourced; uses its bench NAME RANKS ARGS... and NGPU).
# Figures to read: "spai: setup phases (ms ...)" (which phase takes the time, and "built on the
# device|host"), "spai: setup X ms against the target <= 20 ms" (cfd2's size, nnz(M) ~ nnz(A));
# "bicgstab: ... floor ... ratio" (target <= 1.3); "spmv (cuSPARSE library, alone)" (the
# vendor's figure from the same run); "total: setup + solve" at 1 and 2 GPUs on 10.6M rows
# (target speedup >= 1.8).  The kernel-class sweep: jobs/spai-bench.sh BUILD sweep.
# config/bench-spai.ini has spai.repeat = 5: each run sets up and solves 5 times in one process;
# the lines above are the last run's, the target and floor lines the fastest warm run's, and
# "spai: repeat N: setup cold X ms, warm mean Y ms, fastest Z ms; bicgstab cold A us/it, warm mean
# B us/it, fastest C us/it" (matched by the bench grep: "ms") sets the cold run against the warm.
# (defaults: the device loop, solver.device_loop = auto: scalars on the GPU, read every
# check_every = 10 iterations; solver.device_kernel = auto: those iterations in one launch of
# the persistent kernel at every size (since session 10), A and M by diagonals where they fit
# (solver.persistent_dia = auto, session 18: cfd2's size, 921k, 10.6M), else CSR with 16-bit
# offsets by index16 = auto; our SpMV, solver.spmv = auto):
# "bicgstab: X us per iteration ... ratio R", "spmv (ours, alone)" beside "spmv (cuSPARSE
# library, alone)"; -graph: the graph loop (the default until session 9); -loopoff: the usual
# host-driven loop (same iterations)
# (that line also prints config/bench-spai.ini's solver.variants: "bicgstab variant V: ... us per
# iteration, ratio R ..." for 32-bit / 16-bit offsets / FP32 M / the L2 window over all and its
# fit / the prefetching products, each the faster of 2 runs in the same process; the other
# lines clear the list)
# (the CSR kernel's variants name it: solver.persistent_dia = auto would take the diagonals)
CSR="solver.persistent_dia=false"
bench spai-cfd2size-1gpu 1 config/bench-spai.ini
bench spai-cfd2size-1gpu-graph 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=graph spai.repeat=3
bench spai-cfd2size-1gpu-loopoff 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_loop=false spai.repeat=3
# the device loop as one persistent cooperative kernel per check_every iterations
# (solver.device_kernel = persistent, what auto takes here): its "bicgstab: X us per iteration
# ... ratio R" beside the graph's above (the same iteration count within a few: its dots sum in
# another order)
bench spai-cfd2size-1gpu-persistent 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=persistent spai.repeat=3
bench spai-cfd2size-1gpu-persistent-split 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=persistent solver.persistent_split=true spai.repeat=3 $CSR
# the persistent kernel's phases timed inside it ("bicgstab phases (...)": M p, A ph, alpha, M s,
# A s, omega, x r, rho in us per iteration, the SpMV floors beside them), with its product
# variants (a row's entries 8 per lane loaded at once, 2 blocks per SM) and the merged iteration
# (solver.merge_reductions: 4 grid syncs per iteration instead of 5)
bench spai-cfd2size-1gpu-persistent-phases 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=persistent solver.phase_times=true spai.repeat=3
bench spai-cfd2size-1gpu-persistent-u8b2 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=persistent solver.phase_times=true solver.persistent_unroll=8 solver.persistent_blocks=2 spai.repeat=3 $CSR
bench spai-cfd2size-1gpu-persistent-merged 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=persistent solver.phase_times=true solver.merge_reductions=true spai.repeat=3
# the solve formats and the L2 window (issue 17; README "The persistent kernel's solve formats"),
# each beside the plain persistent kernel at check_every 1000 (one launch per solve): "bicgstab:
# X us per iteration ... ratio R" (the FP64 / 32-bit floor), "L2 window (solver.l2_window): W MB
# .., set-aside S MB, hit ratio H", "X MB per iteration in the solve format: floor F us, ratio R".
# (H200 mid run of bd8e183, us per iteration: 32-bit 88.77, 16-bit offsets 80.94 (index16 = auto
# now), FP32 M + 16-bit 75.00, + window all 73.12; persisting windows alone 97-105 (slower, not
# kept here), the streaming window 84.91, unroll 8 at 3 blocks 113 (spills))
P1000="solver.device_kernel=persistent solver.check_every=1000 spai.repeat=3"
bench spai-cfd2size-1gpu-persistent-c1000-i32 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.index16=false $CSR
bench spai-cfd2size-1gpu-persistent-c1000 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 $CSR
bench spai-cfd2size-1gpu-persistent-c1000-l2stream 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.l2_window=stream $CSR
bench spai-cfd2size-1gpu-persistent-c1000-single 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.precond_precision=single $CSR
bench spai-cfd2size-1gpu-persistent-c1000-single-l2all 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.precond_precision=single solver.l2_window=all $CSR
bench spai-cfd2size-1gpu-persistent-c1000-single-l2stream 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.precond_precision=single solver.l2_window=stream $CSR
# the products' chain of dependent loads (solver.persistent_rows = 2: two rows of a lane group in
# flight; solver.persistent_tpr: lanes per row, so rounds per product)
bench spai-cfd2size-1gpu-persistent-c1000-u8b2 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_unroll=8 $CSR
bench spai-cfd2size-1gpu-persistent-c1000-u8b2-rows2 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_unroll=8 solver.persistent_rows=2 $CSR
bench spai-cfd2size-1gpu-persistent-c1000-u4b2-rows2 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_unroll=4 solver.persistent_blocks=2 solver.persistent_rows=2 $CSR
bench spai-cfd2size-1gpu-persistent-c1000-u8b2-rows2-single 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_unroll=8 solver.persistent_rows=2 solver.precond_precision=single $CSR
bench spai-cfd2size-1gpu-persistent-c1000-tpr8 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_tpr=8 $CSR
bench spai-cfd2size-1gpu-persistent-c1000-single-tpr8 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.precond_precision=single solver.persistent_tpr=8 $CSR
# by diagonals (solver.persistent_dia; README "The matrices by diagonals"): the default's format
# named (with solver.l2_window = auto: the window over both, 50.8 MB, hit 0.77), without the
# window, with FP32 M, with FP32 M and the window fitted, its phases, and CSR (16-bit offsets)
# beside it at check_every 1000 (session 19, 665cb61 at check_every 10: 48.37 us = 1.18 with
# the window, 54.15 = 1.33 without)
bench spai-cfd2size-1gpu-persistent-c1000-dia 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_dia=true
bench spai-cfd2size-1gpu-persistent-c1000-dia-l2none 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_dia=true solver.l2_window=none
bench spai-cfd2size-1gpu-persistent-c1000-dia-phases 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_dia=true solver.phase_times=true
bench spai-cfd2size-1gpu-persistent-c1000-dia-single 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_dia=true solver.precond_precision=single
bench spai-cfd2size-1gpu-persistent-c1000-dia-single-l2fit 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 solver.persistent_dia=true solver.precond_precision=single solver.l2_window=all solver.l2_window_mb=-1
bench spai-cfd2size-1gpu-persistent-c1000-csr 1 config/bench-spai.ini solver.variants= solver.variants_more= $P1000 $CSR
# the same phases as 5 fused kernels per iteration recorded as a graph (solver.device_kernel = fused)
bench spai-cfd2size-1gpu-fused 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_kernel=fused spai.repeat=3
# the device loop with cuSPARSE's SpMV inside the graph, and with the graph off (queued anew)
bench spai-cfd2size-1gpu-cusparse 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.spmv=library solver.device_kernel=graph spai.repeat=3
bench spai-cfd2size-1gpu-nograph 1 config/bench-spai.ini solver.variants= solver.variants_more= solver.device_graph=false solver.device_kernel=graph spai.repeat=3
# the setup with the submatrices scattered into shared memory by the QR kernel (spai.gpu_fuse_submat)
bench spai-cfd2size-1gpu-fused 1 config/bench-spai.ini solver.variants= solver.variants_more= spai.gpu_fuse_submat=true solver.solve=false
# the same with the pattern and M's rows built on the host (the setup before the device path)
bench spai-cfd2size-1gpu-hostsetup 1 config/bench-spai.ini solver.variants= solver.variants_more= spai.gpu_setup=host
[ "${NGPU:-1}" -ge 2 ] && bench spai-cfd2size-2gpu 2 config/bench-spai.ini solver.variants=
# the solver alone (5-point 2D, n = 921,600, no preconditioner): the iteration against its two
# SpMVs ("spmv (cuSPARSE library, alone)"), the vector updates and the three dot groups
bench spai-poisson2d-921k-none-1gpu 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none
bench spai-poisson2d-921k-none-1gpu-graph 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=graph
bench spai-poisson2d-921k-none-1gpu-loopoff 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_loop=false
bench spai-poisson2d-921k-none-1gpu-l2none 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.l2_window=none
bench spai-poisson2d-921k-none-1gpu-csr 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none $CSR
bench spai-poisson2d-921k-none-1gpu-persistent 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=persistent
bench spai-poisson2d-921k-none-1gpu-persistent-merged 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=persistent solver.merge_reductions=true solver.phase_times=true
# (issue 17: 921k must stay <= 1.3: unroll 8 / 2 blocks, its best, with 16-bit offsets (index16 =
# auto) and without; mid run: 83.17 us = 1.23 without, 84.72 = 1.25 with them and the window over A)
bench spai-poisson2d-921k-none-1gpu-persistent-u8b2 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=persistent solver.persistent_unroll=8 solver.persistent_blocks=2 $CSR
bench spai-poisson2d-921k-none-1gpu-persistent-u8b2-i32 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=persistent solver.persistent_unroll=8 solver.persistent_blocks=2 solver.index16=false $CSR
# the prefetching products (solver.persistent_prefetch: the next chunk of entries in flight while
# one is gathered; bit for bit) at 921k 2D and 10.6M 3D
bench spai-poisson2d-921k-none-1gpu-persistent-u8b2-pf 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=persistent solver.persistent_unroll=8 solver.persistent_prefetch=true $CSR
bench spai-poisson2d-921k-none-1gpu-fused 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson2d matrix.size=921600 solver.precond=none solver.device_kernel=fused spai.repeat=3
# (10.6M rows: 3 runs, a cold and two warm, to keep the suite's time; the defaults' line is the
# persistent kernel by diagonals (7 / 7), no window (l2_window = auto: 1193 MB of matrices; 1160
# us against 1411 with it at de9931f), -l2none named, -csr the CSR kernel at unroll 8 / 2 blocks)
bench spai-10M-1gpu 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=3
bench spai-10M-1gpu-l2none 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=2 spai.check=false solver.l2_window=none
bench spai-10M-1gpu-loopoff 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=2 spai.check=false solver.device_loop=false
bench spai-10M-1gpu-persistent-u8b2-pf 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=2 spai.check=false solver.device_kernel=persistent solver.persistent_unroll=8 solver.persistent_prefetch=true $CSR
bench spai-10M-1gpu-csr 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=2 spai.check=false $CSR
bench spai-10M-1gpu-persistent 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=2 spai.check=false solver.device_kernel=persistent
[ "${NGPU:-1}" -ge 2 ] && bench spai-10M-2gpu 2 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=3
true
# the setup alone at 10.6M rows, 1 rank and 2 ranks sharing one GPU (the P-rank device setup:
# "(dist pattern)" in the phases line; the setup figures of "spai: repeat 3:"; target <= 400 ms)
bench spai-10M-setup-1rank 1 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=3 solver.solve=false spai.check=false
bench spai-10M-setup-2ranks-1gpu 2 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=3 solver.solve=false spai.check=false
# the same through the host's distributed transposes (spai.dist_exchange = host, the path before
# the device rows): its "spai: setup split" (pattern on the host ..., assembly on the host ...)
# beside the device rows' ("pattern: B's rows X ..., J sets on the device ...; assembly: ...")
bench spai-10M-setup-2ranks-1gpu-hostrows 2 config/bench-spai.ini solver.variants= solver.variants_more= matrix.generator=poisson3d matrix.size=10648000 spai.repeat=3 solver.solve=false spai.check=false spai.dist_exchange=host
# cfd2's size at 2 ranks sharing the GPU: setup (device rows / host rows) and the solve from M
# left on the device ("spai: M is on the device ..")
bench spai-cfd2size-2ranks-1gpu 2 config/bench-spai.ini solver.variants= solver.variants_more= spai.repeat=3
bench spai-cfd2size-2ranks-1gpu-hostrows 2 config/bench-spai.ini solver.variants= solver.variants_more= spai.repeat=3 spai.dist_exchange=host
