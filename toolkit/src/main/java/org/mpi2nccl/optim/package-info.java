/**
 * Lesson 4 of the framework: optimizers. {@link org.mpi2nccl.optim.SGD} (momentum, weight decay) and
 * {@link org.mpi2nccl.optim.Adam} update parameters in place through the backend's update primitives, so on
 * a GPU neither parameters nor gradients leave the device.
 */
package org.mpi2nccl.optim;
