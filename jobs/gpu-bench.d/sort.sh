# sort benchmarks for jobs/gpu-suite.sh (sourced; uses its bench NAME RANKS ARGS...): the targets
# of issue 13 (config/bench-sort.ini says what each prints).  Lines to read: "sort: ours (local
# ...) kernel time X ms: CUB radix alone / ours = R (target >= 0.8)" (radix, 2^30 int32 on one
# GPU), "... CUB merge sort / ours = R (target >= 0.5)" (merge path, 2^26), the seed's kernel
# beside it (merge_path_from=0), the shared-memory tiles (merge_tile=2048..16384), "sort: floor:
# ..." beside the kernel time, and at 2 ranks
# "imbalance max/mean <= 1.05" with "sort: exchange: mpi (host-staged)" (one GPU shared) or
# "nccl (device to device)" (2 GPUs).
bench sort-radix-int32-2p30 1 config/bench-sort.ini
bench sort-merge-path-2p26 1 config/bench-sort.ini sort.n=67108864 sort.local=merge
bench sort-merge-seed-2p26 1 config/bench-sort.ini sort.n=67108864 sort.local=merge sort.merge_path_from=0
for t in 2048 4096 8192 16384; do
  bench sort-merge-tile${t}-2p26 1 config/bench-sort.ini sort.n=67108864 sort.local=merge sort.merge_tile=$t
done
bench sort-merge-pairs-2p26 1 config/bench-sort.ini sort.n=67108864 sort.local=merge sort.payload=index
bench sort-radix-pairs-double-2p28 1 config/bench-sort.ini sort.n=268435456 sort.type=double sort.payload=index
for d in uniform few_unique sorted zipf; do
  bench sort-2ranks-shared-$d 2 config/bench-sort.ini sort.n=268435459 sort.distribution=$d sort.payload=index \
    sort.exchange=mpi
done
[ "${NGPU:-1}" -ge 2 ] && bench sort-2gpu-nccl-few_unique 2 config/bench-sort.ini sort.n=1073741827 \
  sort.distribution=few_unique sort.exchange=nccl
true
