package org.mpi2nccl.comm;

/**
 * Lesson 04: how the ranks of a new communicator find each other, in NCCL's three steps. NCCL has no "world" and
 * starts no processes, so the ranks bootstrap themselves:
 * <ol>
 *   <li>rank 0 calls {@link #uniqueId()} ({@code ncclGetUniqueId}): {@value #ID_BYTES} bytes that name the
 *       communicator about to be made and where its ranks meet;</li>
 *   <li>the bytes reach every rank over a channel that already exists (an MPI broadcast);</li>
 *   <li>every rank calls {@link #initRank(int, byte[], int)} ({@code ncclCommInitRank(&comm, size, id, rank)});
 *       it returns once all {@code size} ranks have joined.</li>
 * </ol>
 * Two implementations: NCCL on GPUs (the lesson's adapter over {@code NcclCommunicator}), and {@link org.mpi2nccl.comm.ring.CpuClique},
 * the same steps for CPU ranks on one machine. Neither hangs: a rank that never joins becomes an error at the
 * timeout, naming what is missing.
 */
public interface Clique {
    /** The size of an id: NCCL's {@code ncclUniqueId} is 128 bytes, and the CPU clique's id has the same size. */
    int ID_BYTES = 128;

    /** Step 1, on rank 0 only: a fresh id. Every call makes a new one. */
    byte[] uniqueId();

    /** Step 3, on every rank: joins the communicator named by {@code id} as {@code rank} of {@code size}. */
    Communicator initRank(int size, byte[] id, int rank);

    /** "NCCL 2.28.9 on 2 GPUs", "CPU clique (shared memory)": for messages. */
    String describe();
}
