package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.nn.FusedBlocks;
import org.mpi2nccl.nn.FusedBlocks.Fusion;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * On a GPU, Sequential runs the lesson CNN's batch norm - ReLU - max pool blocks through the fused kernels
 * (native/bn_relu_pool.cu) by itself, and a training step gives the layers' own loss, gradients and running averages.
 */
@Tag("gpu")
class FusedBlocksGpuTest {
    private static final Device GPU = Device.cuda(0);
    private final Fusion before = FusedBlocks.fusion();

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
    }

    @AfterEach
    void restore() {
        FusedBlocks.setFusion(before);
    }

    private record Step(float loss, Map<String, float[]> grads, Map<String, float[]> state) {}

    private static Step step(Fusion fusion, Sequential net, NDArray x, NDArray y) {
        FusedBlocks.setFusion(fusion);
        try (ArrayScope scope = ArrayScope.open()) {
            net.zeroGrad();
            Tensor loss = new SoftmaxCrossEntropyLoss().forward(net.forward(Tensor.constant(x)), y);
            loss.backward();
            Map<String, float[]> grads = new TreeMap<>(), state = new TreeMap<>();
            net.namedParameters().forEach((k, t) -> grads.put(k, t.grad().toArray()));
            net.state().forEach((k, a) -> state.put(k, a.toArray()));
            return new Step(loss.data().toArray()[0], grads, state);
        }
    }

    @Test
    void theLessonCnnTrainsAlikeWithTheBlocksFusedByTheBackend() {
        assertTrue(GPU.backend().fusesBatchNormReluPool(), "the CUDA backend fuses the block");
        Random r = new Random(11);
        float[] xs = new float[32 * 28 * 28], ys = new float[32];
        for (int i = 0; i < xs.length; i++) xs[i] = r.nextFloat();
        for (int i = 0; i < ys.length; i++) ys[i] = r.nextInt(10);
        try (NDArray x = NDArray.of(GPU, xs, 32, 1, 28, 28); NDArray y = NDArray.of(GPU, ys, 32);
             Sequential layers = Models.cnn(8, 16, GPU, 5); Sequential fused = Models.cnn(8, 16, GPU, 5)) {
            Step a = step(Fusion.OFF, layers, x, y), b = step(Fusion.WHERE_FASTER, fused, x, y);
            assertEquals(a.loss, b.loss, 1e-5, "loss");
            a.grads.forEach((k, g) -> assertClose(g, b.grads.get(k), 1e-4, "gradient of " + k));
            a.state.forEach((k, v) -> assertClose(v, b.state.get(k), 1e-5, "state " + k));
        }
    }

    private static void assertClose(float[] e, float[] a, double tol, String what) {
        assertEquals(e.length, a.length, what);
        for (int i = 0; i < e.length; i++) {
            assertTrue(Math.abs(e[i] - a[i]) <= tol * Math.max(1, Math.abs(e[i])), what + " at " + i + ": " + e[i] + " vs " + a[i]);
        }
    }
}
