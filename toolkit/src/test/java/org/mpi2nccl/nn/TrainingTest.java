package org.mpi2nccl.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Device;

/** End-to-end training on synthetic data: it learns, it is deterministic, and it does not leak memory. */
class TrainingTest {
    private final Device cpu = Device.cpu();

    /** Per-epoch training losses of a small MLP. */
    private double[] lossCurve(long seed, int epochs) {
        SyntheticDataset ds = new SyntheticDataset(512, new int[] {1, 28, 28}, 10, 5);
        try (Sequential model = Models.mlp(32, cpu, seed); SGD opt = new SGD(model.parameters(), 0.05f, 0.9f, 1e-4f)) {
            DataLoader loader = new DataLoader(ds, 32, true, seed, true, cpu);
            double[] curve = new double[epochs];
            for (int e = 0; e < epochs; e++) curve[e] = Training.trainEpoch(model, loader, e, opt, new SoftmaxCrossEntropyLoss(), null).meanLoss();
            return curve;
        }
    }

    @Test
    void sameSeedSameLossCurve() {
        double[] a = lossCurve(1, 3), b = lossCurve(1, 3), c = lossCurve(2, 3);
        assertArrayEquals(a, b, 0.0, "bit-identical with the same seed");
        assertFalse(Arrays.equals(a, c), "another seed gives another curve");
        assertTrue(a[2] < a[0], "the loss decreases: " + Arrays.toString(a));
    }

    @Test
    void cnnLearnsASyntheticTaskWithoutGrowingMemory() {
        SyntheticDataset train = new SyntheticDataset(256, new int[] {1, 8, 8}, 4, 3);
        try (Sequential cnn = Models.cnn(1, 8, 4, 8, cpu, 0); Adam opt = new Adam(cnn.parameters(), 3e-3f)) {
            DataLoader loader = new DataLoader(train, 32, true, 0, false, cpu);
            Training.trainEpoch(cnn, loader, 0, opt, new SoftmaxCrossEntropyLoss(), null);
            long live = cpu.backend().liveElements();
            Training.EpochResult last = null;
            for (int e = 1; e < 10; e++) {
                last = Training.trainEpoch(cnn, loader, e, opt, new SoftmaxCrossEntropyLoss(), null);
                assertEquals(live, cpu.backend().liveElements(), "memory after epoch " + e);
            }
            assertTrue(last.accuracy() > 0.5, "training accuracy after 10 epochs (chance: 0.25): " + last.accuracy());
            Training.EpochResult eval = Training.evaluate(cnn, loader, new SoftmaxCrossEntropyLoss());
            assertEquals(256, eval.samples());
            assertEquals(live, cpu.backend().liveElements(), "memory after evaluation");
        }
    }
}
