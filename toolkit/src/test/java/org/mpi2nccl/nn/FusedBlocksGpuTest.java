package org.mpi2nccl.nn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.nn.FusedBlocks.Fusion;
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

    @Test
    void theLessonCnnTrainsAlikeWithTheBlocksFusedByTheBackend() {
        assertTrue(GPU.backend().fusesBatchNormReluPool(), "the CUDA backend fuses the block");
        Random r = new Random(11);
        float[] xs = new float[32 * 28 * 28], ys = new float[32];
        for (int i = 0; i < xs.length; i++) xs[i] = r.nextFloat();
        for (int i = 0; i < ys.length; i++) ys[i] = r.nextInt(10);
        try (NDArray x = NDArray.of(GPU, xs, 32, 1, 28, 28); NDArray y = NDArray.of(GPU, ys, 32);
             Sequential layers = Models.cnn(8, 16, GPU, 5); Sequential fused = Models.cnn(8, 16, GPU, 5)) {
            FusedBlocksTest.step(Fusion.OFF, layers, x, y)
                    .assertCloseTo(FusedBlocksTest.step(Fusion.WHERE_FASTER, fused, x, y), 1e-5, 1e-4);
        }
    }
}
