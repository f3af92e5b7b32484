package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class SpeedupRankTest {
    @Test
    void theProbeLineLeadsWithTheLastEpochAndListsEveryProbeInTurn() {
        assertEquals("; its forward graph replayed alone: 179.3 us (after the warm-up: 172.0; after each epoch: 178.9 179.3)",
                SpeedupRank.aloneLine(172.0, List.of(178.9, 179.25)));
    }

    @Test
    void aWarmUpWithoutGraphsIsLeftOutAndNoGraphsAtAllSayNothing() {
        assertEquals("; its forward graph replayed alone: 171.0 us (after each epoch: 171.0)",
                SpeedupRank.aloneLine(Double.NaN, List.of(171.0)));
        assertEquals("", SpeedupRank.aloneLine(Double.NaN, List.of(Double.NaN)));
        assertEquals("", SpeedupRank.aloneLine(172.0, List.of()));
    }
}
