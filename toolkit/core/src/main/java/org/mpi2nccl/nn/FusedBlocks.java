package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;

/**
 * Where {@link Sequential} runs several of its layers as one function, the way torch.compile fuses them: a
 * {@link BatchNorm2d}, a {@link ReLU} and a {@link MaxPool2d}(2) in a row, while training, on an input of even height
 * and width, become {@code Functions.batchNormReluMaxPool2d}. The values, gradients and running averages are the
 * three layers'; the model's layers and state stay as they are. On a GPU the block is memory-bound: fused, it reads
 * the convolution's output twice per step where the three layers read it about eleven times.
 */
public final class FusedBlocks {
    /** When Sequential fuses a block. */
    public enum Fusion {
        /** never: every layer runs on its own (a baseline, or a lesson that looks at each layer) */
        OFF,
        /** where the backend runs the block in fewer passes than the layers (Backend.fusesBatchNormReluPool: CUDA) */
        WHERE_FASTER,
        /** wherever the layers allow it, on any backend (tests hold the fused block to the layers on the CPU) */
        ALWAYS
    }

    // MPI2NCCL_FUSED_BLOCKS=0 turns it off for a whole process (a rank JVM, a benchmark's baseline)
    private static volatile Fusion fusion = "0".equals(System.getenv("MPI2NCCL_FUSED_BLOCKS")) ? Fusion.OFF : Fusion.WHERE_FASTER;

    private FusedBlocks() {}

    public static Fusion fusion() {
        return fusion;
    }

    /** Sets when Sequential fuses, for this JVM; returns the setting before. */
    public static Fusion setFusion(Fusion f) {
        Fusion was = fusion;
        fusion = f;
        return was;
    }

    /** The block starting at {@code layers[i]} applied to x as one function, or null where there is none to fuse. */
    static Tensor batchNormReluPool(Module[] layers, int i, Tensor x) {
        Fusion f = fusion;
        if (f == Fusion.OFF || i + 2 >= layers.length) return null;
        if (!(layers[i] instanceof BatchNorm2d bn) || !(layers[i + 1] instanceof ReLU) || !(layers[i + 2] instanceof MaxPool2d pool)) return null;
        if (!bn.isTraining() || !pool.isTwoByTwo() || x.ndim() != 4 || x.shape(2) % 2 != 0 || x.shape(3) % 2 != 0) return null;
        if (f == Fusion.WHERE_FASTER && !x.data().backend().fusesBatchNormReluPool()) return null;
        return bn.forwardWithReluAndPool(x);
    }
}
