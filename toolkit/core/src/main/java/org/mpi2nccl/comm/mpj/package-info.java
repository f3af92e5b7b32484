/**
 * The MPI route (lesson 01): {@link org.mpi2nccl.comm.mpj.MpjCommunicator} calls MPJ Express's own collectives,
 * one call each; {@link org.mpi2nccl.comm.mpj.MpjTransport} is MPJ's point-to-point messages, over which the
 * hand-written ring runs between rank processes. {@link org.mpi2nccl.comm.mpj.MpjWorker} and
 * {@link org.mpi2nccl.comm.mpj.MpjLimits} keep MPJ's blocking calls inside a deadline and its limits checked.
 */
package org.mpi2nccl.comm.mpj;
