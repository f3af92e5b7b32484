package org.mpi2nccl.parallel.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

/**
 * A {@link StepTimer} attached to the plain step on 2 CPU ranks: every step counted, one all-reduce
 * per bucket and step with its bytes, the phases' host time; and the phases add up to the total.
 */
class StepTimerTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);

    @Test
    void timesEveryStepOfThePlainStep() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("mlp", DATA, 24, 4, 3, 0.1f, 0.9f);
        List<String> ok = LocalRanks.run(2, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cpu(), c.rank());
                 DataParallel dp = new DataParallel(net, c, DataParallel.Options.defaults().bucketBytes(512));
                 StepTimer timer = StepTimer.attach(dp)) {
                assertTrue(dp.bucketCount() > 1, "several buckets: " + dp.bucketCount());
                EquivalenceCheck.train(s, dp);
                TimeBreakdown t = timer.times();
                assertEquals(4, t.steps(), t.toString());
                assertEquals(4L * dp.bucketCount(), t.collectives(), "one all-reduce per bucket and step");
                assertEquals(4L * dp.gradientBytes(), t.bytesReduced());
                for (Phase p : Phase.values()) assertTrue(t.nanos(p) > 0, p + ": " + t);
                assertEquals(t.forwardNanos() + t.backwardNanos() + t.commNanos() + t.optimizerNanos(), t.totalNanos());
                assertEquals(0, timer.times().minus(t).steps(), "read again without a step: nothing new");
                return "ok";
            }
        });
        assertEquals(List.of("ok", "ok"), ok);
    }
}
