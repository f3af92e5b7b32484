package org.mpi2nccl.launch.nodes;

/** Simulated nodes could not be made or a command in them could not run; the message says why and what to do. */
public final class NodesException extends RuntimeException {
    public NodesException(String message) {
        super(message);
    }
}
