package org.mpi2nccl.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.nn.FusedBlocks.Fusion;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Sequential's fused batch norm - ReLU - max pool block gives the lesson CNN the layers' own loss, gradients and
 * running averages (forced on the CPU, whose backend would not fuse by itself), and leaves alone what it cannot fuse.
 */
class FusedBlocksTest {
    private final Device cpu = Device.cpu();
    private final Fusion before = FusedBlocks.fusion();

    @AfterEach
    void restore() {
        FusedBlocks.setFusion(before);
    }

    /** One training step's loss, parameter gradients and state (running averages after the step's forward). */
    record Step(float loss, Map<String, float[]> grads, Map<String, float[]> state) {
        /** Equal to {@code other} within {@code tol} (relative), each array named when it is not. */
        void assertCloseTo(Step other, double lossTol, double tol) {
            assertEquals(loss, other.loss, lossTol, "loss");
            assertEquals(grads.keySet(), other.grads.keySet());
            grads.forEach((k, g) -> assertClose(g, other.grads.get(k), tol, "gradient of " + k));
            state.forEach((k, v) -> assertClose(v, other.state.get(k), tol / 10, "state " + k));
        }
    }

    /** One training step of {@code net} on (x, y) with Sequential's fusion set to {@code fusion}. */
    static Step step(Fusion fusion, Sequential net, NDArray x, NDArray y) {
        FusedBlocks.setFusion(fusion);
        try (ArrayScope scope = ArrayScope.open()) {
            net.zeroGrad();
            Tensor loss = new SoftmaxCrossEntropyLoss().forward(net.forward(Tensor.constant(x)), y);
            loss.backward();
            Map<String, float[]> grads = new java.util.TreeMap<>(), state = new java.util.TreeMap<>();
            net.namedParameters().forEach((k, t) -> grads.put(k, t.grad().toArray()));
            net.state().forEach((k, a) -> state.put(k, a.toArray()));
            return new Step(loss.data().toArray()[0], grads, state);
        }
    }

    /**
     * The lesson CNN ({@code c1}, {@code c2} channels) on {@code device}, one training step on a random batch of
     * {@code n} images (from {@code seed}) with the blocks as three layers and one with {@code fusion}: the two
     * steps agree within the tolerances of {@link Step#assertCloseTo}.
     */
    static void assertFusionChangesNothing(Device device, long seed, int n, int c1, int c2, Fusion fusion, double lossTol,
                                           double tol) {
        Random r = new Random(seed);
        float[] xs = new float[n * 28 * 28], ys = new float[n];
        for (int i = 0; i < xs.length; i++) xs[i] = r.nextFloat();
        for (int i = 0; i < ys.length; i++) ys[i] = r.nextInt(10);
        try (NDArray x = NDArray.of(device, xs, n, 1, 28, 28); NDArray y = NDArray.of(device, ys, n);
             Sequential layers = Models.cnn(c1, c2, device, 5); Sequential fused = Models.cnn(c1, c2, device, 5)) {
            step(Fusion.OFF, layers, x, y).assertCloseTo(step(fusion, fused, x, y), lossTol, tol);
        }
    }

    @Test
    void theLessonCnnTrainsAlikeWithTheBlockFusedOrNot() {
        assertFusionChangesNothing(cpu, 3, 6, 4, 6, Fusion.ALWAYS, 1e-6, 1e-4);
    }

    @Test
    void theBlockIsFusedWhereTheSettingAndTheBackendSaySo() {
        try (Sequential net = Models.cnn(4, 6, cpu, 5); ArrayScope scope = ArrayScope.open()) {
            Module[] layers = new Module[net.size()];
            for (int i = 0; i < layers.length; i++) layers[i] = net.layer(i);
            Tensor convOut = Tensor.constant(NDArray.of(cpu, new float[2 * 4 * 28 * 28], 2, 4, 28, 28));
            FusedBlocks.setFusion(Fusion.ALWAYS);
            assertTrue(FusedBlocks.batchNormReluPool(layers, 1, convOut) != null, "BatchNorm2d, ReLU, MaxPool2d(2) at layer 1");
            assertTrue(FusedBlocks.batchNormReluPool(layers, 0, convOut) == null, "a convolution first");
            FusedBlocks.setFusion(Fusion.WHERE_FASTER);
            assertTrue(FusedBlocks.batchNormReluPool(layers, 1, convOut) == null, "the CPU backend runs the layers faster one by one");
            FusedBlocks.setFusion(Fusion.OFF);
            assertTrue(FusedBlocks.batchNormReluPool(layers, 1, convOut) == null, "off");
        }
    }

    @Test
    void theFusedFunctionChecksItsInputsAsBatchNormDoes() {
        try (ArrayScope scope = ArrayScope.open()) {
            Tensor x = Tensor.constant(NDArray.of(cpu, new float[2 * 2 * 4 * 4], 2, 2, 4, 4));
            Tensor w = Tensor.constant(NDArray.ones(cpu, 2)), b = Tensor.constant(NDArray.zeros(cpu, 2));
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> org.mpi2nccl.autograd.Functions.batchNormReluMaxPool2d(x, w, b, 1e-5f, NDArray.zeros(cpu, 3),
                            NDArray.ones(cpu, 3), 0.1f));
            assertTrue(e.getMessage().startsWith("batchNorm2d + relu + maxPool2d(2): running averages of shape (3,)")
                    && e.getMessage().contains("do not fit 2 channels"), e.getMessage());
        }
    }

    @Test
    void anOddHeightOrEvaluationRunsTheLayersOneByOne() {
        FusedBlocks.setFusion(Fusion.ALWAYS);
        try (Sequential block = new Sequential(new BatchNorm2d(2, cpu), new ReLU(), new MaxPool2d(2));
             ArrayScope scope = ArrayScope.open()) {
            Tensor odd = Tensor.constant(NDArray.of(cpu, new float[2 * 2 * 5 * 4], 2, 2, 5, 4));
            assertEquals(2, block.forward(odd).shape(2), "5 rows pooled by 2, the layers' floor");
            block.eval();
            Tensor even = Tensor.constant(NDArray.of(cpu, new float[2 * 2 * 4 * 4], 2, 2, 4, 4));
            assertEquals(2, block.forward(even).shape(2));
            block.train();
            assertTrue(FusedBlocks.batchNormReluPool(new Module[] {new ReLU(), new ReLU(), new MaxPool2d(2)}, 0, even) == null,
                    "no batch norm first: nothing to fuse");
        }
    }

    static void assertClose(float[] e, float[] a, double tol, String what) {
        assertEquals(e.length, a.length, what);
        for (int i = 0; i < e.length; i++) {
            assertTrue(Math.abs(e[i] - a[i]) <= tol * Math.max(1, Math.abs(e[i])), what + " at " + i + ": " + e[i] + " vs " + a[i]);
        }
    }
}
