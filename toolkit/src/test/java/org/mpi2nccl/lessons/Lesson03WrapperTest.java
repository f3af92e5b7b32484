package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.nn.Module;

/**
 * Lesson 03's stage 5 on thread ranks: the notebook's wrapper passes at every rank count and bucket size; each
 * typical wrong wrapper fails with the hint of its first wrong place; a blank one says it is not written yet.
 */
class Lesson03WrapperTest {
    @BeforeAll
    static void notStrictAndData() {
        Assumptions.assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), Check.STRICT_ENV + "=1: wrong answers throw");
        Assumptions.assumeTrue(FashionMnist.isPresent(FashionMnist.defaultDir()), "Fashion-MNIST not installed: skipped");
    }

    /** The notebook's answer, with switches for the typical mistakes. */
    static final class Wrapper implements Lesson03Wrapper.Wrapper {
        final Module model;
        final Communicator comm;
        final ExecutorService commThread;
        final List<List<Tensor>> buckets;
        final boolean overlap;
        Lesson03.Overlap step;

        Wrapper(Module model, Communicator comm, long bytes, ExecutorService thread, boolean broadcast, boolean overlap) {
            this.model = model;
            this.comm = comm;
            this.commThread = thread;
            this.overlap = overlap;
            if (broadcast) for (Tensor p : model.parameters()) comm.broadcast(p.data(), 0);
            List<Tensor> order = new ArrayList<>(model.parameters());
            Collections.reverse(order);
            this.buckets = Lesson03Test.planBuckets(order, bytes);
        }

        public Tensor forward(Tensor x) {
            return model.forward(x);
        }

        public void backward(Tensor loss) {
            step = Lesson03Test.overlapStep(buckets, comm, commThread, overlap, -1);
            loss.backward(p -> {
                try {
                    step.gradientReady(p);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
        }

        public void finish() throws Exception {
            step.finish();
        }
    }

    private static List<Check> onRanks(int n, Function<Communicator, Check> body) {
        return ThreadRanks.run(n, b -> { }, Duration.ofSeconds(180), c -> body.apply(c));
    }

    private static void allWrong(List<Check> checks, String... words) {
        for (Check k : checks) {
            assertFalse(k.passed(), k.toString());
            for (String w : words) assertTrue((k.title() + " " + k.explanation()).contains(w), "'" + w + "' in " + k);
        }
    }

    @Test
    void theNotebooksWrapperPassesOnTwoRanksAndAsThreadsOnOneThreeAndFour() {
        List<Check> checks = onRanks(2, c -> Lesson03Wrapper.check(c.rank(), c.size(), c,
                (m, comm, bytes, t) -> new Wrapper(m, comm, bytes, t, true, true)));
        checks.forEach(k -> assertTrue(k.passed(), k.toString()));
        assertTrue(checks.get(0).explanation().contains("4 thread ranks, 4 MiB buckets"), checks.get(0).toString());
    }

    @Test
    void aWrapperThatNeverBroadcastsIsToldToBroadcastRankZerosWeights() {
        // rank 0's copy is rank 0's anyway: rank 1 says what is wrong, rank 0 stops with it instead of waiting
        List<Check> checks = onRanks(2, c -> Lesson03Wrapper.check(c.rank(), c.size(), c,
                (m, comm, bytes, t) -> new Wrapper(m, comm, bytes, t, false, true)));
        allWrong(checks.subList(1, 2), "broadcast rank 0's parameters");
        allWrong(checks.subList(0, 1), "another rank's answer went wrong here first");
    }

    @Test
    void aWrapperThatReducesOnlyAfterBackwardIsToldToLaunchFromTheHook() {
        allWrong(onRanks(2, c -> Lesson03Wrapper.check(c.rank(), c.size(), c,
                (m, comm, bytes, t) -> new Wrapper(m, comm, bytes, t, true, false))), "after backward ended", "hook");
    }

    @Test
    void aWrapperThatSumsIsToldToLookAtTheAveragedGradients() {
        allWrong(onRanks(2, c -> Lesson03Wrapper.check(c.rank(), c.size(), c, (m, comm, bytes, t) ->
                new Wrapper(m, sums(comm), bytes, t, true, true))), "look at the gradients", "comm.size()");
    }

    @Test
    void aWrapperThatUsesTheCellsRankIsCaughtOnThreadRanks() {
        // right on the notebook's 2 ranks; on 3 thread ranks the "cell's" rank 0 and size 2 are wrong
        List<Check> checks = onRanks(2, c -> {
            int cellRank = c.rank(), cellSize = c.size();
            return Lesson03Wrapper.check(c.rank(), c.size(), c, (m, comm, bytes, t) ->
                    new Wrapper(m, comm.size() == cellSize ? comm : fixedSize(comm, cellSize), bytes, t, true, true));
        });
        assertTrue(checks.get(1).passed(), checks.get(1).toString());
        allWrong(List.of(checks.get(0)), "as threads", "comm.size()");
    }

    @Test
    void aBlankWrapperSaysItIsNotWrittenYet() {
        allWrong(onRanks(2, c -> Lesson03Wrapper.check(c.rank(), c.size(), c, (m, comm, bytes, t) -> {
            throw new UnsupportedOperationException("write MyDataParallel's constructor");
        })), "not written yet", "constructor");
    }

    /** A communicator whose AVG all-reduce sums: the average forgotten. */
    private static Communicator sums(Communicator c) {
        return dividingBy(c, 1);
    }

    /** A communicator that says its size is {@code size} (what a class using the cell's {@code size} would divide by). */
    private static Communicator fixedSize(Communicator c, int size) {
        return dividingBy(c, size);
    }

    /** {@code c} with an AVG all-reduce that sums, then divides by {@code divisor} instead of the number of ranks. */
    private static Communicator dividingBy(Communicator c, int divisor) {
        return (Communicator) java.lang.reflect.Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[] {Communicator.class}, (proxy, m, args) -> {
                    if (m.getName().equals("allReduce") && args != null && args.length == 2 && args[1] == Reduction.AVG) {
                        HostBuffer b = (HostBuffer) args[0];
                        c.allReduce(b, Reduction.SUM);
                        for (int i = 0; divisor != 1 && i < b.length(); i++) b.setDouble(i, b.getDouble(i) / divisor);
                        return null;
                    }
                    try {
                        return m.invoke(c, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
