package org.mpi2nccl.bench;

import java.time.Duration;
import java.util.List;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.mpj.MpjTransport;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.comm.shm.ShmTransport;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclNatives;
import org.mpi2nccl.comm.nccl.NcclOptions;

/**
 * The communicators the bench knows by name, made inside a rank (after MPI.Init), with where their buffers live:
 * <ul>
 *   <li>{@code mpj}: MPJ Express's collectives on Java arrays (the MPI route on the CPU);</li>
 *   <li>{@code mpj-staged}: the same on GPU buffers, staged through pinned host memory (the MPI route for
 *       GPU tensors: D2H, MPJ collective, H2D);</li>
 *   <li>{@code ring}, {@code naive}: the hand-written ring / reduce-then-broadcast over MPJ point-to-point,
 *       on Java arrays; {@code ring-staged} on GPU buffers;</li>
 *   <li>{@code shm}: the all-reduce written for one machine, every rank reading the others' buffers in shared
 *       memory (no ring), Java arrays;</li>
 *   <li>{@code nccl}: NCCL as nccl-tests and PyTorch run it (calls queued, no metadata check);</li>
 *   <li>{@code nccl-checked}: NCCL with this toolkit's defaults (each call waited for, metadata check).</li>
 * </ul>
 */
public final class RankCommunicators {
    public static final List<String> NAMES = List.of("mpj", "mpj-staged", "ring", "ring-staged", "shm", "naive",
            "nccl", "nccl-checked");

    private RankCommunicators() {
    }

    /** A communicator and the memory its buffers live in. */
    public record Made(Communicator communicator, BenchMemory memory, boolean ownsCommunicator) implements AutoCloseable {
        @Override
        public void close() {
            memory.close();
            if (ownsCommunicator) {
                communicator.close();
            }
        }
    }

    /** True for the names whose buffers are on the GPU. */
    public static boolean usesGpu(String name) {
        return name.startsWith("nccl") || name.endsWith("-staged");
    }

    /**
     * Makes {@code name} for this rank; {@code mpj} is the rank's MPJ communicator (also the bench's control).
     */
    public static Made make(String name, MpjCommunicator mpj, Duration timeout) {
        int device = -1;
        if (usesGpu(name)) {
            int gpus = NcclNatives.gpuCount();
            if (gpus == 0) {
                throw new IllegalStateException("bench: '" + name + "' needs a GPU: " + NcclNatives.whyNoGpu());
            }
            device = mpj.rank() % gpus;
        }
        return switch (name) {
            case "mpj" -> new Made(mpj, BenchMemory.host(), false);
            case "mpj-staged" -> new Made(mpj, BenchMemory.gpu(device), false);
            case "ring" -> new Made(ring(RingCommunicator.Algorithm.RING, timeout), BenchMemory.host(), true);
            case "ring-staged" -> new Made(ring(RingCommunicator.Algorithm.RING, timeout), BenchMemory.gpu(device), true);
            case "naive" -> new Made(ring(RingCommunicator.Algorithm.NAIVE, timeout), BenchMemory.host(), true);
            case "shm" -> new Made(RingCommunicator.over(ShmTransport.open(mpj)).algorithm(RingCommunicator.Algorithm.SHM)
                    .timeout(timeout).build(),
                    BenchMemory.host(), true);
            case "nccl" -> new Made(NcclCommunicator.overHost(mpj, NcclOptions.fast().device(device).timeout(timeout)),
                    BenchMemory.gpu(device), true);
            case "nccl-checked" -> new Made(NcclCommunicator.overHost(mpj, NcclOptions.defaults().device(device).timeout(timeout)),
                    BenchMemory.gpu(device), true);
            default -> throw new IllegalArgumentException("bench: unknown communicator '" + name + "'; known: " + NAMES);
        };
    }

    private static RingCommunicator ring(RingCommunicator.Algorithm a, Duration timeout) {
        return RingCommunicator.over(MpjTransport.world()).algorithm(a).timeout(timeout).build();
    }
}
