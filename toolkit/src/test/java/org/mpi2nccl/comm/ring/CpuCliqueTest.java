package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.Clique;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;
import org.mpi2nccl.comm.shm.ShmTransport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The CPU clique's bootstrap on thread ranks: NCCL's three steps (rank 0's id, broadcast over a thread ring,
 * initRank on every rank), then collectives on the result; and every wrong bootstrap ends in a clear error instead
 * of a hang.
 */
class CpuCliqueTest {
    private static final CpuClique CLIQUE = CpuClique.withTimeout(Duration.ofSeconds(20));

    /** The three steps on one rank; {@code world} carries the id as the notebook's MPJ broadcast does. */
    private static Communicator bootstrap(CpuClique clique, Communicator world) {
        byte[] id = world.rank() == 0 ? clique.uniqueId() : new byte[Clique.ID_BYTES];
        world.broadcast(HostBuffer.of(id), 0);
        return clique.initRank(world.size(), id, world.rank());
    }

    private static long folders() throws Exception {
        try (Stream<Path> s = Files.list(ShmTransport.base())) {
            return s.filter(p -> p.getFileName().toString().startsWith("clique-")).count();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void bootstrapThenAllReduceOnEveryRank(int size) throws Exception {
        long before = folders();
        List<float[]> sums = ThreadRanks.run(size, b -> b.timeout(Duration.ofSeconds(20)), world -> {
            try (Communicator c = bootstrap(CLIQUE, world)) {
                assertEquals(size, c.size());
                assertEquals(world.rank(), c.rank());
                float[] x = new float[100_000];                // several slots of shared memory per message
                Arrays.fill(x, world.rank() + 1);
                c.allReduce(HostBuffer.of(x), Reduction.SUM);
                c.barrier();
                return x;
            }
        });
        for (float[] x : sums) {
            assertEquals(size * (size + 1) / 2f, x[0]);
            assertEquals(size * (size + 1) / 2f, x[x.length - 1]);
        }
        assertEquals(before, folders(), "the rendezvous folder is gone once every rank joined");
    }

    @Test
    void aRankThatNeverJoinsTimesOutNamingIt() {
        // long enough for both joining ranks to arrive on a loaded 2-core machine, so only rank 2 is missing
        CpuClique quick = CpuClique.withTimeout(Duration.ofSeconds(3));
        byte[] id = quick.uniqueId();
        List<Object> out = ThreadRanks.runAll(2, b -> { }, world -> quick.initRank(3, id, world.rank()));
        for (Object o : out) {
            CollectiveTimeoutException e = (CollectiveTimeoutException) o;
            assertTrue(e.getMessage().contains("ranks [2], which never joined"), e.getMessage());
            assertTrue(e.getMessage().contains("SAME id"), e.getMessage());
        }
    }

    @Test
    void everyRankWithItsOwnIdWaitsAloneUntilTheTimeout() {
        CpuClique quick = CpuClique.withTimeout(Duration.ofMillis(800));
        List<Object> out = ThreadRanks.runAll(2, b -> { }, world -> quick.initRank(2, quick.uniqueId(), world.rank()));
        assertTrue(out.get(0).toString().contains("ranks [1], which never joined"), out.get(0).toString());
        assertTrue(out.get(1).toString().contains("ranks [0], which never joined"), out.get(1).toString());
    }

    @Test
    void badIdsAreClearErrorsAtOnce() {
        IllegalArgumentException zeros = assertThrows(IllegalArgumentException.class, () -> CLIQUE.initRank(2, new byte[128], 1));
        assertTrue(zeros.getMessage().contains("zero bytes") && zeros.getMessage().contains("broadcast"), zeros.getMessage());
        IllegalArgumentException shortId = assertThrows(IllegalArgumentException.class, () -> CLIQUE.initRank(2, new byte[16], 1));
        assertTrue(shortId.getMessage().contains("128 bytes"), shortId.getMessage());
        byte[] random = new byte[128];
        Arrays.fill(random, (byte) 7);
        IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class, () -> CLIQUE.initRank(2, random, 1));
        assertTrue(foreign.getMessage().contains("not a CPU clique id"), foreign.getMessage());
        IllegalArgumentException order = assertThrows(IllegalArgumentException.class, () -> CLIQUE.initRank(1, CLIQUE.uniqueId(), 2));
        assertTrue(order.getMessage().contains("initRank(size, id, rank)"), order.getMessage());
    }

    @Test
    void anIdServesOneCommunicator() {
        byte[] id = CLIQUE.uniqueId();
        CLIQUE.initRank(1, id, 0).close();
        CommException used = assertThrows(CommException.class, () -> CLIQUE.initRank(1, id, 0));
        assertTrue(used.getMessage().contains("does not exist") && used.getMessage().contains("fresh one"), used.getMessage());
    }

    @Test
    void twoRanksWithOneNumberOrDifferentSizesAreNamed() {
        CpuClique quick = CpuClique.withTimeout(Duration.ofMillis(800));
        byte[] twice = quick.uniqueId();
        List<Object> out = ThreadRanks.runAll(2, b -> { }, world -> quick.initRank(2, twice, 0));
        assertTrue(out.stream().anyMatch(o -> o.toString().contains("already joined this clique as rank 0")), out.toString());

        byte[] sizes = quick.uniqueId();
        out = ThreadRanks.runAll(2, b -> { }, world -> quick.initRank(2 + world.rank(), sizes, world.rank()));
        assertTrue(out.stream().anyMatch(o -> o.toString().contains("every rank must pass the same size")), out.toString());
    }

    @Test
    void theIdHasNcclsSizeAndDiffersEachTime() {
        byte[] a = CLIQUE.uniqueId();
        byte[] b = CLIQUE.uniqueId();
        assertEquals(Clique.ID_BYTES, a.length);
        assertFalse(Arrays.equals(a, b));
        assertEquals(8, CpuClique.shortName(a).length());
    }
}
