/**
 * Lesson 3 of the framework: layers and models.
 *
 * <p>{@link org.mpi2nccl.nn.Module} holds named parameters, buffers and sub-modules; {@code state()} is the
 * ordered list of named arrays that data-parallel training broadcasts and whose gradients it all-reduces.
 * Layers: Linear, Conv2d, BatchNorm2d, MaxPool2d, ReLU, Tanh, Sigmoid, Dropout, Flatten, Sequential; the loss
 * {@link org.mpi2nccl.nn.SoftmaxCrossEntropyLoss}; the lessons' models in {@link org.mpi2nccl.nn.Models};
 * the single-device loop in {@link org.mpi2nccl.nn.Training}. Initialisation ({@link org.mpi2nccl.nn.Init})
 * draws from a seeded generator, so every rank and device builds the same weights from the same seed.
 */
package org.mpi2nccl.nn;
