package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every rank's ring trace reaches every rank, and the merged trace draws the ring's steps. */
class TraceExchangeTest {
    @Test
    void theRanksTracesAreGatheredAndDrawTheRing() {
        int p = 4;
        List<RingTrace> traces = new java.util.ArrayList<>();
        for (int i = 0; i < p; i++) {
            traces.add(new RingTrace());
        }
        List<RingTrace> merged = ThreadRanks.run(p, b -> { }, c -> {
            RingCommunicator traced = RingCommunicator.over(c.transport()).observer(traces.get(c.rank())).build();
            float[] x = new float[8 * p];
            java.util.Arrays.fill(x, c.rank());
            traced.allReduce(HostBuffer.of(x), Reduction.SUM);
            return TraceExchange.allGather(traces.get(c.rank()), c);
        });
        for (RingTrace all : merged) {
            assertEquals(traces.stream().mapToInt(t -> t.events().size()).sum(), all.events().size());
            int[][] grid = all.sendGrid(all.lastSeq(), p);
            assertEquals(2 * (p - 1), grid[0].length, "reduce-scatter and all-gather: p-1 steps each");
            for (int r = 0; r < p; r++) {
                assertEquals(Math.floorMod(r - 1, p), grid[r][0], "rank " + r + " sends segment r-1 first");
                assertEquals(r, grid[r][p - 1], "rank " + r + " starts the all-gather with its finished segment");
            }
        }
        assertTrue(merged.get(0).lastSeq() > 0);
    }

    @Test
    void theNaiveAllReduceIsDrawnReduceFirst() {
        int p = 3;
        List<RingTrace> traces = List.of(new RingTrace(), new RingTrace(), new RingTrace());
        List<RingTrace> merged = ThreadRanks.run(p, b -> { }, c -> {
            RingCommunicator naive = RingCommunicator.over(c.transport()).algorithm(RingCommunicator.Algorithm.NAIVE)
                    .observer(traces.get(c.rank())).build();
            naive.allReduce(HostBuffer.of(new float[] {c.rank(), 1}), Reduction.SUM);
            return TraceExchange.allGather(traces.get(c.rank()), c);
        });
        RingTrace all = merged.get(0);
        int[][] grid = all.sendGrid(all.lastSeq(), p);
        // reduce: rank k sends its buffer at step k-1; broadcast afterwards: rank 0 sends to each peer
        assertEquals(List.of(-1, -1, 0, 0), java.util.Arrays.stream(grid[0]).boxed().toList());
        assertEquals(List.of(1, -1, -1, -1), java.util.Arrays.stream(grid[1]).boxed().toList());
        assertEquals(List.of(-1, 2, -1, -1), java.util.Arrays.stream(grid[2]).boxed().toList());
    }

    @Test
    void textRoundTripAndBadLines() {
        RingTrace.Event e = new RingTrace.Event(2, "allReduce", 7, "reduce-scatter", 1, 3, 0, "send", 3, 4096, 10, 250);
        assertEquals(List.of(e), TraceExchange.decode(TraceExchange.encode(List.of(e)) + "\0\0\0"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> TraceExchange.decode("1,2,3\n"));
        assertTrue(bad.getMessage().contains("12 fields"), bad.getMessage());
    }
}
