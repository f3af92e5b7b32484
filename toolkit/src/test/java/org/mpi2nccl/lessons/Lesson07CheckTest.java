package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;

/**
 * Lesson 07's check on thread ranks: the sharded step passes on 1 to 4 ranks, and each usual mistake gets the hint
 * that names it on every rank.
 */
class Lesson07CheckTest {
    @BeforeAll
    static void notStrict() {
        boolean strict = "1".equals(System.getenv(Check.STRICT_ENV));
        Assumptions.assumeFalse(strict, Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
    }

    private static <T> List<T> onRanks(int n, Function<Communicator, T> body) {
        return ThreadRanks.run(n, b -> { }, Duration.ofSeconds(120), c -> body.apply(c));
    }

    /**
     * The sharded step, right ("right") or with one usual mistake: "sum" (not divided), "gathered" (all-gathers the
     * gradients), "tail" (slices of n / size), "whole" (every rank updates every parameter), "no-gather", "global-index"
     * (velocity indexed by the parameter's number, which only rank 0's slice can do), "rank-1-doubles" (rank 1 alone
     * takes twice the step: the others gather a wrong slice from it).
     */
    private static Lesson07.FlatStep step(Communicator c, String mistake) {
        return (params, grads, velocity) -> {
            int n = params.length, size = c.size();
            if (mistake.equals("whole")) {
                float[] avg = grads.clone();
                c.allReduce(HostBuffer.of(avg), Reduction.AVG);
                for (int i = 0; i < n; i++) {
                    velocity[i] = Lesson07.MOMENTUM * velocity[i] + avg[i];
                    params[i] -= Lesson07.LR * velocity[i];
                }
                return;
            }
            int shard = mistake.equals("tail") ? n / size : velocity.length, start = c.rank() * shard;
            int at = mistake.equals("global-index") ? start : 0;      // velocity[start + i]: past the end on rank 1
            float[] padded = Arrays.copyOf(grads, shard * size), mine = new float[shard], slice = new float[shard];
            c.reduceScatter(HostBuffer.of(padded), HostBuffer.of(mine), mistake.equals("sum") ? Reduction.SUM : Reduction.AVG);
            for (int i = 0; i < shard && start + i < n; i++) {
                velocity[at + i] = Lesson07.MOMENTUM * velocity[at + i] + mine[i];
                float lr = mistake.equals("rank-1-doubles") && c.rank() == 1 ? 2 * Lesson07.LR : Lesson07.LR;
                slice[i] = params[start + i] - lr * velocity[at + i];
            }
            if (mistake.equals("no-gather")) {
                System.arraycopy(slice, 0, params, start, Math.min(shard, n - start));
                return;
            }
            float[] all = new float[shard * size];
            c.allGather(HostBuffer.of(mistake.equals("gathered") ? mine : slice), HostBuffer.of(all));
            System.arraycopy(all, 0, params, 0, Math.min(n, all.length));
        };
    }

    private static List<Check> check(int ranks, String mistake) throws Exception {
        return onRanks(ranks, c -> Lesson07.checkShardedStep(c.rank(), c.size(), c, step(c, mistake)));
    }

    private static void allSay(List<Check> checks, String words) {
        for (Check k : checks) assertTrue(!k.passed() && k.explanation().contains(words), "expected '" + words + "': " + k);
    }

    @Test
    void theModelHasAParameterCountThatTheRanksDoNotDivide() {
        assertEquals(1349, Lesson07.parameterCount());
        for (int size = 2; size <= 4; size++) assertTrue(1349 % size != 0);
        assertEquals(338, Lesson07.shardLength(1349, 4));
    }

    @Test
    void theRightAnswerPassesOnOneToFourRanks() throws Exception {
        for (int ranks = 1; ranks <= 4; ranks++) {
            for (Check k : check(ranks, "right")) {
                System.out.println(k);
                assertTrue(k.passed(), ranks + " ranks: " + k);
            }
        }
    }

    @Test
    void theUsualMistakesGetTheirHints() throws Exception {
        allSay(check(2, "sum"), "summed but not divided");
        allSay(check(3, "gathered"), "all-gathered the gradients instead of the parameters");
        allSay(check(3, "tail"), "miss the tail");
        allSay(check(2, "whole"), "update the whole model");
        allSay(check(3, "no-gather"), "All-gather the updated slices");
        // rank 0 gathered: it must not be told to all-gather, but that another rank's slice came wrong
        Check gathered = check(2, "rank-1-doubles").get(0);
        assertTrue(!gathered.passed() && gathered.explanation().contains("something was gathered")
                && !gathered.explanation().contains("never arrived"), gathered.toString());
        List<Check> oneRankFails = check(2, "global-index");        // rank 1 throws, rank 0 waits in the all-gather
        for (Check k : oneRankFails) System.out.println(k);
        allSay(oneRankFails, "velocity[i - start]");
        List<Check> blank = onRanks(2, c -> Lesson07.checkShardedStep(c.rank(), c.size(), c, (p, g, v) -> {
            throw new UnsupportedOperationException("write the sharded step");
        }));
        allSay(blank, "not written yet");
        for (Check k : check(2, "sum")) System.out.println(k);
    }

    @Test
    void stateAndCommunicationAreCountedPerRank() {
        assertEquals(1349 * 8L, Lesson07Costs.stateBytes(1349, 2, 4, false), "Adam, plain: two floats per parameter on every rank");
        assertEquals(338 * 8L, Lesson07Costs.stateBytes(1349, 2, 4, true), "Adam, sharded: two floats per parameter of the slice");
        assertEquals(2 * 3 * 338, Lesson07Costs.shardedFloats(1349, 4));
        assertEquals(1.5 * 1349, Lesson07Costs.allReduceFloats(1349, 4), 1e-9);
        assertTrue(Lesson07Costs.communication(1349, 4).contains("the same, up to the padding"));
        assertTrue(Lesson07Costs.saving("a model", Lesson07Costs.LARGE_MODEL, 8).contains("12.00 GB"));
        assertFalse(Lesson07Costs.stateChart("test", 1349, 1024, "KiB").getSeriesMap().isEmpty());
    }
}
