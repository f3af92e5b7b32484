package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.CommunicatorChecks;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;
import org.mpi2nccl.comm.ring.RingCommunicator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The shared-memory transport under the ring, with ranks as threads (each maps the others' files like separate
 * processes would): every collective, messages larger than the slots, zero-length messages, and no files left.
 */
class ShmTransportTest {

    @ParameterizedTest(name = "{0} ranks, {1} slots of {2} bytes")
    @CsvSource({"2, 8, 262144", "3, 2, 512", "4, 4, 1024"})
    void everyCollectiveIsCorrectOverSharedMemory(int ranks, int slots, int slotBytes) {
        java.util.Set<Path> folders = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<List<String>> failures = ThreadRanks.run(ranks, b -> b.timeout(Duration.ofSeconds(30)), boot -> {
            try (ShmTransport shm = ShmTransport.open(boot, slots, slotBytes)) {
                folders.add(shm.folder());
                RingCommunicator ring = RingCommunicator.over(shm).chunkBytes(96).window(3)
                        .timeout(Duration.ofSeconds(30)).build();
                List<String> bad = CommunicatorChecks.runAll(ring);
                // one large message through a few small slots, and an empty one
                float[] big = new float[100_000];
                if (ring.rank() == 0) {
                    java.util.Arrays.fill(big, 2.5f);
                }
                ring.broadcast(HostBuffer.of(big), 0);
                if (big[99_999] != 2.5f) {
                    bad.add("large broadcast");
                }
                ring.allReduce(HostBuffer.of(new float[0]), Reduction.SUM);
                return bad;
            }
        });
        for (int r = 0; r < ranks; r++) {
            assertTrue(failures.get(r).isEmpty(), "rank " + r + ": " + failures.get(r));
        }
        // this run's folder only: other test runs on the machine may have transports open at the same time
        assertEquals(1, folders.size(), "every rank maps the files of one folder: " + folders);
        for (Path f : folders) {
            assertTrue(f.getFileName().toString().startsWith("shm-"), f.toString());
            assertTrue(!Files.exists(f), "files of the transport are deleted once mapped: " + f + " is still there");
        }
    }

    @Test
    void outOfStepTransfersAreReportedNotHung() {
        List<Object> out = ThreadRanks.runAll(2, b -> b.timeout(Duration.ofSeconds(30)), boot -> {
            try (ShmTransport shm = ShmTransport.open(boot, 4, 64)) {
                Deadline d = Deadline.after(Duration.ofSeconds(5));
                CollectiveCall call = new CollectiveCall(Collective.SEND_RECV, 1, 4, DataType.INT32, null, 1);
                if (boot.rank() == 0) {
                    shm.await(d, call, shm.isend(HostBuffer.of(new int[4]), 1, 7));
                } else {
                    shm.await(d, call, shm.irecv(HostBuffer.of(new int[5]), 0, 7));
                }
                return null;
            }
        });
        CommException e = assertInstanceOf(CommException.class, out.get(1));
        assertTrue(e.getMessage().contains("16 bytes") && e.getMessage().contains("20 bytes"), e.getMessage());
    }
}
