package org.mpi2nccl.autograd;

import java.util.Random;
import java.util.function.Function;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Finite-difference gradient check: the analytic gradient of {@code L = sum(f(inputs) * R)} (R a fixed random
 * array) against central differences {@code (L(x + e) - L(x - e)) / 2e} for every input element.
 */
final class GradCheck {
    private GradCheck() {}

    static final double EPS = 1e-2;

    static void check(String name, Function<Tensor[], Tensor> f, NDArray... inputs) {
        check(name, 2e-2, f, inputs);
    }

    static void check(String name, double tol, Function<Tensor[], Tensor> f, NDArray... inputs) {
        Device d = inputs[0].device();
        float[][] host = new float[inputs.length][];
        int[][] shapes = new int[inputs.length][];
        for (int i = 0; i < inputs.length; i++) {
            host[i] = inputs[i].toArray();
            shapes[i] = inputs[i].shape();
        }
        // analytic
        Tensor[] leaves = new Tensor[inputs.length];
        for (int i = 0; i < inputs.length; i++) leaves[i] = Tensor.parameter(NDArray.of(d, host[i], shapes[i]));
        Tensor out = f.apply(leaves);
        float[] r = new float[(int) out.size()];
        Random random = new Random(99);
        for (int i = 0; i < r.length; i++) r[i] = (float) random.nextGaussian();
        Tensor loss = out.mul(Tensor.constant(NDArray.of(d, r, out.shape()))).sum();
        loss.backward();
        // numeric
        for (int i = 0; i < inputs.length; i++) {
            float[] analytic = leaves[i].grad().toArray();
            for (int j = 0; j < host[i].length; j++) {
                float keep = host[i][j];
                host[i][j] = (float) (keep + EPS);
                double plus = evaluate(f, d, host, shapes, r);
                host[i][j] = (float) (keep - EPS);
                double minus = evaluate(f, d, host, shapes, r);
                host[i][j] = keep;
                double numeric = (plus - minus) / (2 * EPS);
                double err = Math.abs(numeric - analytic[j]);
                if (err > tol * Math.max(1.0, Math.abs(numeric)))
                    throw new AssertionError(name + ": gradient of input " + i + " element " + j + ": analytic " + analytic[j]
                            + " vs numeric " + numeric);
            }
        }
    }

    private static double evaluate(Function<Tensor[], Tensor> f, Device d, float[][] host, int[][] shapes, float[] r) {
        try (GradMode.Off off = GradMode.off()) {
            Tensor[] in = new Tensor[host.length];
            for (int i = 0; i < host.length; i++) in[i] = Tensor.constant(NDArray.of(d, host[i], shapes[i]));
            float[] out = f.apply(in).toArray();
            double s = 0;
            for (int i = 0; i < out.length; i++) s += (double) out[i] * r[i];
            return s;
        }
    }
}
