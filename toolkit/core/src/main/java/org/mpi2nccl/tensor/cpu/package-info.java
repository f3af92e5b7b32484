/**
 * The CPU backend of part 1 (tensor): the arithmetic of {@link org.mpi2nccl.tensor.Backend} on heap float arrays.
 * Every lesson runs on it where there is no GPU.
 *
 * <p>Read {@link org.mpi2nccl.tensor.cpu.CpuBackend} first: each operation of the interface, in the order the
 * interface lists them, handing the loops to one file per kind of work: {@code Elementwise}, {@code Reductions},
 * {@code Gemm} (BLAS through netlib's JNI binding), {@code ConvKernels}, {@code ChannelKernels},
 * {@code TrainingLayerKernels}, {@code OptimizerKernels}, {@code StridedCopy}. {@code Parallel} spreads a loop over
 * the cores; {@code ArrayPool} reuses freed arrays. {@code CpuBackendProvider} makes the backend known to
 * {@link org.mpi2nccl.tensor.Backends}.
 */
package org.mpi2nccl.tensor.cpu;
