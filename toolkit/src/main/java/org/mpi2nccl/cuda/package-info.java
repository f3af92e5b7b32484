/**
 * The GPU side of the toolkit: the CUDA backend of {@link org.mpi2nccl.tensor.Backend} and the runtime under it.
 *
 * <h2>Reading order</h2>
 * <ol>
 *   <li>{@link org.mpi2nccl.cuda.Cuda}: is there a GPU, and if not, why (the answer every other class relies on);
 *       {@link org.mpi2nccl.cuda.LibrarySearch} / {@link org.mpi2nccl.cuda.CudaLibraries}: where libcuda, the CUDA
 *       runtime, cuBLAS and NCCL were found; {@link org.mpi2nccl.cuda.CudaDoctor}: all of it as a report
 *       ({@code mpi2nccl doctor-gpu}).</li>
 *   <li>{@link org.mpi2nccl.cuda.CudaContext}: the GPU's primary context (shared with cudart, cuBLAS and NCCL),
 *       its one stream, kernel launches; {@link org.mpi2nccl.cuda.DeviceMemory} and
 *       {@link org.mpi2nccl.cuda.MemoryScope}: GPU memory with explicit lifetimes;
 *       {@link org.mpi2nccl.cuda.PinnedHostBuffer}, {@link org.mpi2nccl.cuda.CudaStream},
 *       {@link org.mpi2nccl.cuda.CudaEvent}: staging copies, overlap, timing.</li>
 *   <li>{@link org.mpi2nccl.cuda.Kernel}: every kernel of {@code native/*.cu} by name and signature;
 *       {@link org.mpi2nccl.cuda.KernelArgs}: a launch's arguments, checked against that signature;
 *       {@link org.mpi2nccl.cuda.LaunchRoute}: how they reach the driver (packed into one native block for
 *       JavaCPP's cuLaunchKernel: a launch's host cost bounds a small model's step), timed by
 *       {@link org.mpi2nccl.cuda.LaunchCostBench} ({@code bench-gpu --only launch}).</li>
 *   <li>{@link org.mpi2nccl.cuda.CudaBackend}: the contract on a GPU ({@link org.mpi2nccl.cuda.Reduction} plans
 *       reductions, {@link org.mpi2nccl.cuda.StridedCopyPlan} sends transposes to a tiled kernel,
 *       {@link org.mpi2nccl.cuda.Cublas} does GEMM); {@link org.mpi2nccl.cuda.FusedOps} and
 *       {@link org.mpi2nccl.cuda.Casts}: kernels beyond the contract. Without a GPU, {@code native/cpu-check}
 *       runs the streaming kernels (elementwise, reductions, transpose) on the CPU to check their indexing.</li>
 *   <li>{@link org.mpi2nccl.cuda.CudaBenchmarks} ({@code mpi2nccl bench-gpu}): GEMM, memory bandwidth, staging
 *       and a CNN step, next to PyTorch with {@code results/device/cuda-bench-check.sh}.</li>
 * </ol>
 *
 * <h2>Environment</h2>
 * {@code MPI2NCCL_DISABLE_CUDA=1} acts as if there were no GPU (the CPU backend is chosen);
 * {@code MPI2NCCL_PTX_TARGET=sm75} loads the portable PTX even on Hopper; {@code MPI2NCCL_CUDA_SYNC=1} waits after
 * every kernel launch so an error names its kernel; {@code MPI2NCCL_TF32=1} lets cuBLAS use TF32;
 * {@code MPI2NCCL_JCUDA_LAUNCH=0} launches kernels through JavaCPP (arguments packed into one native block), {@code =1}
 * through JCuda as before; unset: {@link org.mpi2nccl.cuda.LaunchRoute#DEFAULT}.
 */
package org.mpi2nccl.cuda;
