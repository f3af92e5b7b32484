package org.mpi2nccl.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.GradMode;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/** Modules: naming and state, seeded initialisation, train/eval behaviour of dropout and batch-norm. */
class ModuleTest {
    private final Device cpu = Device.cpu();

    @Test
    void stateIsAnOrderedListOfNamedArrays() {
        Sequential cnn = Models.cnn(4, 8, cpu, 1);
        List<String> names = List.copyOf(cnn.state().keySet());
        assertEquals(List.of("0.weight", "1.weight", "1.bias", "4.weight", "5.weight", "5.bias", "9.weight", "9.bias",
                "11.weight", "11.bias", "1.running_mean", "1.running_var", "5.running_mean", "5.running_var"), names);
        assertEquals(4 * 9 + 8 + 8 * 4 * 9 + 16 + 8 * 7 * 7 * 128 + 128 + 1290, cnn.parameterCount());
        assertEquals(784 * 256 + 256 + 2570, Models.mlp(256, cpu, 0).parameterCount());
    }

    @Test
    void aLayerUsedTwiceHasItsParametersOnceAndTheirGradientSumsBothUses() {
        Linear shared = new Linear(4, 4, cpu, new Rng(3));
        Sequential tied = new Sequential(shared, new ReLU(), shared);
        assertEquals(List.of("0.weight", "0.bias"), List.copyOf(tied.namedParameters().keySet()), "tied: first path only");
        assertEquals(2, tied.parameters().size());
        assertEquals(4 * 4 + 4, tied.parameterCount());
        // the same network with two copies of the layer: the shared weight's gradient is the sum of the copies'
        Linear first = new Linear(4, 4, cpu, new Rng(3)), second = new Linear(4, 4, cpu, new Rng(3));
        Sequential untied = new Sequential(first, new ReLU(), second);
        float[] input = {1, -2, 3, 0.5f};
        tied.forward(Tensor.leaf(NDArray.of(cpu, input, 1, 4), false)).sum().backward();
        untied.forward(Tensor.leaf(NDArray.of(cpu, input, 1, 4), false)).sum().backward();
        float[] g = shared.namedParameters().get("weight").grad().toArray();
        float[] a = first.namedParameters().get("weight").grad().toArray();
        float[] b = second.namedParameters().get("weight").grad().toArray();
        for (int i = 0; i < g.length; i++) assertEquals(a[i] + b[i], g[i], 1e-5f, "weight gradient " + i);
    }

    @Test
    void sameSeedSameWeightsOtherSeedOtherWeights() {
        float[] a = Models.mlp(32, cpu, 7).state().get("1.weight").toArray();
        float[] b = Models.mlp(32, cpu, 7).state().get("1.weight").toArray();
        float[] c = Models.mlp(32, cpu, 8).state().get("1.weight").toArray();
        assertArrayEquals(a, b);
        assertFalse(java.util.Arrays.equals(a, c));
        // Kaiming uniform bound sqrt(2) * sqrt(3 / 784)
        float bound = (float) (Math.sqrt(2) * Math.sqrt(3.0 / 784));
        float max = 0;
        for (float v : a) max = Math.max(max, Math.abs(v));
        assertTrue(max <= bound && max > 0.95f * bound, "max |w| " + max + " vs bound " + bound);
    }

