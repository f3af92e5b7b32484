package org.mpi2nccl.lessons;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;

/**
 * What lesson 09's check compares the student's units with, computed on one thread without any communication: the
 * units' initial parameters, each unit's output and input gradient on this rank's first batch, the ranks' parameter
 * gradients of that batch (averaged, summed, or this rank's own: the right answer and two usual mistakes), and the
 * parameters after one rank trains the whole batch with the plain optimizer. Every array is padded to size x shard
 * and cut to this rank's slice where the student's shard is compared with it.
 */
final class Lesson09Reference {
    private static final int UNITS = 2;
    private static final Map<String, float[][]> FINAL = new ConcurrentHashMap<>();

    private final int rank, size, steps;
    private final long seed;
    private final int[] counts = new int[UNITS];
    private final float[][] initial = new float[UNITS][];
    private final float[][] outputs = new float[UNITS][];
    private final float[][] inputGrads = new float[UNITS][];
    private final float[][] sum = new float[UNITS][], local = new float[UNITS][];

    Lesson09Reference(int rank, int size, long seed, int steps) {
        this.rank = rank;
        this.size = size;
        this.seed = seed;
        this.steps = steps;
        for (int u = 0; u < UNITS; u++) {
            try (Module m = Lesson09.unit(u, seed)) {
                initial[u] = EquivalenceCheck.flatParameters(m);
                counts[u] = initial[u].length;
                sum[u] = new float[counts[u]];
            }
        }
        for (int q = 0; q < size; q++) firstStepOf(q);
    }

    int count(int u) {
        return counts[u];
    }

    int size() {
        return size;
    }

    /** This rank's first batch: the one the check watches the student's step on. */
    Batch firstBatch() {
        for (Batch b : Lesson07.loader(rank, size, Device.cpu()).epoch(0)) return b;
        throw new IllegalStateException("the lesson's loader gave no batch");
    }

    /** Rank q's first batch through the whole model, unit by unit; rank q's gradients added to the sum. */
    private void firstStepOf(int q) {
        try (ArrayScope scope = ArrayScope.open(); Module u0 = Lesson09.unit(0, seed); Module u1 = Lesson09.unit(1, seed)) {
            Batch b = null;
            for (Batch x : Lesson07.loader(q, size, Device.cpu()).epoch(0)) {
                if (b == null) b = x;
                else x.close();
            }
            Tensor h0 = u0.forward(Tensor.constant(b.x()));
            Tensor in1 = Tensor.leaf(h0.data(), true);
            Tensor logits = u1.forward(in1);
            new SoftmaxCrossEntropyLoss().forward(logits, b.y()).backward();
            h0.backward(in1.grad());
            float[][] grads = {Lesson07.flatGradients(u0), Lesson07.flatGradients(u1)};
            for (int u = 0; u < UNITS; u++) {
                for (int i = 0; i < counts[u]; i++) sum[u][i] += grads[u][i];
            }
            if (q == rank) {
                outputs[0] = h0.data().toArray();
                outputs[1] = logits.data().toArray();
                inputGrads[1] = in1.grad().toArray();
                local[0] = grads[0];
                local[1] = grads[1];
            }
            b.close();
        }
    }

    /** This rank's slice of unit {@code u}'s initial flat parameters, padded with zeros. */
    float[] initialShard(int u) {
        return slice(u, initial[u]);
    }

    float[] output(int u) {
        return outputs[u];
    }

    float[] inputGradient(int u) {
        return inputGrads[u];
    }

    /** This rank's slice of unit {@code u}'s gradient: "avg" over the ranks (right), "sum", or "local" (its own). */
    float[] gradientShard(int u, String how) {
        float[] g = switch (how) {
            case "avg" -> {
                float[] a = sum[u].clone();
                for (int i = 0; i < a.length; i++) a[i] /= size;
                yield a;
            }
            case "sum" -> sum[u];
            default -> local[u];
        };
        return slice(u, g);
    }

    /** This rank's slice of unit {@code u}'s parameters after one rank trains the whole batch {@code steps} steps. */
    float[] finalShard(int u) {
        float[][] end = FINAL.computeIfAbsent(seed + "/" + steps, k -> trainWhole());
        return slice(u, end[u]);
    }

    private float[][] trainWhole() {
        try (Module u0 = Lesson09.unit(0, seed); Module u1 = Lesson09.unit(1, seed);
             Module net = new org.mpi2nccl.nn.Sequential(u0, u1); Optimizer opt = Lesson09.sgd().apply(net.parameters())) {
            int at = 0;
            for (Batch b : Lesson07.loader(0, 1, Device.cpu()).epoch(0)) {
                try (ArrayScope scope = ArrayScope.open(); b) {
                    if (at++ >= steps) continue;
                    opt.zeroGrad();
                    new SoftmaxCrossEntropyLoss().forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                    opt.step();
                }
            }
            return new float[][] {EquivalenceCheck.flatParameters(u0), EquivalenceCheck.flatParameters(u1)};
        }
    }

    private float[] slice(int u, float[] values) {
        int shard = Lesson09.shardLength(counts[u], size);
        float[] padded = Arrays.copyOf(values, shard * size);
        return Arrays.copyOfRange(padded, rank * shard, (rank + 1) * shard);
    }

    /** Largest difference relative to the larger array's largest value; NaN when the lengths differ. */
    static double difference(float[] got, float[] want) {
        if (got == null || want == null || got.length != want.length) return Double.NaN;
        return EquivalenceCheck.relativeDifference(got, want);
    }
}
