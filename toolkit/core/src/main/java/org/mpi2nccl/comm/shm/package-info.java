/**
 * Shared memory between the rank processes of one machine, as NCCL's SHM transport does it:
 * {@link org.mpi2nccl.comm.shm.ShmTransport} (messages through mapped files in /dev/shm, private to their user and
 * removed after use), {@link org.mpi2nccl.comm.shm.ShmBoard} (the notice board every rank reads directly),
 * {@link org.mpi2nccl.comm.shm.ShmWait} (how a wait polls), {@link org.mpi2nccl.comm.shm.ShmFiles} and
 * {@link org.mpi2nccl.comm.shm.SameHost} (whether the ranks share a machine).
 */
package org.mpi2nccl.comm.shm;
