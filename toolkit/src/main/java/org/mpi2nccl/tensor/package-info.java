/**
 * Lesson 1 of the framework: n-dimensional arrays on a device.
 *
 * <p>{@link org.mpi2nccl.tensor.NDArray} is the array (shape, strides, offset over a shared
 * {@link org.mpi2nccl.tensor.Storage}); views and broadcasting happen here, the arithmetic in a
 * {@link org.mpi2nccl.tensor.Backend} chosen by the array's {@link org.mpi2nccl.tensor.Device}.
 * The CPU backend lives in {@code tensor.cpu}. A GPU backend plugs in without this package knowing it:
 * a class implementing {@link org.mpi2nccl.tensor.BackendProvider} for {@code Device.Kind.CUDA}, listed in
 * {@code META-INF/services/org.mpi2nccl.tensor.BackendProvider}, and a test class extending
 * {@code BackendContractTest} (test sources) with its device.
 * {@link org.mpi2nccl.tensor.ArrayScope} frees the temporaries of a training step deterministically, which
 * matters for device memory.
 */
package org.mpi2nccl.tensor;
