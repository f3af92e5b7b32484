#!/usr/bin/env bash
# A job's private network (bubblewrap's user and network namespaces) on a GPU machine:
#  1. probe     whether bubblewrap is there and makes a network namespace (without it, jobs run on the machine's
#               network, as MPI2NCCL_PRIVATE_NETWORK=auto allows)
#  2. hello     mpjrun -np 2 --device niodev GpuHello with MPI2NCCL_PRIVATE_NETWORK=require: the ranks see their GPU
#               from inside the namespace, or the job says clearly why it cannot have one
#  3. junit     every JUnit test tagged "gpu" (rank engines on GPUs, NCCL bootstraps and collectives), policy auto
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/private-network.sh
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "private-network"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
{
  echo "bwrap: $(command -v bwrap || echo missing); nsenter: $(command -v nsenter || echo missing)"
  echo "max user namespaces: $(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo ?)"
  if command -v bwrap >/dev/null; then
    bwrap --unshare-user --unshare-net --dev-bind / / -- sh -c 'echo "inside: $(readlink /proc/self/ns/net)"' 2>&1
    echo "outside: $(readlink /proc/self/ns/net)"
  fi
} > "$OUT/probe.txt" 2>&1
sed 's/^/    /' "$OUT/probe.txt" | tee -a "$SUMMARY"
MPI2NCCL_PRIVATE_NETWORK=require run hello 120 "$BUNDLE/bin/mpi2nccl" mpjrun -np 2 --device niodev org.mpi2nccl.launch.GpuHello
tail -n 6 "$OUT/hello.txt" | cut -c1-300 | sed 's/^/    /' | tee -a "$SUMMARY"
JUNIT_REPORTS="$OUT/junit" run junit 300 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu
junit_totals "$OUT/junit.txt"
grep -E 'MethodSource' "$OUT/junit.txt" | sed -E "s/.*className = '([^']*)', methodName = '([^']*)'.*/    failed test: \1.\2/" | tee -a "$SUMMARY"
