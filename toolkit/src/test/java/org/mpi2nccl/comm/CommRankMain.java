package org.mpi2nccl.comm;

import java.time.Duration;
import java.util.List;
import mpi.MPI;

/**
 * A rank program (started by the MPJ launcher): runs {@link CommunicatorChecks} on the communicator named by
 * the first argument ("mpj", "ring", "naive") and prints one line, "CHECKS OK rank r of p" or the failures.
 * Extra modes exercise the failure paths: "mismatch" (rank 1 calls a different collective), "skip" (the last
 * rank skips a collective and then waits), "die" (the last rank exits in the middle of the job).
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
            default -> throw new IllegalArgumentException("unknown communicator " + what);
        };
        int r = c.rank(), p = c.size();
        boolean ok;
        try {
            switch (mode) {
                case "checks" -> {
                    List<String> bad = CommunicatorChecks.runAll(c);
                    ok = bad.isEmpty();
                    System.out.println(ok ? "CHECKS OK rank " + r + " of " + p : "CHECKS FAILED rank " + r + ": " + bad);
                }
                case "mismatch" -> {
                    float[] x = new float[16];
                    if (r == 1) {
                        c.broadcast(HostBuffer.of(x), 0);
                    } else {
                        c.allReduce(HostBuffer.of(x), Reduction.SUM);
                    }
                    ok = false;
                    System.out.println("NO ERROR rank " + r);
                }
                case "skip" -> {
                    int[] x = {1};
                    c.allReduce(HostBuffer.of(x), Reduction.SUM);
                    if (r == p - 1) {
                        Thread.sleep(timeout.toMillis() * 3);      // never makes call #2
                        System.out.println("SKIPPER DONE rank " + r);
                        ok = true;
                    } else {
                        c.allReduce(HostBuffer.of(x), Reduction.SUM);
                        ok = false;
                        System.out.println("NO ERROR rank " + r);
                    }
                }
                case "die" -> {
                    int[] x = new int[1 << 20];
                    c.allReduce(HostBuffer.of(x), Reduction.SUM);
                    if (r == p - 1) {
                        System.out.println("DYING rank " + r);
                        System.out.flush();
                        Runtime.getRuntime().halt(3);
                    }
                    for (int i = 0; i < 50; i++) {
                        c.allReduce(HostBuffer.of(x), Reduction.SUM);
                    }
                    ok = false;
                    System.out.println("NO ERROR rank " + r);
                }
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        } catch (CommException e) {
            System.out.println("COMM ERROR rank " + r + " " + e.getClass().getSimpleName() + ": " + e.getMessage());
            System.out.flush();
            ok = false;
            if (c.isBroken()) {
                // MPJ may be stuck inside the failed call: end this rank without MPI.Finalize.
                Runtime.getRuntime().halt(2);
            }
        }
        c.close();
        MPI.Finalize();
        if (!ok) {
            System.exit(1);
        }
    }
}
