/**
 * Lesson 2 of the framework: reverse-mode automatic differentiation.
 *
 * <p>A {@link org.mpi2nccl.autograd.Tensor} wraps an {@code NDArray} and remembers the
 * {@link org.mpi2nccl.autograd.Function} that made it; {@code backward()} walks the graph in reverse
 * topological order and adds d(loss)/d(leaf) into each leaf's {@code grad()}. Each operation is a small class
 * with its forward and its backward side by side ({@code Ops}, {@code Reductions}, {@code ShapeOps},
 * {@code MatMul}, {@code Losses}, {@code Convolution}, {@code Pooling}, {@code Dropout}, {@code BatchNorm});
 * {@link org.mpi2nccl.autograd.Functions} lists the ones that are not methods of Tensor.
 * {@link org.mpi2nccl.autograd.GradMode#off()} turns recording off (evaluation, optimizer updates).
 */
package org.mpi2nccl.autograd;
