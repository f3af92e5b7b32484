package org.mpi2nccl.launch.nodes;

import java.time.Duration;
import java.util.List;

/**
 * Where the processes of a node run: in a network namespace of this machine ({@link NodeNetwork}, made as root) or
 * on a node Slurm allocated ({@link SlurmNodeAllocation}, a lab server's partition of simulated nodes). A command for
 * node {@code k} is {@link #prefix(int)} followed by the command itself.
 */
public interface NodePlacement extends AutoCloseable {
    NodesPlan plan();

    /** The words that run a command on node {@code k}, with the node's host name; put them before the command. */
    List<String> prefix(int node);

    /** How long a daemon may take to start on a node (a Slurm step waits for its node a little). */
    default Duration daemonStartLimit() {
        return Duration.ofSeconds(30);
    }

    /** Stops a command started with {@link #prefix(int)} and everything it started on the node. */
    default void stop(Process command) {
        SimulatedNodes.destroyTree(command.toHandle());
    }

    /** Gives the nodes back: deletes the namespaces, or ends the Slurm allocation. Safe to call twice. */
    @Override
    void close();
}
