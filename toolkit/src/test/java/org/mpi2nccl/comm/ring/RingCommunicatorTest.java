package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.CommunicatorChecks;

import org.mpi2nccl.comm.CollectiveMismatchException;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

public class RingCommunicatorTest {

    private static final Consumer<RingCommunicator.Builder> SMALL_CHUNKS = b -> b.chunkBytes(64).window(3);

    /** Rank r's input: deterministic pseudo-random ints (exact under any summation order). */
    public static int[] input(int rank, int n) {
        return CommunicatorChecks.input(rank, n);
    }

    public static int[] reference(Reduction op, int size, int n) {
        return CommunicatorChecks.reference(op, size, n);
    }

    @ParameterizedTest(name = "{0} ranks, {1} ints, {2}, {3}")
    @CsvSource({
        "1, 5, SUM, RING", "2, 1, SUM, RING", "2, 1001, AVG, RING", "3, 7, MAX, RING", "3, 1000, MIN, RING",
        "4, 3, SUM, RING", "4, 4099, PROD, RING", "4, 1000, AVG, NAIVE", "3, 17, MAX, NAIVE", "2, 0, SUM, RING"})
    void allReduceMatchesReferenceExactlyOnIntegers(int size, int n, Reduction op, RingCommunicator.Algorithm alg) {
        int[] expected = reference(op, size, n);
        List<int[][]> results = ThreadRanks.run(size, b -> b.chunkBytes(64).window(3).algorithm(alg), c -> {
            int[] inPlace = input(c.rank(), n);
            c.allReduce(HostBuffer.of(inPlace), op);
            int[] send = input(c.rank(), n);
            int[] recv = new int[n];
            c.allReduce(HostBuffer.of(send), HostBuffer.of(recv), op);
            assertArrayEquals(input(c.rank(), n), send, "out-of-place must not modify send");
            return new int[][] {inPlace, recv};
        });
        for (int r = 0; r < size; r++) {
            assertArrayEquals(expected, results.get(r)[0], "in place, rank " + r);
            assertArrayEquals(expected, results.get(r)[1], "out of place, rank " + r);
        }
    }

    @Test
    void allReduceOnFloatsIsWithinRoundingOfTheSequentialSum() {
        int n = 10_000, size = 3;
        List<float[]> results = ThreadRanks.run(size, b -> b.chunkBytes(1024), c -> {
            float[] x = new float[n];
            Random rnd = new Random(c.rank());
            for (int i = 0; i < n; i++) {
                x[i] = rnd.nextFloat() - 0.5f;
            }
            c.allReduce(HostBuffer.of(x), Reduction.SUM);
            return x;
        });
        float[][] in = new float[size][n];
        for (int r = 0; r < size; r++) {
            Random rnd = new Random(r);
            for (int i = 0; i < n; i++) {
                in[r][i] = rnd.nextFloat() - 0.5f;
            }
        }
        for (int i = 0; i < n; i++) {
            double ref = 0;
            for (int r = 0; r < size; r++) {
                ref += in[r][i];
            }
            for (int r = 0; r < size; r++) {
                assertEquals(ref, results.get(r)[i], 1e-6, "element " + i + " rank " + r);
            }
            // All ranks must agree bit for bit (the same reduction order reaches everyone).
            assertEquals(Float.floatToIntBits(results.get(0)[i]), Float.floatToIntBits(results.get(size - 1)[i]));
        }
    }

