package org.mpi2nccl.nn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.nn.FusedBlocks.Fusion;
import org.mpi2nccl.tensor.Device;

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
        FusedBlocksTest.assertFusionChangesNothing(GPU, 11, 32, 8, 16, Fusion.WHERE_FASTER, 1e-5, 1e-4);
    }
}
