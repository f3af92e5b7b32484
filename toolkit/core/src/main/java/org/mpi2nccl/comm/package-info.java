/**
 * Communicators on the CPU: the MPI route (lesson 01), the all-reduce written from scratch (lesson 02), and what
 * lessons 03-06 build on. The GPU route, NCCL, is in {@link org.mpi2nccl.comm.nccl}.
 *
 * <p>Reading order for a student:
 * <ol>
 *   <li>{@link org.mpi2nccl.comm.Communicator}: the one interface every route implements (all-reduce, broadcast,
 *       reduce, all-gather, reduce-scatter, send/recv, barrier, split), with {@link org.mpi2nccl.comm.HostBuffer}
 *       and {@link org.mpi2nccl.comm.Reduction} for what it moves and how it combines.</li>
 *   <li>{@link org.mpi2nccl.comm.MpjCommunicator} (lesson 01): MPJ Express's own collectives, one call each.</li>
 *   <li>{@link org.mpi2nccl.comm.NaiveAllReduce}, then {@link org.mpi2nccl.comm.RingAllReduce} (lesson 02): the
 *       all-reduce by hand over {@link org.mpi2nccl.comm.Transport} (non-blocking send and receive). The ring's
 *       reduce-scatter and all-gather, with its pipelining, read top to bottom in that one file.</li>
 *   <li>{@link org.mpi2nccl.comm.RingCommunicator}: the hand-written collectives as a communicator (timeouts, the
 *       call check, GPU buffers staged through the host); {@link org.mpi2nccl.comm.ChainCollectives} for its
 *       broadcast and reduce.</li>
 * </ol>
 *
 * <p>Kept apart from the ideas above:
 * <ul>
 *   <li>watching: {@link org.mpi2nccl.comm.RingObserver} (the hook the hand-written collectives call),
 *       {@link org.mpi2nccl.comm.RingTrace} (lesson 02's step chart), {@link org.mpi2nccl.comm.TraceExchange};</li>
 *   <li>transports: {@link org.mpi2nccl.comm.MpjTransport}, {@link org.mpi2nccl.comm.ThreadTransport} (ranks as
 *       threads, for tests and notebooks), {@link org.mpi2nccl.comm.ShmTransport} (shared memory between rank
 *       processes of one host: the fast one), {@link org.mpi2nccl.comm.SubTransport} (split);</li>
 *   <li>speed: {@link org.mpi2nccl.comm.ScratchBuffers} (memory reused across calls),
 *       {@link org.mpi2nccl.comm.HostReduce} (the arithmetic loops), {@link org.mpi2nccl.comm.HostStaging} (pinned
 *       host memory for GPU buffers);</li>
 *   <li>safety: {@link org.mpi2nccl.comm.Deadline} (every wait has one), {@link org.mpi2nccl.comm.MetadataCheck}
 *       (the ranks compare their calls), {@link org.mpi2nccl.comm.MpjWorker} and
 *       {@link org.mpi2nccl.comm.MpjLimits} (MPJ's blocking calls and limits).</li>
 * </ul>
 */
package org.mpi2nccl.comm;
