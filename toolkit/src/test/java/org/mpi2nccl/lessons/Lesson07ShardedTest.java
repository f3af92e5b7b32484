package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.NDArray;

/**
 * Lesson 07's sharded optimizer class on thread ranks: the notebook's answer passes with SGD and Adam at every rank
 * count; each typical wrong one fails with the hint of its first wrong place.
 */
class Lesson07ShardedTest {
    @BeforeAll
    static void notStrict() {
        Assumptions.assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), Check.STRICT_ENV + "=1: wrong answers throw");
    }

    /** What a student may get wrong, one switch each. */
    record Mistakes(boolean noBroadcast, boolean fullState, boolean sum, boolean noPadding) {
        static final Mistakes NONE = new Mistakes(false, false, false, false);
    }

    /** The notebook's answer, with the mistakes switched on. */
    static final class Sharded implements Lesson07Sharded.Sharded {
        final List<Tensor> params;
        final Communicator comm;
        final Mistakes m;
        final int count, shard;
        final Tensor slice;
        final Optimizer inner;

        Sharded(List<Tensor> params, Communicator comm, Function<List<Tensor>, Optimizer> make, Mistakes m) {
            this.params = params;
            this.comm = comm;
            this.m = m;
            int n = 0;
            for (Tensor p : params) {
                if (!m.noBroadcast()) comm.broadcast(p.data(), 0);
                n += (int) p.size();
            }
            count = n;
            shard = m.noPadding() ? n / comm.size() : (n + comm.size() - 1) / comm.size();
            float[] flat = Arrays.copyOf(flatten(false), shard * comm.size());
            int start = comm.rank() * shard;
            slice = Tensor.parameter(NDArray.of(Arrays.copyOfRange(flat, start, start + shard), shard));
            slice.ensureGrad();
            inner = m.fullState() ? make.apply(params) : make.apply(List.of(slice));
        }

        private float[] flatten(boolean grads) {
            float[] out = new float[count];
            int at = 0;
            for (Tensor p : params) {
                NDArray a = grads ? p.grad() : p.data();
                if (a != null) System.arraycopy(a.toArray(), 0, out, at, (int) p.size());
                at += (int) p.size();
            }
            return out;
        }

        public void zeroGrad() {
            for (Tensor p : params) p.zeroGrad();
        }

        public void step() {
            float[] grads = Arrays.copyOf(flatten(true), shard * comm.size());
            float[] mine = new float[shard];
            comm.reduceScatter(HostBuffer.of(grads), HostBuffer.of(mine), m.sum() ? Reduction.SUM : Reduction.AVG);
            slice.grad().assign(NDArray.of(mine, shard));
            inner.step();
            float[] all = new float[shard * comm.size()];
            comm.allGather(HostBuffer.of(slice.data().toArray()), HostBuffer.of(all));
            int at = 0;
            for (Tensor p : params) {
                int len = (int) p.size();
                if (at + len <= all.length) p.data().assign(NDArray.of(Arrays.copyOfRange(all, at, at + len), p.shape()));
                at += len;
            }
        }
    }

    private static List<Check> onRanks(int n, Mistakes m) {
        return ThreadRanks.run(n, b -> { }, Duration.ofSeconds(180), c -> Lesson07Sharded.check(c.rank(), c.size(), c,
                (ps, comm, make) -> new Sharded(ps, comm, make, m)));
    }

    private static void allWrong(List<Check> checks, String... words) {
        for (Check k : checks) {
            assertFalse(k.passed(), k.toString());
            for (String w : words) assertTrue((k.title() + " " + k.explanation()).contains(w), "'" + w + "' in " + k);
        }
    }

    @Test
    void theNotebooksAnswerPassesWithSgdAndAdamOnEveryRankCount() {
        List<Check> checks = onRanks(3, Mistakes.NONE);
        checks.forEach(k -> assertTrue(k.passed(), k.toString()));
        assertTrue(checks.get(0).explanation().contains("4 thread ranks"), checks.get(0).toString());
    }

    @Test
    void aConstructorThatNeverBroadcastsIsToldToBroadcast() {
        // rank 0's copy is rank 0's anyway: rank 1 says what is wrong, rank 0 stops with it instead of waiting
        List<Check> checks = onRanks(2, new Mistakes(true, false, false, false));
        allWrong(checks.subList(1, 2), "broadcast rank 0's parameters");
        allWrong(checks.subList(0, 1), "another rank's answer went wrong here first");
    }

    @Test
    void anOptimizerOverTheWholeModelIsToldToKeepStateForTheSliceOnly() {
        allWrong(onRanks(2, new Mistakes(false, true, false, false)), "was given 1349 parameters", "675", "slice only");
    }

    @Test
    void aSumForTheMeanIsToldToAverage() {
        allWrong(onRanks(2, new Mistakes(false, false, true, false)), "averaged (not summed)");
    }

    @Test
    void slicesWithoutPaddingFailWhereTheRanksDoNotDivideTheModel() {
        // 1349 parameters: 2, 3 and 4 ranks leave a remainder, so a floor division loses the last parameters
        allWrong(onRanks(2, new Mistakes(false, false, false, true)), "ceil(1349 / 2)");
    }

    @Test
    void aBlankAnswerSaysItIsNotWrittenYet() {
        List<Check> checks = ThreadRanks.run(2, b -> { }, Duration.ofSeconds(60), c -> Lesson07Sharded.check(c.rank(),
                c.size(), c, (ps, comm, make) -> {
                    throw new UnsupportedOperationException("write MyShardedOptimizer's constructor");
                }));
        allWrong(checks, "not written yet");
    }
}
