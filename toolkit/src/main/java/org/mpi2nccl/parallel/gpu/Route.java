package org.mpi2nccl.parallel.gpu;

import java.util.Locale;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.MpjCommunicator;
import org.mpi2nccl.comm.RingCommunicator;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclOptions;
import org.mpi2nccl.tensor.Device;

/**
 * How gradients travel between ranks: the lessons' three routes, each a {@link Communicator}.
 * <ul>
 *   <li>{@link #MPI}: MPJ Express's Allreduce on host memory ({@link MpjCommunicator}); GPU gradients are
 *       copied to the host and back around it (the numpy + mpi4py route of the needle course notebook);</li>
 *   <li>{@link #RING}: the all-reduce written from scratch ({@link RingCommunicator}): through shared memory when the
 *       ranks share a machine (what NCCL's SHM transport does), else as a ring over MPJ send/recv;</li>
 *   <li>{@link #NCCL}: NCCL on GPU memory, bootstrapped over MPJ (rank 0's unique id broadcast to the others,
 *       {@link NcclCommunicator}), on a CUDA stream of its own.</li>
 * </ul>
 */
public enum Route {
    MPI("MPI (host-staged)"), RING("ring (shared memory on one host, else MPJ)"), NCCL("NCCL");

    private final String description;

    Route(String description) {
        this.description = description;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String description() {
        return description;
    }

    public static Route parse(String s) {
        for (Route r : values()) if (r.label().equalsIgnoreCase(s.trim())) return r;
        throw new IllegalArgumentException("unknown route '" + s + "': use mpi, ring or nccl");
    }

    /**
     * This rank's communicator for the route, over the MPJ world ({@code host}, after {@code MPI.Init});
     * {@code device} is where the model lives (NCCL: its GPU and stream). Collective: every rank calls it.
     */
    public Communicator open(MpjCommunicator host, Device device) {
        return switch (this) {
            case MPI -> host;
            case RING -> RingCommunicator.overHost(host);
            case NCCL -> {
                if (device.isCpu()) {
                    throw new IllegalArgumentException("the NCCL route needs the model on a GPU (rank " + host.rank()
                            + " has it on the CPU): use --device cuda, or the MPI route on CPUs");
                }
                // NCCL on a stream of its own: the all-reduce of a bucket can run while backward computes the next one
                // (GpuDataParallel orders the two streams by CUDA events; the plain step waits for the GPU instead).
                yield NcclCommunicator.overHost(host, NcclOptions.fast().timeout(host.timeout()).device(device.index()));
            }
        };
    }
}
