package org.mpi2nccl.comm.ring;

import static org.junit.jupiter.api.Assertions.assertThrows;

import org.mpi2nccl.comm.CollectiveMismatchException;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;
import org.mpi2nccl.comm.shm.SameHost;
import org.mpi2nccl.comm.shm.ShmTransport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The all-reduce over shared memory ({@link ShmAllReduce}), with ranks as threads that map each other's boards like
 * processes would: odd sizes on both of its paths (one exchange; reduce-scatter + all-gather) and over one block
 * (several blocks), every type and reduction, in place and out of place, buffers at different offsets, every rank's
 * result bit-identical to the sum taken in rank order, a missing rank named, a mismatched call reported.
 */
class ShmAllReduceTest {
    /** Elements of a float32 block (1 MiB): sizes around it cross block boundaries. */
    private static final int SLOT_FLOATS = org.mpi2nccl.comm.shm.ShmBoard.BLOCK_BYTES / 4;

    @ParameterizedTest(name = "{0} ranks")
    @CsvSource({"1", "2", "3", "4"})
    void float32SumsOfOddSizesMatchTheRankOrderSum(int ranks) {
        int[] sizes = {0, 1, 7, 1023, 4097, ShmAllReduce.HALVES_FROM_BYTES / 4 - 1, ShmAllReduce.HALVES_FROM_BYTES / 4 + 3,
                SLOT_FLOATS - 1, SLOT_FLOATS + 3, 2 * SLOT_FLOATS + 5};
        List<List<String>> bad = onShm(ranks, comm -> {
            List<String> wrong = new ArrayList<>();
            for (int n : sizes) {
                float[] expected = new float[n];
                for (int q = 0; q < ranks; q++) {
                    float[] v = values(q, n);
                    for (int i = 0; i < n; i++) {
                        expected[i] += v[i];                        // rank order: 0, 1, ..., p-1
                    }
                }
                float[] mine = values(comm.rank(), n);
                float[] sent = mine.clone();
                float[] out = new float[n];
                comm.allReduce(HostBuffer.of(mine), HostBuffer.of(out), Reduction.SUM);
                check(wrong, "out of place, " + n, expected, out);
                check(wrong, "out of place leaves send alone, " + n, sent, mine);
                comm.allReduce(HostBuffer.of(mine), Reduction.SUM);
                check(wrong, "in place, " + n, expected, mine);
            }
            return wrong;
        });
        for (int r = 0; r < ranks; r++) {
            assertTrue(bad.get(r).isEmpty(), "rank " + r + ": " + bad.get(r));
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @CsvSource({"2", "3", "4"})
    void everyTypeAndReductionAtOffsets(int ranks) {
        int n = 300_001;                                             // over one int8 slot: two blocks
        List<List<String>> bad = onShm(ranks, comm -> {
            List<String> wrong = new ArrayList<>();
            // send at offset 3 of its array, recv at 5; then both at 4 (two ranks add into recv directly)
            for (int[] at : new int[][] {{3, 5}, {4, 4}}) {
                for (DataType t : DataType.values()) {
                    for (Reduction op : Reduction.values()) {
                        HostBuffer send = HostBuffer.allocate(t, n + at[0]).slice(at[0], n);
                        HostBuffer recv = HostBuffer.allocate(t, n + at[1]).slice(at[1], n);
                        HostBuffer expected = HostBuffer.allocate(t, n);
                        for (int q = 0; q < ranks; q++) {
                            HostBuffer v = HostBuffer.allocate(t, n);
                            fill(v, q);
                            if (q == 0) {
                                v.copyTo(expected);
                            } else {
                                HostReduce.apply(op, expected, v, expected);
                            }
                            if (q == comm.rank()) {
                                v.copyTo(send);
                            }
                        }
                        if (op == Reduction.AVG) {
                            HostReduce.divide(expected, ranks);
                        }
                        comm.allReduce(send, recv, op);
                        for (int i = 0; i < n; i += 997) {
                            if (recv.getDouble(i) != expected.getDouble(i)) {
                                wrong.add(t + " " + op + " offsets " + at[0] + "/" + at[1] + " at " + i + ": "
                                        + recv.getDouble(i) + " != " + expected.getDouble(i));
                                break;
                            }
                        }
                    }
                }
            }
            return wrong;
        });
        for (int r = 0; r < ranks; r++) {
            assertTrue(bad.get(r).isEmpty(), "rank " + r + ": " + bad.get(r));
        }
    }

    /**
     * Back-to-back calls of three blocks each, new values every call: the board's two slots are written again while
     * peers may still be reading the block before, so a slot reused too early shows as a wrong sum.
     */
    @ParameterizedTest(name = "{0} ranks")
    @CsvSource({"2", "3"})
    void repeatedMultiBlockCallsReuseTheSlotsSafely(int ranks) {
        int n = 3 * SLOT_FLOATS + 11;
        List<List<String>> bad = onShm(ranks, comm -> {
            List<String> wrong = new ArrayList<>();
            for (int call = 0; call < 12; call++) {
                float[] expected = new float[n];
                for (int q = 0; q < ranks; q++) {
                    float[] v = values(q + call, n);
                    for (int i = 0; i < n; i++) {
                        expected[i] += v[i];
                    }
                }
                float[] mine = values(comm.rank() + call, n);
                if (call % 2 == 0) {
                    float[] out = new float[n];
                    comm.allReduce(HostBuffer.of(mine), HostBuffer.of(out), Reduction.SUM);
                    check(wrong, "call " + call + " out of place", expected, out);
                } else {
                    comm.allReduce(HostBuffer.of(mine), Reduction.SUM);
                    check(wrong, "call " + call + " in place", expected, mine);
                }
            }
            return wrong;
        });
        for (int r = 0; r < ranks; r++) {
            assertTrue(bad.get(r).isEmpty(), "rank " + r + ": " + bad.get(r));
        }
    }

    @Test
    void aMissingRankIsATimeoutNamingIt() {
        List<String> out = ThreadRanks.run(2, b -> b.timeout(Duration.ofSeconds(30)), boot -> {
            try (ShmTransport shm = ShmTransport.open(boot)) {
                RingCommunicator c = RingCommunicator.over(shm).algorithm(RingCommunicator.Algorithm.SHM).verifyCalls(false).timeout(Duration.ofMillis(300)).build();
                String failure = null;
                if (c.rank() == 0) {
                    try {
                        c.allReduce(HostBuffer.of(new float[10]), Reduction.SUM);
                    } catch (CommException e) {
                        failure = e.getClass().getSimpleName() + ": " + e.getMessage();
                    }
                }
                boot.barrier();                                      // rank 1 keeps its board open until rank 0 gave up
                return failure;
            }
        });
        String failure = out.get(0);
        assertTrue(failure != null && failure.startsWith("CollectiveTimeoutException")
                && failure.contains("rank 1's post 1 (the all-reduce's block) on the shared-memory board"), failure);
        assertEquals(null, out.get(1));
    }

    @Test
    void anAllReduceMeetingAnotherCollectiveIsAMismatchOnBothRanks() {
        List<Object> out = ThreadRanks.runAll(2, b -> b.timeout(Duration.ofSeconds(30)), boot -> {
            try (ShmTransport shm = ShmTransport.open(boot)) {
                RingCommunicator c = RingCommunicator.over(shm).algorithm(RingCommunicator.Algorithm.SHM).timeout(Duration.ofSeconds(10)).build();
                if (c.rank() == 0) {
                    c.allReduce(HostBuffer.of(new float[300_000]), Reduction.SUM);
                } else {
                    c.broadcast(HostBuffer.of(new float[300_000]), 0);
                }
                return null;
            }
        });
        for (int r = 0; r < 2; r++) {
            Object e = out.get(r);
            assertTrue(e instanceof CollectiveMismatchException && ((Exception) e).getMessage().contains("allReduce #1")
                    && ((Exception) e).getMessage().contains("broadcast #1"), "rank " + r + ": " + e);
        }
    }

    @Test
    void threadRanksShareOneHost() {
        List<Boolean> one = ThreadRanks.run(3, b -> b.timeout(Duration.ofSeconds(30)), SameHost::all);
        assertEquals(List.of(true, true, true), one);
    }

    @Test
    void eachCommunicatorIsLabelledByWhatItRuns() {
        List<List<String>> kinds = ThreadRanks.run(2, b -> b.timeout(Duration.ofSeconds(30)), boot -> {
            try (ShmTransport shm = ShmTransport.open(boot)) {
                RingCommunicator ringOverShm = RingCommunicator.over(shm).timeout(Duration.ofSeconds(30)).build();
                RingCommunicator readsBuffers = RingCommunicator.over(shm).algorithm(RingCommunicator.Algorithm.SHM)
                        .timeout(Duration.ofSeconds(30)).build();
                float[] x = {boot.rank() + 1};
                readsBuffers.allReduce(HostBuffer.of(x), Reduction.SUM);
                RingCommunicator half = readsBuffers.split(0, boot.rank());
                return List.of(ringOverShm.kind(), readsBuffers.kind(), half.kind(), String.valueOf(x[0]));
            }
        });
        assertEquals(List.of("ring", "shm", "ring", "3.0"), kinds.get(0), "over shared memory the ring stays a ring;"
                + " only Algorithm.SHM reads the others' buffers, and a split of it (a subset of the board) runs the ring");
    }

    @Test
    void theSharedMemoryAllReduceNeedsASharedMemoryTransport() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RingCommunicator
                .over(org.mpi2nccl.comm.ThreadTransport.group(2).get(0)).algorithm(RingCommunicator.Algorithm.SHM).build());
        assertTrue(e.getMessage().contains("needs a ShmTransport") && e.getMessage().contains("Algorithm.RING"),
                e.getMessage());
    }

