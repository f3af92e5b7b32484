/**
 * Part 4 of the training framework (tensor, autograd, nn, optim, data): optimizers, the step after the gradients
 * are averaged in lessons 03 and 05.
 *
 * <p>Read {@link org.mpi2nccl.optim.Optimizer} first, then {@link org.mpi2nccl.optim.SGD} (momentum, weight decay)
 * and {@link org.mpi2nccl.optim.Adam}. They update parameters in place through the backend's update primitives,
 * so on a GPU neither parameters nor gradients leave the device.
 */
package org.mpi2nccl.optim;
