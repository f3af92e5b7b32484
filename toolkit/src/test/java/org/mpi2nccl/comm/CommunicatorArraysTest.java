package org.mpi2nccl.comm;

import org.mpi2nccl.comm.ring.RingCommunicator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.NDArray;

/** A communicator takes the toolkit's arrays as they are: what a notebook cell writes. */
class CommunicatorArraysTest {
    @Test
    void arraysAreAllReducedBroadcastGatheredAndScattered() throws Exception {
        List<RingCommunicator> comms = RingCommunicator.threads(2, b -> { });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<float[][]>> results = new ArrayList<>();
            for (RingCommunicator c : comms) {
                results.add(pool.submit(() -> {
                    int r = c.rank();
                    NDArray sum = NDArray.of(new float[] {r + 1, 10 * (r + 1)}, 2);
                    c.allReduce(sum, Reduction.SUM);
                    NDArray root = NDArray.of(new float[] {r == 1 ? 7 : 0}, 1);
                    c.broadcast(root, 1);
                    NDArray all = NDArray.of(new float[2], 2);
                    c.allGather(NDArray.of(new float[] {r}, 1), all);
                    NDArray mine = NDArray.of(new float[1], 1);
                    c.reduceScatter(NDArray.of(new float[] {1, 2}, 2), mine, Reduction.SUM);
                    return new float[][] {sum.toArray(), root.toArray(), all.toArray(), mine.toArray()};
                }));
            }
            for (int r = 0; r < 2; r++) {
                float[][] got = results.get(r).get(60, TimeUnit.SECONDS);
                assertArrayEquals(new float[] {3, 30}, got[0], "allReduce on rank " + r);
                assertArrayEquals(new float[] {7}, got[1], "broadcast from rank 1, on rank " + r);
                assertArrayEquals(new float[] {0, 1}, got[2], "allGather on rank " + r);
                assertArrayEquals(new float[] {2 * (r + 1)}, got[3], "reduceScatter on rank " + r);
            }
        } finally {
            pool.shutdownNow();
            comms.forEach(RingCommunicator::close);
        }
    }
}
