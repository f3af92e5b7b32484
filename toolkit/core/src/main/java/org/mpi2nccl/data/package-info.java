/**
 * Part 5 of the training framework (tensor, autograd, nn, optim, data): data. Lessons 03 and 05 give each rank its
 * share of a data set with it.
 *
 * <p>Read {@link org.mpi2nccl.data.Dataset} first (read by index), then {@link org.mpi2nccl.data.Sampler} (the
 * order: sequential, or shuffled per epoch from a seed; {@code parallel.DistributedSampler} gives each rank its share) and
 * {@link org.mpi2nccl.data.DataLoader}, which batches a data set in that order and copies each batch to the device
 * ({@code Prefetcher} gathers batches ahead). Readers: {@link org.mpi2nccl.data.FashionMnist} (IDX gzip files,
 * Debian's dataset-fashion-mnist by default), {@link org.mpi2nccl.data.Cifar10} (binary batches), and the seeded
 * {@link org.mpi2nccl.data.SyntheticDataset}.
 */
package org.mpi2nccl.data;
