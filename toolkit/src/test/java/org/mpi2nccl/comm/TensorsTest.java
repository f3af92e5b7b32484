package org.mpi2nccl.comm;

import org.mpi2nccl.comm.ring.RingCommunicator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.NDArray;

/** Collectives on CPU NDArrays, in place and out of place, through the ring on thread ranks. */
class TensorsTest {

    @Test
    void collectivesOnArraysInAndOutOfPlace() {
        List<float[][]> got = ThreadRanks.run(3, b -> { }, c -> {
            int r = c.rank();
            try (NDArray x = NDArray.of(new float[] {r, 10 * r, 1}, 3);
                 NDArray y = NDArray.zeros(org.mpi2nccl.tensor.Device.cpu(), 3);
                 NDArray mine = NDArray.of(new float[] {r + 0.5f, -r}, 2);
                 NDArray b = NDArray.of(new float[] {r == 1 ? 7 : 0, r == 1 ? 8 : 0}, 2);
                 NDArray gathered = NDArray.zeros(org.mpi2nccl.tensor.Device.cpu(), 6)) {
                Tensors.allReduce(c, x, y, Reduction.SUM);               // out of place
                Tensors.allReduce(c, x, Reduction.MAX);                  // in place
                Tensors.broadcast(c, b, 1);
                Tensors.allGather(c, mine, gathered);
                return new float[][] {y.toArray(), x.toArray(), b.toArray(), gathered.toArray()};
            }
        });
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(new float[] {3, 30, 3}, got.get(r)[0], "sum out of place");
            assertArrayEquals(new float[] {2, 20, 1}, got.get(r)[1], "max in place");
            assertArrayEquals(new float[] {7, 8}, got.get(r)[2], "broadcast from rank 1");
            assertArrayEquals(new float[] {0.5f, 0, 1.5f, -1, 2.5f, -2}, got.get(r)[3], "allGather");
        }
    }

    @Test
    void stridedViewsAreRefusedWithAHint() {
        List<RingCommunicator> one = RingCommunicator.threads(1, b -> { });
        try (NDArray m = NDArray.zeros(org.mpi2nccl.tensor.Device.cpu(), 2, 3)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Tensors.allReduce(one.get(0), m.transpose(0, 1), Reduction.SUM));
            assertTrue(e.getMessage().contains("compact()"), e.getMessage());
        }
    }
}
