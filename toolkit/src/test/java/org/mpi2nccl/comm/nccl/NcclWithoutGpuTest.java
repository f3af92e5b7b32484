package org.mpi2nccl.comm.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.comm.CommException;

/**
 * What runs without a GPU: the "no GPU" error says why and what to use instead; the error texts and hints;
 * the tcp:// and file:// rendezvous (pure Java) with all ranks arriving, a rank missing (timeout naming it),
 * a disagreement on the number of ranks, and a stale file.
 */
class NcclWithoutGpuTest {

    @Test
    void withoutAGpuInitSaysWhyAndWhatToUseInstead() {
        Assumptions.assumeTrue(NcclNatives.gpuCount() == 0, "this machine has a GPU: the GPU tests cover it");
        NcclUnavailableException e = assertThrows(NcclUnavailableException.class,
                () -> NcclCommunicator.init(Rendezvous.parse("tcp://127.0.0.1:1"), 0, 1, NcclOptions.defaults()));
        assertTrue(e.getMessage().contains("no GPU") && e.getMessage().contains("MpjCommunicator"), e.getMessage());
    }

    @Test
    void errorMessagesCarryNcclsWordsAndAHint() {
        String sys = NcclException.message(1, "ncclCommInitRank", NcclException.SYSTEM_ERROR,
                "socketStartConnect: Connect to 10.1.2.3<4455> failed : No route to host");
        assertTrue(sys.startsWith("rank 1: ncclCommInitRank failed"), sys);
        assertTrue(sys.contains("No route to host") && sys.contains("NCCL_SOCKET_IFNAME") && sys.contains("NCCL_DEBUG=INFO"), sys);
        String dup = NcclException.message(0, "ncclCommInitRank", NcclException.INVALID_USAGE,
                "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1b000");
        assertTrue(dup.contains("two ranks use the same GPU"), dup);
        String remote = NcclException.message(0, "allReduce #3", NcclException.REMOTE_ERROR, "");
        assertTrue(remote.contains("peer rank failed"), remote);
        // what the 2xH200 machine printed with NCCL_SOCKET_IFNAME=nosuchnic0: "invalid usage", but the cause is the interface
        String nic = NcclException.message(0, "ncclGetUniqueId", NcclException.INVALID_USAGE, "Bootstrap : no socket interface found");
        assertTrue(nic.contains("NCCL_SOCKET_IFNAME names an interface that does not exist"), nic);
        String shm = NcclException.message(0, "init", NcclException.SYSTEM_ERROR, "Error while creating shared memory segment /dev/shm/nccl-x");
        assertTrue(shm.contains("--shm-size"), shm);
    }

    @Test
    void tcpRendezvousDeliversRankZerosBytesToEveryRank() throws Exception {
        int port = freePort();
        byte[] id = new byte[128];
        for (int i = 0; i < id.length; i++) {
            id[i] = (byte) (i * 7);
        }
        List<byte[]> got = shareOnThreads(new TcpRendezvous("127.0.0.1", port), 4, id, Duration.ofSeconds(20), -1);
        for (byte[] b : got) {
            assertEquals(java.util.Arrays.toString(id), java.util.Arrays.toString(b));
        }
    }

    @Test
    void tcpRendezvousNamesTheRankThatNeverCame() throws Exception {
        int port = freePort();
        CommException e = assertThrows(CommException.class,
                () -> shareOnThreads(new TcpRendezvous("127.0.0.1", port), 3, new byte[128], Duration.ofMillis(800), 2));
        assertTrue(e.getMessage().contains("ranks [2] did not connect"), e.getMessage());
    }

    @Test
    void tcpRendezvousRejectsADifferentNumberOfRanks() throws Exception {
        int port = freePort();
        TcpRendezvous rv = new TcpRendezvous("127.0.0.1", port);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<byte[]> root = pool.submit(() -> rv.share(0, 2, new byte[128], Duration.ofSeconds(5)));
            Future<byte[]> other = pool.submit(() -> rv.share(1, 3, null, Duration.ofSeconds(5)));
            Exception e1 = assertThrows(Exception.class, root::get);
            Exception e2 = assertThrows(Exception.class, other::get);
            assertTrue(e1.getMessage().contains("expects 3 ranks but rank 0 expects 2"), e1.getMessage());
            assertTrue(e2.getMessage().contains("refused"), e2.getMessage());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void fileRendezvousSharesAndCleansUp(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("id");
        byte[] id = new byte[128];
        id[5] = 42;
        List<byte[]> got = shareOnThreads(Rendezvous.parse("file://" + f), 3, id, Duration.ofSeconds(20), -1);
        for (byte[] b : got) {
            assertEquals(42, b[5]);
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "rank 0 removes the id file and the markers");
        }
    }

    @Test
    void fileRendezvousRefusesAFileLeftByAnEarlierJobAndNamesMissingRanks(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("id");
        Files.writeString(f, "stale");
        CommException e = assertThrows(CommException.class, () -> new FileRendezvous(f).share(0, 2, new byte[128], Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("already exists") && e.getMessage().contains("delete it"), e.getMessage());
        Files.delete(f);
        CommException missing = assertThrows(CommException.class,
                () -> shareOnThreads(new FileRendezvous(f), 3, new byte[128], Duration.ofMillis(600), 1));
        assertTrue(missing.getMessage().contains("ranks [1]"), missing.getMessage());
    }

    /** Runs share() for ranks 0..size-1 on threads (leaving out {@code absent}); rethrows rank 0's error first. */
    private static List<byte[]> shareOnThreads(Rendezvous rv, int size, byte[] id, Duration timeout, int absent) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<byte[]>> fs = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                final int rank = r;
                if (r != absent) {
                    fs.add(pool.submit(() -> rv.share(rank, size, rank == 0 ? id : null, timeout)));
                }
            }
            List<byte[]> out = new ArrayList<>();
            for (Future<byte[]> f : fs) {
                try {
                    out.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof CommException c) {
                        throw c;
                    }
                    throw e;
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
