/**
 * Part 2 of the training framework (tensor, autograd, nn, optim, data): reverse-mode automatic differentiation.
 * Lesson 03's training computes its gradients here before they are all-reduced.
 *
 * <p>Read {@link org.mpi2nccl.autograd.Tensor} first: it wraps an {@code NDArray} and remembers the
 * {@link org.mpi2nccl.autograd.Function} that made it. Then {@link org.mpi2nccl.autograd.Function} (forward and
 * backward of one operation) and {@code Backward}: {@code backward()} walks the graph in reverse topological order
 * and adds d(loss)/d(leaf) into each leaf's {@code grad()}. Each operation is a small class with its forward and
 * its backward side by side ({@code Ops}, {@code ReductionFunctions}, {@code ShapeOps}, {@code MatMul},
 * {@code Losses}, {@code Convolution}, {@code Pooling}, {@code DropoutFunction}, {@code BatchNorm});
 * {@link org.mpi2nccl.autograd.Functions} lists the ones that are not methods of Tensor.
 * {@link org.mpi2nccl.autograd.GradMode#off()} turns recording off (evaluation, optimizer updates).
 */
package org.mpi2nccl.autograd;