    private interface RankBody {
        List<String> run(RingCommunicator comm);
    }

    /** Runs {@code body} on every rank with a ring communicator over shared memory. */
    private static List<List<String>> onShm(int ranks, RankBody body) {
        return ThreadRanks.run(ranks, b -> b.timeout(Duration.ofSeconds(30)), boot -> {
            try (ShmTransport shm = ShmTransport.open(boot)) {
                return body.run(RingCommunicator.over(shm).algorithm(RingCommunicator.Algorithm.SHM).timeout(Duration.ofSeconds(30)).build());
            }
        });
    }

    /** Rank q's float32 data: fractions whose sums round, so that the order of the additions shows. */
    private static float[] values(int q, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) Math.sin(i * 0.37 + q) * (q + 1) * 1000.1f;
        }
        return v;
    }

    private static void fill(HostBuffer b, int q) {
        for (int i = 0; i < b.length(); i++) {
            int v = (i % 5) + q + 1;
            switch (b.dataType()) {
                case INT8 -> ((byte[]) b.array())[b.offset() + i] = (byte) v;
                case INT32 -> ((int[]) b.array())[b.offset() + i] = v;
                case INT64 -> ((long[]) b.array())[b.offset() + i] = v;
                case FLOAT32 -> ((float[]) b.array())[b.offset() + i] = v * 0.5f;
                case FLOAT64 -> ((double[]) b.array())[b.offset() + i] = v * 0.25;
            }
        }
    }

    private static void check(List<String> wrong, String what, float[] expected, float[] got) {
        try {
            assertArrayEquals(expected, got);
        } catch (AssertionError e) {
            wrong.add(what + ": " + e.getMessage());
        }
    }
}
