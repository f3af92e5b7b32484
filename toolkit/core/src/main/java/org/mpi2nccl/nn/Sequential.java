package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;

/**
 * Modules applied one after the other; they are named "0", "1", ... in the state. Where three of them form a block
 * the backend runs faster as one function (batch norm, ReLU, 2x2 max pooling), {@link FusedBlocks} runs them so.
 */
public final class Sequential extends Module {
    private final Module[] layers;

    public Sequential(Module... layers) {
        this.layers = layers.clone();
        for (int i = 0; i < layers.length; i++) addModule(Integer.toString(i), layers[i]);
    }

    @Override
    public Tensor forward(Tensor x) {
        for (int i = 0; i < layers.length; i++) {
            Tensor fused = FusedBlocks.batchNormReluPool(layers, i, x);   // null: no block to fuse here (FusedBlocks)
            if (fused != null) {
                x = fused;
                i += 2;
            } else {
                x = layers[i].forward(x);
            }
        }
        return x;
    }

    public Module layer(int i) { return layers[i]; }

    public int size() { return layers.length; }
}
