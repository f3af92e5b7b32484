/**
 * Collectives written from scratch (lesson 02), read in this order:
 * <ol>
 *   <li>{@link org.mpi2nccl.comm.ring.NaiveAllReduce}: everything to rank 0 and back, the yardstick;</li>
 *   <li>{@link org.mpi2nccl.comm.ring.RingAllReduce}: reduce-scatter then all-gather around the ring, pipelined in
 *       chunks, top to bottom in one file;</li>
 *   <li>{@link org.mpi2nccl.comm.ring.RingCommunicator}: the hand-written collectives as a communicator (timeouts,
 *       the call check, GPU buffers staged through the host), with {@link org.mpi2nccl.comm.ring.ChainCollectives}
 *       for broadcast and reduce;</li>
 *   <li>{@link org.mpi2nccl.comm.ring.ShmAllReduce}: on one machine, every rank reads the others' buffers in shared
 *       memory instead of passing them round the ring (its communicator's kind is {@code shm});</li>
 *   <li>{@link org.mpi2nccl.comm.ring.CpuClique}: lesson 04's NCCL-style bootstrap for CPU ranks.</li>
 * </ol>
 * Watching, kept apart: {@link org.mpi2nccl.comm.ring.RingObserver} (the hook the collectives call),
 * {@link org.mpi2nccl.comm.ring.RingTrace} (lesson 02's step chart), {@link org.mpi2nccl.comm.ring.TraceExchange};
 * {@link org.mpi2nccl.comm.ring.LocalRanks} runs a whole job as threads of one JVM.
 */
package org.mpi2nccl.comm.ring;
