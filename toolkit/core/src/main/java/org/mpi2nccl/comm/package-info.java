/**
 * Communicators on the CPU: what every route shares. The routes themselves live one floor down:
 * {@link org.mpi2nccl.comm.mpj} (MPJ Express's own collectives, lesson 01), {@link org.mpi2nccl.comm.ring} (the
 * collectives written from scratch, lesson 02), {@link org.mpi2nccl.comm.shm} (shared memory between the rank
 * processes of one machine) and, on GPUs, {@link org.mpi2nccl.comm.nccl}.
 *
 * <p>Reading order for a student:
 * <ol>
 *   <li>{@link org.mpi2nccl.comm.Communicator}: the one interface every route implements (all-reduce, broadcast,
 *       reduce, all-gather, reduce-scatter, send/recv, barrier, split), with {@link org.mpi2nccl.comm.HostBuffer}
 *       and {@link org.mpi2nccl.comm.Reduction} for what it moves and how it combines.</li>
 *   <li>{@link org.mpi2nccl.comm.Transport}: point-to-point messages (non-blocking send and receive), what the
 *       hand-written collectives are made of; {@link org.mpi2nccl.comm.ThreadTransport} runs ranks as threads of one
 *       JVM (tests and notebooks), {@link org.mpi2nccl.comm.SubTransport} serves a split.</li>
 *   <li>{@link org.mpi2nccl.comm.Tensors}: the collectives on {@code NDArray}s of either device.</li>
 * </ol>
 *
 * <p>Kept apart from the ideas above:
 * <ul>
 *   <li>speed: {@link org.mpi2nccl.comm.ScratchBuffers} (memory reused across calls),
 *       {@link org.mpi2nccl.comm.HostReduce} (the arithmetic loops), {@link org.mpi2nccl.comm.HostStaging} (pinned
 *       host memory for GPU buffers);</li>
 *   <li>safety: {@link org.mpi2nccl.comm.Deadline} (every wait has one), {@link org.mpi2nccl.comm.MetadataCheck}
 *       (the ranks compare their calls), {@link org.mpi2nccl.comm.AbstractCommunicator} (argument checks, the
 *       timeout, the call in progress that a stall report names).</li>
 * </ul>
 */
package org.mpi2nccl.comm;
