package org.mpi2nccl.comm.nccl;

import java.time.Duration;
import java.util.List;
import mpi.MPI;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.CommunicatorChecks;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;

/**
 * A GPU rank program (started by the MPJ launcher on niodev: one JVM per rank, one GPU per rank).
 * Arguments: INIT MODE [TIMEOUT_MS], where INIT is "mpj" (the unique id broadcast over MPJ, as mpi4py programs do it),
 * "steps" (the same, one call at a time: uniqueId on rank 0, MPJ broadcast, initRank),
 * "tcp://HOST:PORT" or "file:///PATH" (MPJ only starts the processes and numbers them), and MODE is
 * <ul>
 *   <li>"checks": every collective and reduction on GPU buffers, results compared with the expected values;</li>
 *   <li>"mismatch": rank 1 calls broadcast where the others call allReduce (metadata check must say so);</li>
 *   <li>"skip" / "skip-unchecked": the last rank skips allReduce #2 (with / without the metadata check): the
 *       others must fail with a timeout naming allReduce #2 after ncclCommAbort;</li>
 *   <li>"env": prints the NCCL_* variables this rank sees.</li>
 * </ul>
 * Prints "NCCL OK rank r ..." lines on success; throws (failing the job, naming the rank) otherwise.
 */
public final class NcclRankMain {
    private NcclRankMain() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        String init = rest.length > 0 ? rest[0] : "mpj";
        String mode = rest.length > 1 ? rest[1] : "checks";
        Duration timeout = Duration.ofMillis(rest.length > 2 ? Long.parseLong(rest[2]) : 60_000);
        MpjCommunicator host = MpjCommunicator.builder().timeout(Duration.ofSeconds(120)).build();
        int rank = host.rank(), size = host.size();
        NcclOptions opts = NcclOptions.defaults().timeout(timeout).verifyCalls(!mode.equals("skip-unchecked"));
        boolean ok = false;
        NcclCommunicator nccl = null;
        try {
            if (init.equals("steps")) {
                // the bootstrap, one step at a time (every rank loads NCCL first, as a Python rank imports it: else
                // rank 0's ncclCommInitRank would also time the other ranks loading the library)
                NcclNatives.load();
                byte[] id = rank == 0 ? NcclCommunicator.uniqueId() : new byte[128];
                host.broadcast(HostBuffer.of(id), 0);
                nccl = NcclCommunicator.initRank(id, rank, size, opts);
            } else {
                nccl = init.equals("mpj") ? NcclCommunicator.overHost(host, opts)
                        : NcclCommunicator.init(Rendezvous.parse(init), rank, size, opts);
            }
            System.out.printf("NCCL INIT rank %d of %d on cuda:%d via %s: rendezvous %.1f ms, ncclCommInitRank %.1f ms, NCCL %s%n",
                    rank, size, nccl.device(), init, nccl.rendezvousNanos() / 1e6, nccl.initNanos() / 1e6, NcclNatives.version());
            switch (mode) {
                case "checks" -> {
                    List<String> bad = CommunicatorChecks.runAll(new DeviceRoundTrip(nccl, nccl.device()));
                    try (NcclCommunicator fast = NcclCommunicator.overHost(host, NcclOptions.fast().timeout(timeout))) {
                        bad.addAll(asyncAndGroupChecks(nccl, fast));
                    }
                    // NCCL's non-blocking mode (every call polled): the same group and queued checks
                    try (NcclCommunicator polled = NcclCommunicator.overHost(host, opts.blocking(false));
                         NcclCommunicator polledFast = NcclCommunicator.overHost(host, NcclOptions.fast().blocking(false).timeout(timeout))) {
                        bad.addAll(asyncAndGroupChecks(polled, polledFast));
                        bad.addAll(splitProbe(polled, "non-blocking"));
                    }
                    bad.addAll(splitProbe(nccl, "blocking"));
                    ok = bad.isEmpty();
                    System.out.println(ok ? "NCCL OK rank " + rank + " of " + size + " checks" : "NCCL FAILED rank " + rank + ": " + bad);
                }
                case "mismatch" -> {
                    try (DeviceArray x = DeviceArray.allocate(nccl.device(), DataType.FLOAT32, 16)) {
                        if (rank == 1) {
                            nccl.broadcast(x.buffer(), 0);
                        } else {
                            nccl.allReduce(x.buffer(), Reduction.SUM);
                        }
                    }
                    System.out.println("NCCL FAILED rank " + rank + ": no error for mismatched calls");
                }
                case "skip", "skip-unchecked" -> {
                    try (DeviceArray x = DeviceArray.allocate(nccl.device(), DataType.FLOAT32, 1 << 20)) {
                        nccl.allReduce(x.buffer(), Reduction.SUM);
                        if (rank == size - 1) {
                            Thread.sleep(timeout.toMillis() * 3);
                            System.out.println("NCCL OK rank " + rank + " skipped allReduce #2");
                            ok = true;
                        } else {
                            nccl.allReduce(x.buffer(), Reduction.SUM);
                            System.out.println("NCCL FAILED rank " + rank + ": allReduce #2 returned although a rank skipped it");
                        }
                    }
                }
                case "env" -> {
                    System.out.println("NCCL ENV rank " + rank + " " + NcclNatives.environment());
                    ok = true;
                }
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        } catch (CommException e) {
            System.out.println("COMM ERROR rank " + rank + " " + e.getClass().getSimpleName() + ": " + e.getMessage());
            // only the error each mode provokes counts as expected
            ok = (mode.startsWith("skip") && e instanceof org.mpi2nccl.comm.CollectiveTimeoutException)
                    || (mode.equals("mismatch") && e instanceof org.mpi2nccl.comm.CollectiveMismatchException);
            if (ok) {
                System.out.println("NCCL OK rank " + rank + " got the expected error");
            }
        }
        System.out.flush();
        if (nccl != null) {
            nccl.close();
        }
        if (!ok) {
            throw new AssertionError("rank " + rank + ": NCCL " + mode + " via " + init + " failed (see the lines above)");
        }
        host.close();
        MPI.Finalize();
    }