    @ParameterizedTest(name = "{0} ranks, {1} doubles, root {2}")
    @CsvSource({"1, 4, 0", "2, 1000, 1", "3, 33, 2", "4, 5, 1", "4, 1000, 3"})
    void broadcastAndReduceFromEveryRoot(int size, int n, int root) {
        List<double[][]> results = ThreadRanks.run(size, SMALL_CHUNKS, c -> {
            double[] b = new double[n];
            if (c.rank() == root) {
                for (int i = 0; i < n; i++) {
                    b[i] = i * 0.5 + root;
                }
            }
            c.broadcast(HostBuffer.of(b), root);
            double[] mine = new double[n];
            for (int i = 0; i < n; i++) {
                mine[i] = c.rank() + i;
            }
            double[] red = new double[n];
            c.reduce(HostBuffer.of(mine), c.rank() == root ? HostBuffer.of(red) : null, Reduction.SUM, root);
            return new double[][] {b, red};
        });
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < n; i++) {
                assertEquals(i * 0.5 + root, results.get(r)[0][i], "broadcast rank " + r + " element " + i);
            }
        }
        for (int i = 0; i < n; i++) {
            double expect = (double) size * i + size * (size - 1) / 2.0;
            assertEquals(expect, results.get(root)[1][i], "reduce element " + i);
        }
    }

    @ParameterizedTest(name = "{0} ranks, {1} longs per rank")
    @CsvSource({"1, 3", "2, 1", "3, 100", "4, 7", "4, 0"})
    void allGatherAndReduceScatterInAndOutOfPlace(int size, int n) {
        List<long[][]> results = ThreadRanks.run(size, SMALL_CHUNKS, c -> {
            int p = c.size(), r = c.rank();
            long[] mine = new long[n];
            for (int i = 0; i < n; i++) {
                mine[i] = 1000L * r + i;
            }
            long[] gathered = new long[p * n];
            c.allGather(HostBuffer.of(mine), HostBuffer.of(gathered));
            long[] inPlace = new long[p * n];
            System.arraycopy(mine, 0, inPlace, r * n, n);
            HostBuffer whole = HostBuffer.of(inPlace);
            c.allGather(whole.slice((long) r * n, n), whole);

            long[] contrib = new long[p * n];
            for (int i = 0; i < p * n; i++) {
                contrib[i] = r + 10L * i;
            }
            long[] block = new long[n];
            c.reduceScatter(HostBuffer.of(contrib.clone()), HostBuffer.of(block), Reduction.SUM);
            HostBuffer rs = HostBuffer.of(contrib);
            c.reduceScatter(rs, rs.slice((long) r * n, n), Reduction.MAX);
            long[] rsInPlace = java.util.Arrays.copyOfRange(contrib, r * n, r * n + n);
            return new long[][] {gathered, inPlace, block, rsInPlace};
        });
        for (int r = 0; r < size; r++) {
            long[][] res = results.get(r);
            for (int q = 0; q < size; q++) {
                for (int i = 0; i < n; i++) {
                    assertEquals(1000L * q + i, res[0][q * n + i], "allGather rank " + r);
                    assertEquals(1000L * q + i, res[1][q * n + i], "in-place allGather rank " + r);
                }
            }
            for (int i = 0; i < n; i++) {
                long idx = (long) r * n + i;
                assertEquals(size * 10L * idx + (long) size * (size - 1) / 2, res[2][i], "reduceScatter sum rank " + r);
                assertEquals(size - 1 + 10L * idx, res[3][i], "in-place reduceScatter max rank " + r);
            }
        }
    }

    @Test
    void sendRecvAroundTheRingAndBarrier() {
        List<float[]> got = ThreadRanks.run(4, SMALL_CHUNKS, c -> {
            int right = (c.rank() + 1) % 4, left = (c.rank() + 3) % 4;
            float[] out = {c.rank(), c.rank() * 2f, 7f};
            float[] in = new float[3];
            if (c.rank() % 2 == 0) {
                c.send(HostBuffer.of(out), right);
                c.recv(HostBuffer.of(in), left);
            } else {
                c.recv(HostBuffer.of(in), left);
                c.send(HostBuffer.of(out), right);
            }
            c.barrier();
            c.barrier();
            return in;
        });
        for (int r = 0; r < 4; r++) {
            int left = (r + 3) % 4;
            assertArrayEquals(new float[] {left, left * 2f, 7f}, got.get(r));
        }
    }

    @Test
    void unevenPointToPointTrafficDoesNotDesyncTheCollectives() {
        List<Integer> got = ThreadRanks.run(3, b -> { }, c -> {
            int[] x = {c.rank() + 1};
            if (c.rank() == 0) {                     // rank 0 sends to both others; each of them receives once
                c.send(HostBuffer.of(new int[] {7}), 1);
                c.send(HostBuffer.of(new int[] {8}), 2);
            } else {
                c.recv(HostBuffer.of(new int[1]), 0);
            }
            c.allReduce(HostBuffer.of(x), Reduction.SUM);
            return x[0];
        });
        assertEquals(List.of(6, 6, 6), got);
    }

    @Test
    void splitMakesIndependentSubCommunicatorsAndNoColorGetsNull() {
        List<Object[]> got = ThreadRanks.run(4, SMALL_CHUNKS, c -> {
            // even ranks and odd ranks; key reverses the order inside each group
            RingCommunicator sub = c.split(c.rank() % 2, -c.rank());
            int[] x = {c.rank()};
            sub.allReduce(HostBuffer.of(x), Reduction.SUM);
            // world still works after the split, and interleaves with the sub-communicator
            int[] w = {1};
            c.allReduce(HostBuffer.of(w), Reduction.SUM);
            RingCommunicator only0 = c.split(c.rank() == 0 ? 5 : Communicator.NO_COLOR, 0);
            RingCommunicator subsub = sub.split(0, 0);
            int[] y = {10};
            subsub.allReduce(HostBuffer.of(y), Reduction.SUM);
            return new Object[] {sub.rank(), sub.size(), x[0], w[0], only0 == null ? -1 : only0.size(), y[0]};
        });
        for (int r = 0; r < 4; r++) {
            Object[] g = got.get(r);
            int expectedSubRank = r < 2 ? 1 : 0;       // key = -rank: higher rank first
            assertEquals(expectedSubRank, g[0], "sub rank of " + r);
            assertEquals(2, g[1]);
            assertEquals(r % 2 == 0 ? 0 + 2 : 1 + 3, g[2], "sub allReduce on rank " + r);
            assertEquals(4, g[3]);
            assertEquals(r == 0 ? 1 : -1, g[4]);
            assertEquals(20, g[5]);
        }
    }

    @Test
    void mismatchedCollectivesRaiseAnErrorNamingBothSides() {
        List<Object> out = ThreadRanks.runAll(3, b -> b.timeout(Duration.ofSeconds(20)), c -> {
            float[] x = new float[8];
            if (c.rank() == 1) {
                c.broadcast(HostBuffer.of(x), 0);
            } else {
                c.allReduce(HostBuffer.of(x), Reduction.SUM);
            }
            return null;
        });
        for (int r = 0; r < 3; r++) {
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, out.get(r), "rank " + r);
            assertTrue(e.getMessage().contains("broadcast #1") && e.getMessage().contains("allReduce #1"), e.getMessage());
        }
    }

    @Test
    void mismatchedSizesAreCaughtBeforeAnyDataMoves() {
        List<Object> out = ThreadRanks.runAll(2, b -> b.timeout(Duration.ofSeconds(20)), c -> {
            c.allReduce(HostBuffer.of(new float[c.rank() == 0 ? 10 : 12]), Reduction.SUM);
            return null;
        });
        CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, out.get(0));
        assertTrue(e.getMessage().contains("10 x float32") && e.getMessage().contains("12 x float32")
                && e.getMessage().contains("element counts"), e.getMessage());
    }

    @Test
    void aRankThatSkipsACollectiveTurnsIntoATimeoutNamingTheCall() {
        long t0 = System.nanoTime();
        List<Object> out = ThreadRanks.runAll(3, b -> b.timeout(Duration.ofMillis(400)), c -> {
            int[] x = {1};
            c.allReduce(HostBuffer.of(x), Reduction.SUM);
            if (c.rank() != 2) {
                c.allReduce(HostBuffer.of(x), Reduction.SUM);       // rank 2 never makes call #2
            }
            return x[0];
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertEquals(3, ((Integer) out.get(2)).intValue());
        for (int r = 0; r < 2; r++) {
            CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, out.get(r), "rank " + r);
            assertTrue(e.getMessage().contains("allReduce #2") && e.getMessage().contains("rank 2"), e.getMessage());
        }
        assertTrue(seconds < 10, "took " + seconds + " s");
    }

    @Test
    void aFailedCommunicatorRefusesFurtherCalls() {
        List<Object> out = ThreadRanks.runAll(2, b -> b.timeout(Duration.ofMillis(300)), c -> {
            if (c.rank() == 0) {
                try {
                    c.barrier();                      // rank 1 never comes
                } catch (CollectiveTimeoutException expected) {
                    assertTrue(c.isBroken());
                }
                CommException again = assertThrows(CommException.class, () -> c.allReduce(HostBuffer.of(new int[1]), Reduction.SUM));
                return again.getMessage();
            }
            return "idle";
        });
        assertTrue(((String) out.get(0)).contains("failed earlier"), (String) out.get(0));
    }

    @Test
    void badArgumentsGetMessagesThatSayWhatToFix() {
        List<RingCommunicator> cs = RingCommunicator.threads(2, b -> { });
        RingCommunicator c = cs.get(0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.allReduce(HostBuffer.of(new float[3]), HostBuffer.of(new float[4]), Reduction.SUM));
        assertTrue(e.getMessage().contains("3 elements") && e.getMessage().contains("4"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> c.broadcast(HostBuffer.of(new float[3]), 2));
        assertTrue(e.getMessage().contains("root 2"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> c.allGather(HostBuffer.of(new int[3]), HostBuffer.of(new int[5])));
        assertTrue(e.getMessage().contains("2 x 3 = 6"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> c.allReduce(HostBuffer.of(new int[3]), HostBuffer.of(new float[3]), Reduction.SUM));
        assertTrue(e.getMessage().contains("int32") && e.getMessage().contains("float32"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> c.split(-5, 0));
        assertTrue(e.getMessage().contains("NO_COLOR"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> c.send(HostBuffer.of(new int[1]), 0));
        assertTrue(e.getMessage().contains("this rank"), e.getMessage());
    }

    @Test
    void traceShowsEachSegmentTravellingAroundTheRing() {
        int p = 4;
        List<RingTrace> traces = ThreadRanks.run(p, b -> b.observer(new RingTrace()).chunkBytes(16), c -> {
            c.allReduce(HostBuffer.of(new float[40]), Reduction.SUM);
            return (RingTrace) c.observer();
        });
        RingTrace all = RingTrace.merge(traces);
        int[][] grid = all.sendGrid(1, p);
        assertEquals(2 * (p - 1), grid[0].length, "reduce-scatter + all-gather steps");
        for (int r = 0; r < p; r++) {
            for (int s = 0; s < p - 1; s++) {
                assertEquals(Math.floorMod(r - s - 1, p), grid[r][s], "reduce-scatter rank " + r + " step " + s);
                assertEquals(Math.floorMod(r - s, p), grid[r][p - 1 + s], "all-gather rank " + r + " step " + s);
            }
        }
        // 10 floats per segment in chunks of 4 floats: 3 messages per reduce-scatter step per rank.
        long rsSends = all.events().stream().filter(e -> e.phase().equals("reduce-scatter") && e.direction().equals("send")).count();
        assertEquals((long) p * (p - 1) * 3, rsSends);
        assertEquals(all.events().size(), all.table().rowCount());
    }
}
