/**
 * Lesson 5 of the framework: data. A {@link org.mpi2nccl.data.Dataset} is read by index;
 * {@link org.mpi2nccl.data.DataLoader} batches it in the order of a {@link org.mpi2nccl.data.Sampler}
 * (sequential, shuffled per epoch from a seed; the distributed sampler gives each rank its share) and copies
 * each batch to the device. Readers: {@link org.mpi2nccl.data.FashionMnist} (IDX gzip files, Debian's
 * dataset-fashion-mnist by default), {@link org.mpi2nccl.data.Cifar10} (binary batches), and the seeded
 * {@link org.mpi2nccl.data.SyntheticDataset}.
 */
package org.mpi2nccl.data;
