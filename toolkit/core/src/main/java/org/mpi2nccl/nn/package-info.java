/**
 * Part 3 of the training framework (tensor, autograd, nn, optim, data): layers and models. Lessons 03 and 05 build
 * their models here.
 *
 * <p>Read {@link org.mpi2nccl.nn.Module} first: named parameters, buffers and sub-modules; {@code state()} is the
 * ordered list of named arrays that data-parallel training broadcasts and whose gradients it all-reduces. Then one
 * layer ({@link org.mpi2nccl.nn.Linear}); the others follow the same pattern: Conv2d, BatchNorm2d, MaxPool2d, ReLU,
 * Tanh, Sigmoid, Dropout, Flatten, Sequential. The loss is {@link org.mpi2nccl.nn.SoftmaxCrossEntropyLoss}; the
 * lessons' models are in {@link org.mpi2nccl.nn.Models}; the single-device loop is {@link org.mpi2nccl.nn.Training}.
 * Initialisation ({@link org.mpi2nccl.nn.Init}) draws from a seeded generator, so every rank and device builds the
 * same weights from the same seed.
 */
package org.mpi2nccl.nn;
