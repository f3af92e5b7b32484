/**
 * Part 1 of the training framework (tensor, autograd, nn, optim, data): n-dimensional arrays on a device.
 * Lessons 03 and 05 train with it; lesson 04's GPU buffers use the same devices.
 *
 * <p>Read {@link org.mpi2nccl.tensor.NDArray} first: the array (shape, strides, offset over a shared
 * {@link org.mpi2nccl.tensor.Storage}) and its whole API. Its longer rules sit beside it, one per file:
 * {@code ArrayViews} (views), {@code ArrayCopies}, {@code BroadcastOps}, {@code AxisReductions},
 * {@code BatchedMatmul}, {@code ArrayJoins}. Then {@link org.mpi2nccl.tensor.Backend}: the arithmetic, chosen by
 * the array's {@link org.mpi2nccl.tensor.Device}; the CPU backend lives in {@code tensor.cpu}, found like the others through {@link org.mpi2nccl.tensor.BackendProvider}.
 *
 * <p>A GPU backend plugs in without this package knowing it: a class implementing
 * {@link org.mpi2nccl.tensor.BackendProvider} for {@code Device.Kind.CUDA}, listed in
 * {@code META-INF/services/org.mpi2nccl.tensor.BackendProvider}, and a test class extending
 * {@code BackendContractTest} (test sources) with its device.
 * {@link org.mpi2nccl.tensor.ArrayScope} frees the temporaries of a training step deterministically, which
 * matters for device memory.
 */
package org.mpi2nccl.tensor;