    @Test
    void loadStateCopiesValuesAndNamesProblems() {
        Sequential a = Models.mlp(16, cpu, 1), b = Models.mlp(16, cpu, 2);
        b.loadState(a.state());
        assertArrayEquals(a.state().get("3.bias").toArray(), b.state().get("3.bias").toArray());
        Map<String, NDArray> wrong = new HashMap<>(a.state());
        wrong.put("3.bias", NDArray.zeros(cpu, 11));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.loadState(wrong));
        assertTrue(e.getMessage().contains("3.bias") && e.getMessage().contains("(11,)") && e.getMessage().contains("(10,)"), e.getMessage());
        Map<String, NDArray> missing = new HashMap<>(a.state());
        missing.remove("1.weight");
        e = assertThrows(IllegalArgumentException.class, () -> b.loadState(missing));
        assertTrue(e.getMessage().contains("'1.weight' missing"), e.getMessage());
    }

    @Test
    void linearComputesXWtPlusBAndRejectsWrongWidths() {
        Linear l = new Linear(3, 2, cpu, new Rng(0));
        l.weight().data().assign(NDArray.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3));
        l.bias().data().assign(NDArray.of(new float[] {10, 20}, 2));
        Tensor y = l.forward(Tensor.constant(NDArray.of(new float[] {1, 1, 1, 0, 1, 0}, 2, 3)));
        assertArrayEquals(new float[] {16, 35, 12, 25}, y.toArray());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> l.forward(Tensor.constant(NDArray.zeros(cpu, 2, 4))));
        assertTrue(e.getMessage().contains("(2, 4)"), e.getMessage());
    }

    @Test
    void dropoutOnlyWhileTraining() {
        Dropout d = new Dropout(0.5f, new Rng(3));
        Tensor x = Tensor.constant(NDArray.ones(cpu, 10000));
        float[] y = d.forward(x).toArray();
        int zeros = 0;
        for (float v : y) {
            if (v == 0f) zeros++;
            else assertEquals(2f, v);
        }
        assertEquals(5000, zeros, 200);
        d.eval();
        assertArrayEquals(x.toArray(), d.forward(x).toArray());
    }

    @Test
    void batchNormUsesBatchStatsInTrainingAndRunningStatsInEval() {
        BatchNorm2d bn = new BatchNorm2d(2, 1e-5f, 0.5f, cpu);
        // channel 0 holds 1, 2, 3, 4; channel 1 holds 10 x4
        NDArray x = NDArray.of(new float[] {1, 2, 10, 10, 3, 4, 10, 10}, 2, 2, 1, 2);
        float[] y = bn.forward(Tensor.constant(x)).toArray();
        double std = Math.sqrt(1.25 + 1e-5);
        assertEquals((1 - 2.5) / std, y[0], 1e-5);
        assertEquals((4 - 2.5) / std, y[5], 1e-5);
        assertEquals(0f, y[2], 1e-3);
        // running = 0.5 * initial + 0.5 * batch; unbiased variance 5/3 for channel 0
        assertArrayEquals(new float[] {1.25f, 5f}, bn.runningMean().toArray(), 1e-6f);
        assertArrayEquals(new float[] {0.5f + 0.5f * 5f / 3f, 0.5f}, bn.runningVar().toArray(), 1e-5f);
        bn.eval();
        float[] e;
        try (GradMode.Off off = GradMode.off()) {
            e = bn.forward(Tensor.constant(x)).toArray();
        }
        assertEquals((1 - 1.25) / Math.sqrt(0.5 + 5.0 / 6 + 1e-5), e[0], 1e-5);
        assertNotEquals(y[0], e[0]);
    }

    @Test
    void trainAndEvalReachEveryChild() {
        Sequential m = Models.cnn(2, 2, cpu, 0);
        m.eval();
        assertFalse(m.layer(1).isTraining());
        m.train();
        assertTrue(m.layer(1).isTraining());
        assertTrue(m.toString().contains("Conv2d(1 -> 2"), m.toString());
    }

    @Test
    void initialisationsHaveTheirDocumentedSpread() {
        int fanIn = 400, fanOut = 100, n = 40000;
        float[] xu = Init.xavierUniform(cpu, new Rng(1), fanIn, fanOut, n).toArray();
        float[] xn = Init.xavierNormal(cpu, new Rng(2), fanIn, fanOut, n).toArray();
        float[] kn = Init.kaimingNormal(cpu, new Rng(3), fanIn, n).toArray();
        double bound = Math.sqrt(6.0 / (fanIn + fanOut));
        for (float v : xu) assertTrue(Math.abs(v) <= bound);
        assertEquals(bound / Math.sqrt(3), std(xu), 0.02 * bound);
        assertEquals(Math.sqrt(2.0 / (fanIn + fanOut)), std(xn), 0.02 * Math.sqrt(2.0 / (fanIn + fanOut)));
        assertEquals(Math.sqrt(2.0 / fanIn), std(kn), 0.02 * Math.sqrt(2.0 / fanIn));
    }

    private static double std(float[] v) {
        double m = 0, s = 0;
        for (float x : v) m += x;
        m /= v.length;
        for (float x : v) s += (x - m) * (x - m);
        return Math.sqrt(s / v.length);
    }
}
