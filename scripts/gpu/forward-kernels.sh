#!/usr/bin/env bash
# The forward graph replayed alone, kernel by kernel, in a 1-GPU job and in each rank of a 2-GPU NCCL job: which of
# its kernels run slower when the process has an NCCL communicator with a peer (the `forward graph replayed alone`
# figure of each speedup rank says by how much in all). Each job runs under Nsight Compute with profiling off except
# for the probe's extra replays (-Dmpi2nccl.profiledReplays), one metric (one pass per kernel), clocks and caches left
# as they are; kernel_times.py sums the kernels by name per job. About 2 minutes on 2 GPUs.
# Usage, from the repository root with the bundle unpacked:
#   BUNDLE=/tmp/bundle OUT=$OUT bash scripts/gpu/forward-kernels.sh      (EPOCHS=1 EXAMPLES=20000 REPLAYS=3)
# Writes $OUT/forward-kernels.tgz and $OUT/summary.txt.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
T0=$SECONDS
TIME_LIMIT=${TIME_LIMIT:-300}
FINAL_OUT=${OUT:-/tmp/out}
WORK=${WORK:-/tmp/forward-kernels}
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "forward-kernels: no bundle (set BUNDLE=/path/to/bundle)"; exit 2; }
export BUNDLE
rm -rf "$WORK"; mkdir -p "$WORK" "$FINAL_OUT"
OUT=$WORK
source "$here/cuda-common.sh"     # torch_python (kernel_times.py needs only python3)
TAR=forward-kernels.tgz
source "$here/time-limit.sh"
EPOCHS=${EPOCHS:-1}; EXAMPLES=${EXAMPLES:-20000}; REPLAYS=${REPLAYS:-3}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { note "forward-kernels: no Nsight Compute (ncu) on this machine"; exit 2; }
note "forward-kernels $(date -u +%FT%TZ): $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); bundle $(cat "$BUNDLE/COMMIT" 2>/dev/null); $NCU"
export MPI2NCCL_RANK_JAVA_OPTS="-Dmpi2nccl.profiledReplays=$REPLAYS ${MPI2NCCL_RANK_JAVA_OPTS:-}"
for ranks in 1 2; do
  step "ranks-$ranks" 150 "$NCU" --profile-from-start off --target-processes all --clock-control none --cache-control none \
      --metrics gpu__time_duration.sum --csv --log-file "$WORK/ranks-$ranks.csv" \
      "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks "$ranks" --batch-per-rank 128 --data synthetic-cifar \
      --train-examples "$EXAMPLES" --test-examples 2000 --epochs "$EPOCHS" --out "$WORK/run-$ranks" || continue
  grep -h "replayed alone" "$WORK/ranks-$ranks.txt" | tee -a "$SUMMARY"
  # every probe's replays: 1 + EPOCHS probes per rank, REPLAYS replays each, all ranks together
  python3 "$here/kernel_times.py" "$WORK/ranks-$ranks.csv" $(( (1 + EPOCHS) * REPLAYS * ranks )) \
      > "$WORK/ranks-$ranks-kernels.txt" 2>&1
  head -30 "$WORK/ranks-$ranks-kernels.txt" | tee -a "$SUMMARY"
done
note "done in $((SECONDS - T0)) s"
