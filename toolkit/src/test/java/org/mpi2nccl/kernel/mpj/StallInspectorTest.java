package org.mpi2nccl.kernel.mpj;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** The stall warning names each waiting rank's call, numbered when it is a communicator's. */
class StallInspectorTest {
    private static final long S = 1_000_000_000L;

    @Test
    void ranksInDifferentNumberedCallsAreNamedWithTheirCalls() {
        StallInspector inspector = new StallInspector(Duration.ofSeconds(10), 0);
        Set<Integer> pending = Set.of(0, 1);
        assertEquals(Set.of(), inspector.toAsk(9 * S, pending), "not before the stall delay");
        assertEquals(pending, inspector.toAsk(10 * S, pending));
        inspector.answer(0, "allReduce #12 (cell line 5)", true);
        assertNull(inspector.warning(10 * S, pending), "waits for every rank's answer");
        inspector.answer(1, "broadcast #12 (cell line 7)", true);
        assertEquals("rank 0 waits in allReduce #12 (cell line 5); rank 1 waits in broadcast #12 (cell line 7) for 10 s:"
                + " the ranks called different collectives? (interrupt the cell to stop it)", inspector.warning(10 * S, pending));
        assertEquals(Set.of(), inspector.toAsk(25 * S, pending), "the next look comes twice as late");
        assertEquals(pending, inspector.toAsk(30 * S, pending));
    }

    @Test
    void aRankThatFinishedIsNamedBesideTheOnesWaiting() {
        StallInspector inspector = new StallInspector(Duration.ofSeconds(10), 0);
        inspector.finished(1, 2 * S);
        Set<Integer> pending = Set.of(0, 2);
        assertEquals(pending, inspector.toAsk(12 * S, pending));
        inspector.answer(0, "allReduce #3 (cell line 4)", true);
        inspector.answer(2, "allReduce #3 (cell line 4)", true);
        assertEquals("ranks 0 and 2 wait in allReduce #3 (cell line 4) for 10 s; rank 1 finished the cell: a rank"
                + " skipped a collective? (interrupt the cell to stop it)", inspector.warning(12 * S, pending));
    }

    @Test
    void aRankThatDoesNotAnswerIsNamedEvenWhenNoneFinished() {
        StallInspector inspector = new StallInspector(Duration.ofSeconds(10), 0);
        Set<Integer> pending = Set.of(0, 1, 2);
        assertEquals(pending, inspector.toAsk(10 * S, pending));
        inspector.answer(0, "Allreduce (cell line 3)", true);
        inspector.answer(2, "Allreduce (cell line 3)", true);
        assertNull(inspector.warning(11 * S, pending), "rank 1 gets 2 s to answer");
        assertEquals("ranks 0 and 2 wait in Allreduce (cell line 3) for 12 s; rank 1 does not answer within 2 s (stopped by"
                + " a signal or a debugger, or its JVM hangs) (interrupt the cell to stop it)", inspector.warning(12 * S, pending));
    }

    @Test
    void ranksThatAllComputeInOnePlaceAreNoStall() {
        StallInspector inspector = new StallInspector(Duration.ofSeconds(10), 0);
        Set<Integer> pending = Set.of(0, 1);
        inspector.toAsk(10 * S, pending);
        inspector.answer(0, "cell line 9", false);
        inspector.answer(1, "cell line 9", false);
        assertNull(inspector.warning(10 * S, pending), "long work is not a stall");
    }

    @Test
    void ranksInOneCollectiveAreNoStallUnlessAnInterruptLeftMessagesBehind() {
        Set<Integer> pending = Set.of(0, 1);
        StallInspector inStep = new StallInspector(Duration.ofSeconds(10), 0);
        inStep.toAsk(10 * S, pending);
        inStep.answer(0, "Barrier (cell line 2)", true);
        inStep.answer(1, "Barrier (cell line 2)", true);
        assertNull(inStep.warning(10 * S, pending), "a long collective is not a stall");
        StallInspector outOfStep = new StallInspector(Duration.ofSeconds(10), 0, "rank 0 was stopped inside Barrier (cell line 2)");
        outOfStep.toAsk(10 * S, pending);
        outOfStep.answer(0, "Barrier (cell line 2)", true);
        outOfStep.answer(1, "Barrier (cell line 2)", true);
        assertEquals("ranks 0 and 1 wait in Barrier (cell line 2) for 10 s, after an interrupt stopped the ranks inside a"
                + " call (rank 0 was stopped inside Barrier (cell line 2)): " + OutOfStep.ADVICE, outOfStep.warning(10 * S, pending));
    }
}
