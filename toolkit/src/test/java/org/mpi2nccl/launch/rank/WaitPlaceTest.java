package org.mpi2nccl.launch.rank;

import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.CollectiveInProgress;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/** A rank waiting in a communicator's call is named with the call's number, which its stack cannot show. */
class WaitPlaceTest {
    /** The test's own frames are "the program"; its line stands for a cell line. */
    private static String programLine(StackTraceElement e) {
        return e.getClassName().startsWith(WaitPlaceTest.class.getName()) ? "line " + e.getLineNumber() : null;
    }

    @Test
    void aRankWaitingInACommunicatorCallIsNamedWithTheCallsNumber() throws Exception {
        CountDownLatch rank1MayGoOn = new CountDownLatch(1);
        AtomicReference<Thread> rank0 = new AtomicReference<>();
        AtomicReference<String> seen = new AtomicReference<>();
        Thread inspector = new Thread(() -> {
            // the stall inspector's view, from another thread, while rank 0 waits in its third call
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < until) {
                Thread t = rank0.get();
                WaitPlace.Place p = t == null ? null : WaitPlace.of(t, WaitPlaceTest::programLine);
                if (p != null && p.inCommunication() && p.call() != null && p.call().contains("#3")) {
                    seen.set(p.describe());
                    break;
                }
                sleep(20);
            }
            rank1MayGoOn.countDown();
        });
        inspector.start();
        List<String> after = ThreadRanks.run(2, b -> { }, c -> {
            HostBuffer x = HostBuffer.of(new float[] {1f});
            if (c.rank() == 0) rank0.set(Thread.currentThread());
            c.allReduce(x, Reduction.SUM);
            c.broadcast(x, 0);
            if (c.rank() == 1) rank1MayGoOn.await(30, TimeUnit.SECONDS); // rank 1 is late for the third call
            c.allReduce(x, Reduction.SUM);
            return String.valueOf(CollectiveInProgress.of(Thread.currentThread()));
        });
        inspector.join();
        assertNotNull(seen.get(), "rank 0 was never seen waiting in allReduce #3");
        // the inspector may catch rank 0 inside a step of the call ("broadcast in allReduce #3"): the call's number is
        // what it must name
        assertTrue(seen.get().matches("(\\w+ in )?allReduce #3 \\(line \\d+\\)"), seen.get());
        assertEquals(List.of("null", "null"), after, "a call that ended is not recorded any more");
    }

    @Test
    void withoutACommunicatorCallThePlaceIsTheStacksAlone() {
        WaitPlace.Place p = WaitPlace.of(Thread.currentThread(), WaitPlaceTest::programLine);
        assertNotNull(p);
        assertFalse(p.inCommunication(), p.describe());
        assertFalse(p.describe().contains("#"), p.describe());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
