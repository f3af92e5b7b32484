package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.ThreadTransport;

/** Lesson 02's Sendrecv: MPI's counts, and a wait that ends, naming the peer, instead of hanging. */
class PointToPointTest {
    private static final Duration WAIT = Duration.ofMillis(500);

    @Test
    void aMessageShorterThanTheRoomArrivesAndItsCountIsReturned() throws Exception {
        List<ThreadTransport> t = ThreadTransport.group(2);
        PointToPoint a = new PointToPoint(t.get(0), WAIT), b = new PointToPoint(t.get(1), WAIT);
        float[] inA = new float[4], inB = new float[4];
        CompletableFuture<Integer> got = CompletableFuture.supplyAsync(() -> b.sendrecv(new float[] {7, 8, 9}, 1, 2, 0,
                inB, 1, 3, 0));
        assertEquals(2, a.sendrecv(new float[] {1}, 0, 0, 1, inA, 0, 4, 1));
        assertEquals(0, got.get(10, TimeUnit.SECONDS));
        assertArrayEquals(new float[] {8, 9, 0, 0}, inA);
        assertArrayEquals(new float[4], inB);
    }

    @Test
    void aMessageLongerThanTheRoomIsMpisTruncationError() throws Exception {
        List<ThreadTransport> t = ThreadTransport.group(2);
        PointToPoint a = new PointToPoint(t.get(0), WAIT), b = new PointToPoint(t.get(1), WAIT);
        CompletableFuture<Integer> other = CompletableFuture.supplyAsync(() -> b.sendrecv(new float[3], 0, 3, 0,
                new float[3], 0, 3, 0));
        CommException e = assertThrows(CommException.class, () -> a.sendrecv(new float[3], 0, 3, 1, new float[3], 0, 2, 1));
        assertTrue(e.getMessage().contains("rank 0 received 3 elements from rank 1") && e.getMessage().contains("room for 2"),
                e.getMessage());
        assertEquals(3, other.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aMessageThatNeverComesEndsTheWaitNamingThePeer() {
        PointToPoint a = new PointToPoint(ThreadTransport.group(3).get(2), WAIT);
        long start = System.nanoTime();
        CommException e = assertThrows(PointToPoint.PeerTimeout.class, () -> a.sendrecv(new float[1], 0, 1, 0,
                new float[1], 0, 1, 1));
        assertTrue(System.nanoTime() - start >= WAIT.toNanos(), "the wait lasted its timeout");
        assertTrue(e.getMessage().startsWith("rank 2 waited 0.5 s for a message from rank 1 in its Sendrecv number 1"),
                e.getMessage());
    }

    @Test
    void anInterruptEndsTheWaitAtOnce() throws Exception {
        PointToPoint a = new PointToPoint(ThreadTransport.group(2).get(0), Duration.ofSeconds(60));
        Thread waiting = Thread.currentThread();
        Thread interrupter = new Thread(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            waiting.interrupt();
        });
        interrupter.start();
        long start = System.nanoTime();
        CommException e = assertThrows(CommException.class, () -> a.sendrecv(new float[1], 0, 1, 1, new float[1], 0, 1, 1));
        Thread.interrupted();
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(30).toNanos(), "ended long before the timeout");
        assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
        interrupter.join();
    }
}
