package org.mpi2nccl.parallel.gpu;

import java.util.Locale;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.mpj.MpjTransport;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.comm.shm.ShmTransport;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclOptions;
import org.mpi2nccl.tensor.Device;

/**
 * How gradients travel between ranks: the lessons' three routes, each a {@link Communicator}.
 * <ul>
 *   <li>{@link #MPI}: MPJ Express's Allreduce on host memory ({@link MpjCommunicator}); GPU gradients are
 *       copied to the host and back around it (the numpy + mpi4py route of the needle course notebook);</li>
 *   <li>{@link #SHM}: the all-reduce written from scratch for one machine ({@link RingCommunicator.Algorithm#SHM}):
 *       every rank reads the others' gradients in shared memory, as NCCL's SHM transport lets it;</li>
 *   <li>{@link #RING}: lesson 02's ring all-reduce ({@link RingCommunicator}) over MPJ send/recv, on one machine
 *       or several;</li>
 *   <li>{@link #NCCL}: NCCL on GPU memory, bootstrapped over MPJ (rank 0's unique id broadcast to the others,
 *       {@link NcclCommunicator}), on a CUDA stream of its own.</li>
 * </ul>
 */
public enum Route {
    MPI("MPI (host-staged)"), SHM("shared memory, written from scratch (one machine)"),
    RING("ring over MPJ send/recv, written from scratch"), NCCL("NCCL");

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
        throw new IllegalArgumentException("unknown route '" + s + "': use mpi, shm, ring or nccl");
    }

    /**
     * This rank's communicator for the route, over the MPJ world ({@code host}, after {@code MPI.Init});
     * {@code device} is where the model lives (NCCL: its GPU and stream). Collective: every rank calls it.
     */
    public Communicator open(MpjCommunicator host, Device device) {
        return switch (this) {
            case MPI -> host;
            // ShmTransport refuses ranks on several machines itself, naming the one on another host
            case SHM -> RingCommunicator.over(ShmTransport.open(host)).algorithm(RingCommunicator.Algorithm.SHM)
                    .timeout(host.timeout()).build();
            case RING -> RingCommunicator.over(MpjTransport.world()).timeout(host.timeout()).build();
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
