#!/usr/bin/env bash
# Issue 2's bundle check: a 2-rank niodev job in which every rank prints its GPU's name.
set -euo pipefail
"$BUNDLE/bin/mpi2nccl" mpjrun -np 2 --device niodev --timeout 120s org.mpi2nccl.launch.GpuHello | tee "$OUT/hello.txt"
# and nothing of it is left running
if pgrep -af 'daemon.jar|org.mpi2nccl' ; then echo "LEFTOVER PROCESSES"; exit 1; fi
echo "no leftover processes"
