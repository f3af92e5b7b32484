package org.mpi2nccl.comm;

import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.mpj.MpjTransport;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.comm.shm.ShmTransport;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.launch.Report;

/**
 * A rank program (started by the launcher): runs {@link CommunicatorChecks} on the communicator named by the
 * first argument ("mpj", "ring", "naive", "ring-shm", "shm") and reports {@code {rank, size, kind, failures}}; a failed check
 * throws, which fails the job naming the rank. Other modes exercise the failure paths and let the
 * communicator's exception end the rank:
 * "mismatch" (rank 1 calls broadcast where the others call allReduce), "skip" (the last rank never makes
 * allReduce #2 and waits), "die" (the last rank's JVM halts between two all-reduces).
 */
public final class CommRankMain {
    private CommRankMain() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        String what = rest.length > 0 ? rest[0] : "mpj";
        String mode = rest.length > 1 ? rest[1] : "checks";
        Duration timeout = Duration.ofMillis(rest.length > 2 ? Long.parseLong(rest[2]) : 60_000);
        Communicator c = switch (what) {
            case "mpj" -> MpjCommunicator.builder().timeout(timeout).build();
            // small chunks exercise the pipelining on the small buffers of the checks
            case "ring" -> RingCommunicator.over(MpjTransport.world()).timeout(timeout)
                    .chunkBytes(mode.equals("checks") ? 1024 : 512 * 1024).build();
            case "naive" -> RingCommunicator.over(MpjTransport.world()).timeout(timeout)
                    .algorithm(RingCommunicator.Algorithm.NAIVE).build();
            case "ring-shm" -> RingCommunicator.over(ShmTransport.open(MpjCommunicator.builder().timeout(timeout).build()))
                    .timeout(timeout).chunkBytes(mode.equals("checks") ? 1024 : 512 * 1024).build();
            case "shm" -> RingCommunicator.over(ShmTransport.open(MpjCommunicator.builder().timeout(timeout).build()))
                    .algorithm(RingCommunicator.Algorithm.SHM).timeout(timeout)
                    .chunkBytes(mode.equals("checks") ? 1024 : 512 * 1024).build();
            default -> throw new IllegalArgumentException("unknown communicator " + what);
        };
        int r = c.rank(), p = c.size();
        switch (mode) {
            case "checks" -> {
                List<String> bad = CommunicatorChecks.runAll(c);
                Report.emit(Map.of("rank", r, "size", p, "kind", c.kind(), "failures", bad.size()));
                if (!bad.isEmpty()) {
                    throw new AssertionError("rank " + r + " of " + p + " (" + c.kind() + "): " + bad);
                }
                System.out.println("checks passed on rank " + r + " of " + p);
            }
            case "mismatch" -> {
                float[] x = new float[16];
                if (r == 1) {
                    c.broadcast(HostBuffer.of(x), 0);
                } else {
                    c.allReduce(HostBuffer.of(x), Reduction.SUM);
                }
                throw new AssertionError("rank " + r + ": mismatched calls raised no error");
            }
            case "skip" -> {
                int[] x = {1};
                c.allReduce(HostBuffer.of(x), Reduction.SUM);
                if (r == p - 1) {
                    System.out.println("rank " + r + " skips allReduce #2");
                    Thread.sleep(timeout.toMillis() * 5);
                    return;
                }
                c.allReduce(HostBuffer.of(x), Reduction.SUM);
                throw new AssertionError("rank " + r + ": allReduce #2 returned although rank " + (p - 1) + " skipped it");
            }
            case "die" -> {
                int[] x = new int[1 << 16];
                c.allReduce(HostBuffer.of(x), Reduction.SUM);
                if (r == p - 1) {
                    System.out.println("rank " + r + " dies now");
                    System.out.flush();
                    Runtime.getRuntime().halt(3);
                }
                for (int i = 0; i < 100; i++) {
                    c.allReduce(HostBuffer.of(x), Reduction.SUM);
                }
                throw new AssertionError("rank " + r + ": all-reduces went on after rank " + (p - 1) + " died");
            }
            case "compare" -> {
                // the ring against MPJ's own Allreduce on the same data: integers bit for bit, floats within rounding
                MpjCommunicator mpj = MpjCommunicator.builder().timeout(timeout).build();
                java.util.Random rnd = new java.util.Random(42 + r);
                int n = 100_003;
                int[] ints = new int[n];
                float[] floats = new float[n];
                for (int i = 0; i < n; i++) {
                    ints[i] = rnd.nextInt();
                    floats[i] = (float) rnd.nextGaussian() * 1000;
                }
                int[] ringInts = ints.clone();
                int[] mpjInts = ints.clone();
                float[] ringFloats = floats.clone();
                float[] mpjFloats = floats.clone();
                c.allReduce(HostBuffer.of(ringInts), Reduction.SUM);
                mpj.allReduce(HostBuffer.of(mpjInts), Reduction.SUM);
                c.allReduce(HostBuffer.of(ringFloats), Reduction.SUM);
                mpj.allReduce(HostBuffer.of(mpjFloats), Reduction.SUM);
                // rounding is relative to the size of the terms, not of their (possibly cancelling) sum
                float[] magnitude = new float[n];
                for (int i = 0; i < n; i++) {
                    magnitude[i] = Math.abs(floats[i]);
                }
                mpj.allReduce(HostBuffer.of(magnitude), Reduction.SUM);
                double worst = 0;
                for (int i = 0; i < n; i++) {
                    worst = Math.max(worst, Math.abs(ringFloats[i] - mpjFloats[i]) / magnitude[i]);
                }
                boolean same = java.util.Arrays.equals(ringInts, mpjInts);
                Report.emit(Map.of("rank", r, "intsIdentical", same, "floatRelDiff", worst));
                mpj.close();
                if (!same || worst > 1e-6) {
                    throw new AssertionError("rank " + r + ": ring vs MPJ: ints identical " + same + ", float rel diff " + worst);
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        c.close();
        MPI.Finalize();
    }
}
