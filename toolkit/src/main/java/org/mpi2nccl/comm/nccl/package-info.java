/**
 * NCCL on GPUs (lessons 04 and 05), through JavaCPP's binding: the same {@link org.mpi2nccl.comm.Communicator} as
 * the CPU routes, one rank per GPU.
 *
 * <p>Reading order for a student:
 * <ol>
 *   <li>{@link org.mpi2nccl.comm.nccl.NcclBootstrap}: how the ranks make one communicator, in one method:
 *       {@code cudaSetDevice}, {@code ncclGetUniqueId} on rank 0, the 128 bytes shared, {@code ncclCommInitRank}.</li>
 *   <li>{@link org.mpi2nccl.comm.nccl.Rendezvous}: the channel that shares those bytes, with one file per channel:
 *       {@link org.mpi2nccl.comm.nccl.CommunicatorRendezvous} (an MPJ broadcast),
 *       {@link org.mpi2nccl.comm.nccl.TcpRendezvous} ({@code tcp://}), {@link org.mpi2nccl.comm.nccl.FileRendezvous}
 *       ({@code file://}).</li>
 *   <li>{@link org.mpi2nccl.comm.nccl.NcclCommunicator}: the factories and the collectives, one NCCL call each;
 *       {@link org.mpi2nccl.comm.nccl.DeviceArray} for GPU memory to pass them.</li>
 * </ol>
 *
 * <p>Kept apart, so that the files above read as the idea: the safety around every NCCL call
 * ({@link org.mpi2nccl.comm.nccl.NcclCalls}, {@link org.mpi2nccl.comm.nccl.NcclWaits}: every wait has a timeout,
 * late calls are aborted; {@link org.mpi2nccl.comm.nccl.NcclMetadataCheck}, {@link org.mpi2nccl.comm.nccl.NcclPointers}),
 * split and group calls ({@link org.mpi2nccl.comm.nccl.NcclSplit}, {@link org.mpi2nccl.comm.nccl.NcclGroup},
 * {@link org.mpi2nccl.comm.nccl.NcclClique} for several GPUs of one process), settings
 * ({@link org.mpi2nccl.comm.nccl.NcclOptions}, {@link org.mpi2nccl.comm.nccl.NcclTypes}) and loading the native
 * libraries ({@link org.mpi2nccl.comm.nccl.NcclNatives}, {@link org.mpi2nccl.comm.nccl.NcclCuda}).
 */
package org.mpi2nccl.comm.nccl;
