package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.data.RandomSampler;

class DistributedSamplerTest {

    @Test
    void fiftyThousandExamplesOnEightRanksAre6250EachDisjointAndComplete() {
        Set<Integer> seen = new HashSet<>();
        for (int r = 0; r < 8; r++) {
            DistributedSampler s = DistributedSampler.training(50_000, r, 8, 42);
            int[] idx = s.indices(3);
            assertEquals(6250, s.length());
            assertEquals(6250, idx.length);
            for (int i : idx) assertTrue(seen.add(i), "index " + i + " given to two ranks");
        }
        assertEquals(50_000, seen.size());
    }

    @Test
    void reshufflesPerEpochFromTheSharedSeedOnly() {
        DistributedSampler a = DistributedSampler.training(1000, 1, 4, 7);
        DistributedSampler b = DistributedSampler.training(1000, 1, 4, 7);
        assertArrayEquals(a.indices(0), b.indices(0), "same seed and epoch, same share (another JVM computes the same)");
        assertFalse(Arrays.equals(a.indices(0), a.indices(1)), "a new order each epoch");
        assertFalse(Arrays.equals(a.indices(0), DistributedSampler.training(1000, 1, 4, 8).indices(0)), "seed matters");
    }

    @Test
    void theRanksBatchesTogetherAreTheSingleRanksBatch() {
        int n = 96, ranks = 3, global = 12, perRank = global / ranks;
        int[] single = RandomSampler.permutation(n, 5, 2);
        int[][] shares = new int[ranks][];
        for (int r = 0; r < ranks; r++) shares[r] = DistributedSampler.training(n, r, ranks, 5).indices(2);
        for (int k = 0; k < n / global; k++) {
            Set<Integer> expected = new HashSet<>();
            for (int i = k * global; i < (k + 1) * global; i++) expected.add(single[i]);
            Set<Integer> got = new HashSet<>();
            for (int r = 0; r < ranks; r++) for (int i = k * perRank; i < (k + 1) * perRank; i++) got.add(shares[r][i]);
            assertEquals(expected, got, "batch " + k);
        }
    }

    @Test
    void unevenTailsAreHandledTheSameWayOnEveryRank() {
        int n = 10, ranks = 4;
        for (DistributedSampler.Tail tail : DistributedSampler.Tail.values()) {
            int total = 0;
            Set<Integer> seen = new HashSet<>();
            int[] lengths = new int[ranks];
            for (int r = 0; r < ranks; r++) {
                DistributedSampler s = new DistributedSampler(n, r, ranks, 3, true, tail);
                int[] idx = s.indices(0);
                lengths[r] = idx.length;
                assertEquals(s.length(), idx.length);
                total += idx.length;
                for (int i : idx) {
                    assertTrue(i >= 0 && i < n);
                    seen.add(i);
                }
            }
            switch (tail) {
                case PAD -> {
                    assertArrayEquals(new int[] {3, 3, 3, 3}, lengths, "ceil(10/4) each");
                    assertEquals(10, seen.size(), "every example visited");
                    assertEquals(12, total, "two padded");
                }
                case DROP -> {
                    assertArrayEquals(new int[] {2, 2, 2, 2}, lengths, "floor(10/4) each");
                    assertEquals(8, seen.size(), "no duplicates, two dropped");
                }
                case UNEVEN -> {
                    assertArrayEquals(new int[] {3, 3, 2, 2}, lengths);
                    assertEquals(10, seen.size());
                    assertEquals(10, total);
                }
            }
        }
    }

    @Test
    void evaluationSharesAreInOrderAndCoverEverything() {
        int[] all = new int[0];
        for (int r = 0; r < 3; r++) {
            int[] idx = DistributedSampler.evaluation(7, r, 3).indices(5);
            int[] merged = Arrays.copyOf(all, all.length + idx.length);
            System.arraycopy(idx, 0, merged, all.length, idx.length);
            all = merged;
        }
        Arrays.sort(all);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6}, all);
    }

    @Test
    void badInputIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DistributedSampler.training(3, 0, 4, 1));
        assertTrue(e.getMessage().contains("empty shard"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DistributedSampler.training(10, 4, 4, 1));
        assertThrows(IllegalArgumentException.class, () -> DistributedSampler.training(10, 0, 0, 1));
        assertNotEquals(0, DistributedSampler.evaluation(3, 3, 4).ranks());
        assertEquals(0, DistributedSampler.evaluation(3, 3, 4).length(), "evaluation may leave a rank without examples");
    }

    @Test
    void batchAndGpuChecks() {
        assertEquals(16, DataChecks.perRankBatch(64, 4));
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class, () -> DataChecks.perRankBatch(2, 4));
        assertTrue(small.getMessage().contains("smaller than the number of ranks"), small.getMessage());
        IllegalArgumentException uneven = assertThrows(IllegalArgumentException.class, () -> DataChecks.perRankBatch(10, 4));
        assertTrue(uneven.getMessage().contains("does not divide"), uneven.getMessage());
        IllegalArgumentException gpus = assertThrows(IllegalArgumentException.class, () -> DataChecks.ranksFitGpus(3, 2));
        assertTrue(gpus.getMessage().contains("one rank per GPU"), gpus.getMessage());
        DataChecks.ranksFitGpus(2, 2);
    }
}
