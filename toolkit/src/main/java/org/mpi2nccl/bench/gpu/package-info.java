/**
 * The benchmarks of the CUDA backend on one GPU ({@code mpi2nccl bench-gpu}, lesson 05), each beside what it is
 * compared with: {@link org.mpi2nccl.bench.gpu.GemmBench} (cuBLAS GEMM through both of its routes, TF32 off and on,
 * beside torch.mm), {@link org.mpi2nccl.bench.gpu.KernelBandwidthBench} (memory-bound kernels as a share of the
 * device's copy bandwidth), {@link org.mpi2nccl.bench.gpu.StagingBench} (host and GPU copies of the MPI route),
 * {@link org.mpi2nccl.bench.gpu.LaunchCostBench} (the host's time per kernel launch) and
 * {@link org.mpi2nccl.bench.gpu.TrainStepBench} (one training step of the lesson CNN, beside PyTorch eager).
 * {@link org.mpi2nccl.bench.gpu.GpuTiming} says how they time; every figure is a
 * {@link org.mpi2nccl.bench.gpu.GpuFigure}. scripts/gpu/cuda-bench.sh runs them next to the PyTorch peer.
 */
package org.mpi2nccl.bench.gpu;
