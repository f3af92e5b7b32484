package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.GradientBuckets.Bucket;
import org.mpi2nccl.tensor.Device;

/**
 * A comm hook decides how each bucket travels, the step decides when: a hook that sums and divides by hand gives
 * what the plain all-reduce gives, is called once per bucket and step, and sees the tail grouped as it asks.
 */
class CommHookTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(96, new int[] {1, 6, 6}, 5, 11);
    private static final EquivalenceCheck.Setup SETUP = new EquivalenceCheck.Setup("mlp", DATA, 24, 4, 3, 0.1f, 0.9f);

    /** SUM, then the division by the number of ranks on this side: the average, the long way round. */
    private static final class SumThenDivide implements CommHook {
        final Communicator comm;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger tails = new AtomicInteger();
        boolean closed;

        SumThenDivide(Communicator comm) {
            this.comm = comm;
        }

        @Override public Communicator beside() { return comm; }

        @Override public void beforeAllReduce() {}

        @Override
        public boolean allReduce(Bucket b, Communicator via) {
            calls.incrementAndGet();
            via.allReduce(b.buffer(), Reduction.SUM);
            HostReduce.divide((HostBuffer) b.buffer(), via.size());
            return true;
        }

        @Override
        public void launchTail(int count, Runnable launchEach) {
            tails.incrementAndGet();
            launchEach.run();
        }

        @Override public void afterAllReduces() { comm.synchronize(); }

        @Override public void close() { closed = true; }
    }

    @Test
    void aHookThatSumsAndDividesTrainsAsThePlainAllReduceDoes() {
        float[] reference = EquivalenceCheck.singleRank(SETUP, Device.cpu());
        DataParallel.Options noOverlap = DataParallel.Options.defaults().bucketBytes(2048).overlap(false);
        List<int[]> counts = DataParallelThreadsTest.onRanks(2, c -> {
            SumThenDivide hook = new SumThenDivide(c);
            float[] got = EquivalenceCheck.dataParallel(SETUP, c, Device.cpu(), noOverlap, dp -> dp.registerCommHook(hook));
            double d = EquivalenceCheck.relativeDifference(got, reference);
            assertTrue(d < 2e-5, "rank " + c.rank() + ": relative difference to one rank with the whole batch " + d);
            assertTrue(hook.closed, "the step closes its hook");
            return new int[] {hook.calls.get(), hook.tails.get()};
        });
        int buckets = counts.get(0)[0] / SETUP.steps();
        assertTrue(buckets > 1, "the small buckets make several calls per step: " + buckets);
        assertEquals(SETUP.steps() * buckets, counts.get(0)[0], "one call per bucket and step");
        assertEquals(SETUP.steps(), counts.get(0)[1], "without overlap every bucket is in the tail, one tail per step");
    }

    @Test
    void aHookIsRegisteredBetweenStepsAndNeverNull() {
        DataParallelThreadsTest.onRanks(1, c -> {
            try (DataParallel dp = new DataParallel(EquivalenceCheck.model("mlp", DATA, Device.cpu(), 1), c)) {
                assertThrows(IllegalArgumentException.class, () -> dp.registerCommHook(null));
                dp.beginAveraging();
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> dp.registerCommHook(new AllReduceHook(c, dp.backend())));
                assertTrue(e.getMessage().contains("between steps"), e.getMessage());
                dp.endAveraging();
            }
            return null;
        });
    }
}
