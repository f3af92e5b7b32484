/**
 * The GPU runtime and the CUDA backend of {@link org.mpi2nccl.tensor.Backend} (lessons 04 to 06). Benchmarks of it
 * live in {@code org.mpi2nccl.bench.gpu} ({@code mpi2nccl bench-gpu}), its report in {@code org.mpi2nccl.doctor}
 * ({@code mpi2nccl doctor-gpu}).
 *
 * <h2>Reading order</h2>
 * <ol>
 *   <li>{@link org.mpi2nccl.cuda.Cuda}: is there a GPU, and if not, why (the answer every other class relies on);
 *       {@link org.mpi2nccl.cuda.LibrarySearch} / {@link org.mpi2nccl.cuda.CudaLibraries}: where libcuda, the CUDA
 *       runtime, cuBLAS and NCCL were found; {@link org.mpi2nccl.cuda.CudaDevice}: one GPU's properties.</li>
 *   <li>{@link org.mpi2nccl.cuda.CudaContext}: the GPU's primary context (shared with cudart, cuBLAS and NCCL),
 *       its one stream, kernel launches; {@link org.mpi2nccl.cuda.DeviceMemory} and
 *       {@link org.mpi2nccl.cuda.MemoryScope}: GPU memory with explicit lifetimes;
 *       {@link org.mpi2nccl.cuda.PinnedHostBuffer}, {@link org.mpi2nccl.cuda.CudaStream},
 *       {@link org.mpi2nccl.cuda.CudaEvent}: staging copies, overlap, timing.</li>
 *   <li>{@link org.mpi2nccl.cuda.Kernel}: every kernel of {@code native/*.cu} by name and signature;
 *       {@link org.mpi2nccl.cuda.KernelArgs}: a launch's arguments, checked against that signature and packed into
 *       one native block that {@link org.mpi2nccl.cuda.DriverLaunch} hands to JavaCPP's cuLaunchKernel (a launch's
 *       host cost bounds a small model's step); {@link org.mpi2nccl.cuda.KernelModules}: the PTX loaded per context.</li>
 *   <li>{@link org.mpi2nccl.cuda.CudaBackend}: the contract on a GPU, memory and copies, delegating each group of
 *       operations to a class of its own: {@link org.mpi2nccl.cuda.CudaElementwise},
 *       {@link org.mpi2nccl.cuda.CudaStridedCopies} (transposes through a tiled kernel,
 *       {@link org.mpi2nccl.cuda.StridedCopyPlan}), {@link org.mpi2nccl.cuda.CudaReductions},
 *       {@link org.mpi2nccl.cuda.CudaMatmul} ({@link org.mpi2nccl.cuda.Cublas}: GEMM),
 *       {@link org.mpi2nccl.cuda.CudaConvolutions}, {@link org.mpi2nccl.cuda.CudaTrainingLayers} and
 *       {@link org.mpi2nccl.cuda.CudaOptimizerSteps}; {@link org.mpi2nccl.cuda.FusedOps} and
 *       {@link org.mpi2nccl.cuda.Casts}: kernels beyond the contract. Without a GPU, {@code native/cpu-check} runs
 *       the streaming kernels (elementwise, reductions, transpose) on the CPU to check their indexing.</li>
 *   <li>What makes a training step cheap for the host: {@link org.mpi2nccl.cuda.StorageBlocks} (closed storages'
 *       blocks reused), {@link org.mpi2nccl.cuda.LabelChecks} (bad labels reported without waiting for the GPU),
 *       {@link org.mpi2nccl.cuda.PinnedUploads} and {@link org.mpi2nccl.cuda.StepsAhead} (the host runs ahead of
 *       the GPU), {@link org.mpi2nccl.cuda.GraphRecording} / {@link org.mpi2nccl.cuda.CudaGraph} (a step recorded
 *       once and replayed).</li>
 * </ol>
 *
 * <h2>Environment</h2>
 * {@code MPI2NCCL_DISABLE_CUDA=1} acts as if there were no GPU (the CPU backend is chosen);
 * {@code MPI2NCCL_CUDA_SYNC=1} waits after every kernel launch so an error names its kernel;
 * {@code MPI2NCCL_KERNEL_LOG=FILE} appends each kernel's name to FILE the first time it is launched (for
 * scripts/gpu/cuda-sanitizer.sh).
 */
package org.mpi2nccl.cuda;
