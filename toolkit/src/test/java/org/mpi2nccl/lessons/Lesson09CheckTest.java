package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.GradMode;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.NDArray;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Lesson 09's check: the reference answer (the notebook's, written here in Java) is RIGHT on 1 to 4 thread ranks, and
 * each usual mistake is told by its first wrong place, without the expected values; a wrong answer leaves the next
 * check working.
 */
class Lesson09CheckTest {
    @BeforeAll
    static void notStrict() {
        assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), "wrong answers throw in strict mode");
    }

    /** The ways the unit below can be wrong. */
    enum Mistake { NONE, SUM, LOCAL, KEEP_AFTER_FORWARD, KEEP_AFTER_BACKWARD, NO_PADDING, WHOLE_UNIT }

    /** The notebook's reference answer, with one mistake switched on. */
    static final class Unit implements Lesson09.Unit {
        private final Supplier<Module> makeLayer;
        private final Communicator comm;
        private final Mistake mistake;
        private final int count, shard;
        private final Tensor myShard;
        private final Optimizer inner;
        private Tensor input;

        Unit(Supplier<Module> makeLayer, Communicator comm, Function<List<Tensor>, Optimizer> makeOptimizer, Mistake m) {
            this.makeLayer = makeLayer;
            this.comm = comm;
            this.mistake = m;
            float[] flat;
            try (Module layer = makeLayer.get()) {
                flat = Lesson09.values(layer);
                count = flat.length;
                shard = m == Mistake.NO_PADDING ? count / comm.size() : (count + comm.size() - 1) / comm.size();
                float[] padded = Arrays.copyOf(flat, shard * comm.size());
                int start = comm.rank() * shard;
                myShard = Tensor.parameter(NDArray.of(Arrays.copyOfRange(padded, start, start + shard), shard));
            }
            myShard.ensureGrad();
            inner = makeOptimizer.apply(List.of(m == Mistake.WHOLE_UNIT ? Tensor.parameter(NDArray.of(flat, count)) : myShard));
        }

        private Module gather() {
            float[] all = new float[shard * comm.size()];
            comm.allGather(HostBuffer.of(myShard.data().toArray()), HostBuffer.of(all));
            Module layer = makeLayer.get();
            Lesson09.load(layer, Arrays.copyOf(all, Math.max(all.length, count)));
            return layer;
        }

        public Tensor forward(Tensor x) {
            input = x;
            Module layer = gather();
            try (GradMode.Off off = GradMode.off()) {
                return layer.forward(x);
            } finally {
                if (mistake != Mistake.KEEP_AFTER_FORWARD) layer.close();
            }
        }

        public NDArray backward(NDArray outGrad) {
            Module layer = gather();
            try {
                Tensor x = Tensor.leaf(input.data(), true);
                layer.forward(x).backward(outGrad);
                float[] grads = Arrays.copyOf(Lesson09.gradients(layer), shard * comm.size());
                float[] mine = new float[shard];
                if (mistake == Mistake.LOCAL) {
                    System.arraycopy(grads, comm.rank() * shard, mine, 0, shard);
                } else {
                    comm.reduceScatter(HostBuffer.of(grads), HostBuffer.of(mine),
                            mistake == Mistake.SUM ? Reduction.SUM : Reduction.AVG);
                }
                myShard.grad().assign(NDArray.of(mine, shard));
                return x.grad();
            } finally {
                if (mistake != Mistake.KEEP_AFTER_BACKWARD) layer.close();
            }
        }

        public void step() {
            inner.step();
        }
    }

    private static Check check(Mistake m) {
        return Lesson09Check.check((make, comm, opt) -> new Unit(make, comm, opt, m));
    }

    @Test
    void theReferenceAnswerIsRightOnOneToFourThreadRanks() {
        Check c = check(Mistake.NONE);
        assertTrue(c.passed(), c.toString());
    }

    @Test
    void eachMistakeIsToldByItsFirstWrongPlaceAndTheNextRightAnswerPasses() {
        assertHint(Mistake.SUM, "summed, not averaged");
        assertHint(Mistake.LOCAL, "not reduce-scattered");
        assertHint(Mistake.KEEP_AFTER_FORWARD, "not freed after forward");
        assertHint(Mistake.KEEP_AFTER_BACKWARD, "not freed after backward");
        assertHint(Mistake.NO_PADDING, "not padded");
        assertHint(Mistake.WHOLE_UNIT, "the shard has no gradient");   // the tensor given is not the shard
        assertTrue(check(Mistake.NONE).passed(), "a wrong answer leaves the next check working");
    }

    @Test
    void aMissingAnswerSaysNotWrittenYet() {
        Check c = Lesson09Check.check((make, comm, opt) -> {
            throw new UnsupportedOperationException("write MyFsdpUnit");
        });
        assertFalse(c.passed());
        assertTrue(c.explanation().contains("not written yet: write MyFsdpUnit"), c.explanation());
    }

    private static void assertHint(Mistake m, String words) {
        Check c = check(m);
        assertFalse(c.passed(), m + " passed");
        assertTrue(c.explanation().contains(words), m + ": " + c.explanation());
    }

    @Test
    void theMeasuredMemoryFollowsEachMethodsSharding() {
        List<Lesson09Memory.Row> rows = Lesson09Memory.measure();
        assertEquals(12, rows.size());
        for (Lesson09Memory.Row r : rows) {
            int n = r.ranks();
            long shards = 4L * (Lesson09.shardLength(1184, n) + Lesson09.shardLength(165, n));
            switch (Lesson09Memory.METHODS.indexOf(r.method())) {
                case 0 -> assertEquals(List.of(4L * 1349, 4L * 1349, 4L * 1349), List.of(r.params(), r.grads(), r.state()), r.toString());
                case 1 -> assertEquals(4L * Lesson09.shardLength(1349, n), r.state(), r.toString());
                default -> {
                    assertEquals(List.of(shards, shards, shards), List.of(r.params(), r.grads(), r.state()), r.toString());
                    assertEquals(shards + 4L * 1184, r.peakParams(), "the shards and the largest unit: " + r);
                }
            }
        }
        String s = Lesson09Memory.summary(rows);
        assertTrue(s.contains("FSDP: what a rank keeps falls from"), s);
        assertTrue(s.contains("Data parallel: what a rank keeps stays at"), s);
    }
}
