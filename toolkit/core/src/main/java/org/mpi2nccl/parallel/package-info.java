/**
 * Data-parallel training: every rank holds a copy of the model, trains on its share of each batch, and the ranks
 * average their gradients with an all-reduce. Lesson 03 builds it on CPU ranks over MPI (MPJ Express); lesson 05
 * runs it on GPUs with NCCL and measures the speedup.
 *
 * <p>Reading order for the idea itself (two files):
 * <ol>
 *   <li>{@link org.mpi2nccl.parallel.DataParallel}: the step (broadcast rank 0's weights, forward, backward, one
 *       all-reduce per gradient bucket, started while backward runs when overlapping, the optimizer);</li>
 *   <li>{@link org.mpi2nccl.parallel.GradientBuckets}: how the gradients are packed into a few flat buffers.</li>
 * </ol>
 * Around it:
 * <ul>
 *   <li>{@link org.mpi2nccl.parallel.DistributedSampler}: each rank's share of the data, the same shares on every rank;</li>
 *   <li>{@link org.mpi2nccl.parallel.DistributedTraining}: the epoch loop, loss and accuracy summed over the ranks;</li>
 *   <li>{@link org.mpi2nccl.parallel.EquivalenceCheck}: the proof that N ranks with batch B/N train as one rank with
 *       batch B ({@link org.mpi2nccl.bench.gpu.EquivalenceRank} runs it on MPJ ranks);</li>
 *   <li>{@link org.mpi2nccl.parallel.gpu.Route}: MPI, the hand-written ring or NCCL, each a communicator;</li>
 *   <li>{@link org.mpi2nccl.parallel.ShardedOptimizer}: lesson 07's next step, the optimizer state sharded over the
 *       ranks (ZeRO stage 1: reduce-scatter the gradients, update a slice, all-gather the parameters);</li>
 *   <li>{@link org.mpi2nccl.parallel.FullyShardedDataParallel}: lesson 09's, the parameters and gradients sharded too
 *       (ZeRO stage 3, FSDP: each unit all-gathered for its forward and again for its backward, freed after);</li>
 *   <li>{@link org.mpi2nccl.parallel.DataChecks}, {@code ModelFingerprint}: what the ranks check together before
 *       training, so that a mistake on one rank is an error on all of them, not a hang.</li>
 * </ul>
 * Sub-packages extend the plain step without changing it: {@link org.mpi2nccl.parallel.timing} times its phases,
 * {@link org.mpi2nccl.parallel.gpu} adds what the GPU experiment of lesson 05 needs to be fast.
 */
package org.mpi2nccl.parallel;
