package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;

/** Modules applied one after the other; they are named "0", "1", ... in the state. */
public final class Sequential extends Module {
    private final Module[] layers;

    public Sequential(Module... layers) {
        this.layers = layers.clone();
        for (int i = 0; i < layers.length; i++) addModule(Integer.toString(i), layers[i]);
    }

    @Override
    public Tensor forward(Tensor x) {
        for (Module m : layers) x = m.forward(x);
        return x;
    }

    public Module layer(int i) { return layers[i]; }

    public int size() { return layers.length; }
}
