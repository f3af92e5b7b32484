package org.mpi2nccl.comm.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommunicatorChecks;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.RankLine;

/**
 * NCCL for real, on the GPU machine: 2 ranks (niodev, one JVM and one GPU each) created three ways (the unique
 * id broadcast over MPJ, tcp://, file://), every collective checked; mismatched and skipped calls turned into
 * errors (a skipped call aborted by the timeout with ncclCommAbort, with and without the metadata check);
 * NCCL_* variables reaching the ranks; several GPUs in this one process through ncclCommInitAll and group
 * calls. Without a GPU every test says "no GPU: skipped" and is reported skipped.
 */
@Tag("gpu")
class NcclGpuTest {
    private static int gpus;

    @BeforeAll
    static void probe() {
        gpus = NcclNatives.gpuCount();
    }

    private static void needGpus(int n) {
        if (gpus < n) {
            String why = gpus == 0 ? NcclNatives.whyNoGpu() : "needs " + n + " GPUs, this machine has " + gpus;
            System.out.println("no GPU: skipped (" + why + ")");
            Assumptions.assumeTrue(false, "no GPU: skipped (" + why + ")");
        }
    }

    private static JobResult twoRanks(String init, String mode, String timeoutMs) {
        JobResult r = Mpj.launch(NcclRankMain.class).ranks(2).device(MpjDevice.NIODEV).args(init, mode, timeoutMs)
                .env("NCCL_DEBUG", System.getenv().getOrDefault("NCCL_DEBUG", "WARN"))
                .timeout(Duration.ofSeconds(180)).onLine(l -> System.out.println(l)).run();
        return r;
    }

    private static String text(JobResult r) {
        return r.lines().stream().map(RankLine::toString).collect(Collectors.joining("\n"));
    }

    private static void assertBothRanks(JobResult r, String what) {
        String all = text(r);
        assertTrue(r.succeeded(), all);
        for (int rank = 0; rank < 2; rank++) {
            final int k = rank;
            assertTrue(r.stdout(k).stream().anyMatch(l -> l.contains("NCCL OK rank " + k) && l.contains(what)),
                    "rank " + k + " did not report '" + what + "':\n" + all);
        }
    }

    @Test
    void initThroughMpjBroadcastAndEveryCollective() {
        needGpus(2);
        assertBothRanks(twoRanks("mpj", "checks", "60000"), "checks");
    }

    @Test
    void theBootstrapStepByStep() {
        needGpus(2);
        assertBothRanks(twoRanks("steps", "checks", "60000"), "checks");
    }

    @Test
    void initThroughTcpRendezvous() throws IOException {
        needGpus(2);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertBothRanks(twoRanks("tcp://127.0.0.1:" + port, "checks", "60000"), "checks");
    }

    @Test
    void initThroughSharedFile(@TempDir Path dir) {
        needGpus(2);
        assertBothRanks(twoRanks("file://" + dir.resolve("nccl-id"), "checks", "60000"), "checks");
    }

    @Test
    void mismatchedCollectivesFailOnBothRanks() {
        needGpus(2);
        JobResult r = twoRanks("mpj", "mismatch", "20000");
        assertBothRanks(r, "expected error");
        assertTrue(text(r).contains("collective mismatch") && text(r).contains("broadcast #1"), text(r));
    }

    @Test
    void aSkippedCollectiveIsAbortedByTheTimeoutAndNamed() {
        needGpus(2);
        for (String mode : List.of("skip", "skip-unchecked")) {
            long t0 = System.nanoTime();
            JobResult r = twoRanks("mpj", mode, "3000");
            double s = (System.nanoTime() - t0) / 1e9;
            String rank0 = String.join("\n", r.stdout(0));
            String rank1 = String.join("\n", r.stdout(1));
            assertTrue(r.succeeded(), text(r));
            assertTrue(rank0.contains("NCCL OK rank 0 got the expected error"), mode + ":\n" + rank0);
            assertTrue(rank1.contains("NCCL OK rank 1 skipped allReduce #2"), mode + ":\n" + rank1);
            assertTrue(rank0.contains("CollectiveTimeoutException") && rank0.contains("allReduce #2")
                    && rank0.contains("ncclCommAbort"), mode + ":\n" + rank0);
            assertTrue(s < 60, mode + " took " + s + " s");
        }
    }

