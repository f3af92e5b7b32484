package org.mpi2nccl.comm.nccl;

import java.time.Duration;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;

/**
 * {@code mpj}: rank 0's bytes broadcast over a host communicator (MPJ Express, or the ring), as mpi4py's
 * {@code comm.bcast} does it. The communicator's own timeout bounds the wait.
 */
final class CommunicatorRendezvous implements Rendezvous {
    private final Communicator host;

    CommunicatorRendezvous(Communicator host) {
        this.host = host;
    }

    @Override
    public byte[] share(int rank, int size, byte[] fromRoot, Duration timeout) {
        if (rank != host.rank() || size != host.size()) {
            throw new IllegalArgumentException("rendezvous over " + host.kind() + ": NCCL rank/size " + rank + "/" + size
                    + " differ from the communicator's " + host.rank() + "/" + host.size());
        }
        byte[] id = rank == 0 ? fromRoot.clone() : new byte[fromRoot == null ? 128 : fromRoot.length];
        host.broadcast(HostBuffer.of(id), 0);
        return id;
    }

    @Override
    public String describe() {
        return "a broadcast over the " + host.kind() + " communicator";
    }
}
