package org.mpi2nccl.tensor.cpu;

/** In-place SGD and Adam updates (PyTorch's definitions, as in the Backend contract). */
final class OptimizerKernels {
    private OptimizerKernels() {}

    static void sgd(float[] p, float[] g, float[] v, int n, float lr, float momentum, float wd) {
        Parallel.range(n, 2, (from, to) -> {
            for (int i = from; i < to; i++) {
                float d = g[i] + wd * p[i];
                if (v != null) {
                    v[i] = momentum * v[i] + d;
                    d = v[i];
                }
                p[i] -= lr * d;
            }
        });
    }

    static void adam(float[] p, float[] g, float[] m, float[] v, int n, float lr, float b1, float b2, float eps, float wd, long step) {
        float c1 = (float) (1 - Math.pow(b1, step)), c2 = (float) (1 - Math.pow(b2, step));
        Parallel.range(n, 8, (from, to) -> {
            for (int i = from; i < to; i++) {
                float d = g[i] + wd * p[i];
                m[i] = b1 * m[i] + (1 - b1) * d;
                v[i] = b2 * v[i] + (1 - b2) * d * d;
                float mh = m[i] / c1, vh = v[i] / c2;
                p[i] -= lr * mh / ((float) Math.sqrt(vh) + eps);
            }
        });
    }
}