    @Test
    void ncclVariablesReachTheRanks() {
        needGpus(2);
        JobResult r = Mpj.launch(NcclRankMain.class).ranks(2).device(MpjDevice.NIODEV).args("mpj", "env", "60000")
                .env("NCCL_DEBUG", "WARN").env("NCCL_SOCKET_IFNAME", "lo").timeout(Duration.ofSeconds(120)).run();
        for (int k = 0; k < 2; k++) {
            String out = String.join("\n", r.stdout(k));
            assertTrue(out.contains("NCCL_DEBUG=WARN") && out.contains("NCCL_SOCKET_IFNAME=lo"), out);
        }
    }

    @Test
    void severalGpusInOneProcessWithGroupCalls() {
        needGpus(1);
        int n = Math.min(gpus, 2);
        int[] devices = new int[n];
        for (int i = 0; i < n; i++) {
            devices[i] = i;
        }
        List<NcclCommunicator> comms = NcclCommunicator.initAll(NcclOptions.defaults().timeout(Duration.ofSeconds(20)), devices);
        List<DeviceArray> bufs = new ArrayList<>();
        try {
            int count = 1 << 16;
            for (int i = 0; i < n; i++) {
                bufs.add(DeviceArray.of(i, HostBuffer.of(CommunicatorChecks.input(i, count))));
            }
            // all_reduce_multigpu: one thread, every GPU's call inside one group
            NcclCommunicator.group(() -> {
                for (int i = 0; i < n; i++) {
                    comms.get(i).allReduce(bufs.get(i).buffer(), Reduction.SUM);
                }
            });
            int[] want = CommunicatorChecks.reference(Reduction.SUM, n, count);
            for (int i = 0; i < n; i++) {
                HostBuffer h = bufs.get(i).toHost();
                for (int k = 0; k < count; k += 997) {
                    assertEquals(want[k], (int) h.getDouble(k), "GPU " + i + " element " + k);
                }
            }
            List<DeviceArray> gathered = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                gathered.add(DeviceArray.allocate(i, DataType.INT32, (long) n * count));
            }
            NcclCommunicator.group(() -> {
                for (int i = 0; i < n; i++) {
                    comms.get(i).allGather(bufs.get(i).buffer(), gathered.get(i).buffer());
                }
            });
            HostBuffer g = gathered.get(n - 1).toHost();
            assertEquals(want[5], (int) g.getDouble(5));
            gathered.forEach(DeviceArray::close);
            if (n > 1) {
                // outside a group, one GPU's call alone would wait for the others forever: refused
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> comms.get(0).allReduce(bufs.get(0).buffer(), Reduction.SUM));
                assertTrue(e.getMessage().contains("group"), e.getMessage());
                // a group where only GPU 0 calls: the timeout aborts it and names the call. (Guarded: should
                // ncclGroupEnd of these blocking ncclCommInitAll communicators itself block, the test fails
                // instead of hanging.)
                long t0 = System.nanoTime();
                RuntimeException t = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(90),
                        () -> assertThrows(RuntimeException.class, () -> NcclCommunicator.group(
                                () -> comms.get(0).allReduce(bufs.get(0).buffer(), Reduction.SUM))));
                double s = (System.nanoTime() - t0) / 1e9;
                CollectiveTimeoutException te = assertInstanceOf(CollectiveTimeoutException.class, t);
                assertTrue(te.getMessage().contains("allReduce #4") && te.getMessage().contains("ncclCommAbort"), te.getMessage());
                assertTrue(s < 40, "took " + s + " s");
            }
        } finally {
            bufs.forEach(DeviceArray::close);
            NcclCommunicator.closeAll(comms);
        }
    }

    /**
     * The trainer's setting, on one GPU in this process: a communicator on a stream the caller made (as the NCCL
     * route passes the CUDA backend's stream), and an average over one rank, which NCCL runs as a kernel
     * (PreMulSum) rather than skipping: the first GPU run died exactly here when every address reached NCCL as 0.
     */
    @Test
    void aCallersStreamAndAOneRankAverageWork(@TempDir Path dir) {
        needGpus(1);
        org.bytedeco.cuda.cudart.CUstream_st made = new org.bytedeco.cuda.cudart.CUstream_st();
        assertEquals(0, org.bytedeco.cuda.global.cudart.cudaSetDevice(0));
        assertEquals(0, org.bytedeco.cuda.global.cudart.cudaStreamCreate(made));
        long streamAddress = made.address();
        try (NcclCommunicator c = NcclCommunicator.init(Rendezvous.parse("file://" + dir.resolve("id")), 0, 1,
                NcclOptions.fast().device(0).timeout(Duration.ofSeconds(30)).stream(streamAddress));
             DeviceArray a = DeviceArray.of(0, HostBuffer.of(new float[] {1, 2, 3, 4, 5, 6, 7, 8}));
             DeviceArray out = DeviceArray.allocate(0, DataType.FLOAT32, 8)) {
            assertEquals(streamAddress, c.streamAddress(), "the communicator must run on the caller's stream");
            c.allReduce(a.buffer(), Reduction.AVG);
            c.allReduce(a.buffer(), out.buffer(), Reduction.AVG);
            c.synchronize();
            HostBuffer h = out.toHost();
            for (int i = 0; i < 8; i++) {
                assertEquals(i + 1, h.getDouble(i), 1e-6, "element " + i);
            }
        } finally {
            org.bytedeco.cuda.global.cudart.cudaStreamDestroy(made);
        }
    }

    /** Host memory passed as device memory is refused before NCCL sees it, with the address named; the communicator stays usable. */
    @Test
    void hostMemoryPassedAsDeviceMemoryIsRefusedWithItsAddress() {
        needGpus(1);
        List<NcclCommunicator> one = NcclCommunicator.initAll(NcclOptions.defaults().timeout(Duration.ofSeconds(30)), 0);
        try (org.bytedeco.javacpp.FloatPointer host = new org.bytedeco.javacpp.FloatPointer(64);
             DeviceArray ok = DeviceArray.of(0, HostBuffer.of(new float[] {3, 4}))) {
            org.mpi2nccl.comm.DeviceBuffer fake = org.mpi2nccl.comm.DeviceBuffer.wrap(host.address(), 64, DataType.FLOAT32, 0);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> one.get(0).allReduce(fake, Reduction.SUM));
            String hex = "0x" + Long.toHexString(host.address());
            assertTrue(e.getMessage().contains(hex) && e.getMessage().contains("host memory"), e.getMessage());
            one.get(0).allReduce(ok.buffer(), Reduction.MAX);
            HostBuffer h = ok.toHost();
            assertEquals(3, h.getDouble(0));
            assertEquals(4, h.getDouble(1));
        } finally {
            NcclCommunicator.closeAll(one);
        }
    }

    /** closeAll given a communicator of ncclCommInitRank closes it as close() does (it was finalized twice and threw). */
    @Test
    void closeAllAlsoClosesACommunicatorMadeByInitRank() {
        needGpus(1);
        NcclCommunicator c = NcclCommunicator.initRank(NcclCommunicator.uniqueId(), 0, 1,
                NcclOptions.fast().device(0).timeout(Duration.ofSeconds(30)));
        NcclCommunicator.closeAll(List.of(c));
        IllegalStateException e = assertThrows(IllegalStateException.class, c::barrier);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void oneRankOnOneGpuRunsEveryCollective() {
        needGpus(1);
        List<NcclCommunicator> one = NcclCommunicator.initAll(NcclOptions.defaults(), 0);
        try {
            List<String> bad = CommunicatorChecks.runAll(new DeviceRoundTrip(one.get(0), 0));
            assertTrue(bad.isEmpty(), bad.toString());
        } finally {
            NcclCommunicator.closeAll(one);
        }
    }
}