    /**
     * ncclCommSplit in one NCCL mode, one line per variant ("SPLIT PROBE rank r: MODE, color c, key k: outcome"):
     * color 0 with key -rank (the order reversed) and key rank (kept), each child and the parent used right after;
     * then one rank alone in a color and the others with NO_COLOR (they get no communicator). Returns the failures.
     * After a failure the parent may be aborted: the probe stops there.
     */
    static List<String> splitProbe(NcclCommunicator parent, String mode) {
        List<String> bad = new java.util.ArrayList<>();
        int r = parent.rank(), p = parent.size();
        int[][] variants = {{0, -r, p - 1 - r, p}, {0, r, r, p}, {r == 0 ? 5 : Communicator.NO_COLOR, 0, 0, 1}};
        for (int[] v : variants) {
            int color = v[0], key = v[1], wantRank = v[2], wantSize = v[3];
            long t0 = System.nanoTime();
            String outcome;
            boolean stop = false;
            try (NcclCommunicator child = parent.split(color, key)) {
                if (color == Communicator.NO_COLOR) {
                    outcome = child == null ? "no communicator, as asked" : "got " + child + " for NO_COLOR";
                    if (child != null) {
                        bad.add(mode + " split NO_COLOR: " + outcome);
                    }
                } else if (child == null) {
                    outcome = "null for a real color";
                    bad.add(mode + " split color " + color + " key " + key + ": " + outcome);
                } else {
                    child.barrier();
                    outcome = "rank " + child.rank() + " of " + child.size() + " (expected " + wantRank + " of " + wantSize
                            + "), a barrier on it OK";
                    if (child.rank() != wantRank || child.size() != wantSize) {
                        bad.add(mode + " split color " + color + " key " + key + ": " + outcome);
                    }
                }
                parent.barrier();       // the parent right after the split (non-blocking: settled by the split)
                outcome += "; the parent's barrier after it OK";
            } catch (CommException e) {
                outcome = "FAILED: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                bad.add(mode + " split color " + color + " key " + key + ": " + outcome);
                stop = true;
            }
            System.out.printf(java.util.Locale.ROOT, "SPLIT PROBE rank %d: %s, color %s, key %d: %s (%.1f ms)%n", r, mode,
                    color == Communicator.NO_COLOR ? "NO_COLOR" : String.valueOf(color), key, outcome,
                    (System.nanoTime() - t0) / 1e6);
            if (stop) {
                break;
            }
        }
        return bad;
    }

    /**
     * Asynchronous mode (ten all-reduces queued back to back, then synchronize), a collective inside a group,
     * and a group of send + recv in both directions.
     */
    static List<String> asyncAndGroupChecks(NcclCommunicator sync, NcclCommunicator fast) {
        List<String> bad = new java.util.ArrayList<>();
        int r = sync.rank(), p = sync.size(), n = 1000;
        try (DeviceArray a = DeviceArray.of(fast.device(), HostBuffer.of(CommunicatorChecks.input(r, n)))) {
            for (int i = 0; i < 10; i++) {
                fast.allReduce(a.buffer(), Reduction.SUM);
            }
            fast.synchronize();
            HostBuffer h = a.toHost();
            int[] want = CommunicatorChecks.reference(Reduction.SUM, p, n);
            long factor = (long) Math.pow(p, 9);
            for (int i = 0; i < n; i++) {
                if ((long) h.getDouble(i) != want[i] * factor) {
                    bad.add("10 queued allReduces, element " + i + ": " + h.getDouble(i) + " vs " + want[i] * factor);
                    break;
                }
            }
        }
        try (DeviceArray a = DeviceArray.of(sync.device(), HostBuffer.of(CommunicatorChecks.input(r, n)))) {
            NcclCommunicator.group(() -> sync.allReduce(a.buffer(), Reduction.SUM));
            HostBuffer h = a.toHost();
            int[] want = CommunicatorChecks.reference(Reduction.SUM, p, n);
            for (int i = 0; i < n; i++) {
                if ((int) h.getDouble(i) != want[i]) {
                    bad.add("group allReduce element " + i + ": " + h.getDouble(i) + " vs " + want[i]);
                    break;
                }
            }
        }
        if (p > 1) {
            int right = (r + 1) % p, left = (r + p - 1) % p;
            try (DeviceArray out = DeviceArray.of(sync.device(), HostBuffer.of(new float[] {r, r + 0.5f}));
                 DeviceArray in = DeviceArray.allocate(sync.device(), DataType.FLOAT32, 2)) {
                NcclCommunicator.group(() -> {
                    sync.send(out.buffer(), right);
                    sync.recv(in.buffer(), left);
                });
                HostBuffer h = in.toHost();
                if (h.getDouble(0) != left || h.getDouble(1) != left + 0.5) {
                    bad.add("grouped send/recv got " + h.getDouble(0) + ", " + h.getDouble(1) + " from rank " + left);
                }
            }
        }
        return bad;
    }
}
