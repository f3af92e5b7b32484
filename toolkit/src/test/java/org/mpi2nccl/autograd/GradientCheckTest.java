package org.mpi2nccl.autograd;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/** Finite-difference checks of every operation with a backward, on random shapes, with broadcasting. */
class GradientCheckTest {

    private final Random random = new Random(2024);

    private NDArray rand(float low, float high, int... shape) {
        int n = 1;
        for (int d : shape) n *= d;
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = low + (high - low) * random.nextFloat();
        return NDArray.of(v, shape);
    }

    /** Values at least 0.05 away from 0 (for kinks such as relu). */
    private NDArray awayFromZero(int... shape) {
        NDArray a = rand(0.05f, 1f, shape);
        float[] v = a.toArray();
        for (int i = 0; i < v.length; i++) if (random.nextBoolean()) v[i] = -v[i];
        return NDArray.of(v, shape);
    }

    /** Distinct values (a shuffled grid 0.1 apart) so that max/max-pool have no near-ties. */
    private NDArray distinct(int... shape) {
        int n = 1;
        for (int d : shape) n *= d;
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (i - n / 2f) * 0.1f;
        for (int i = n - 1; i > 0; i--) { int j = random.nextInt(i + 1); float t = v[i]; v[i] = v[j]; v[j] = t; }
        return NDArray.of(v, shape);
    }

    private int dim() { return 1 + random.nextInt(4); }

    @Test
    void broadcastingBinaryOps() {
        for (int trial = 0; trial < 3; trial++) {
            int a = dim(), b = dim(), c = dim();
            NDArray x = rand(-1, 1, a, b, c), row = rand(-1, 1, c), col = rand(-1, 1, a, 1, 1);
            GradCheck.check("add", t -> t[0].add(t[1]), x, row);
            GradCheck.check("sub", t -> t[0].sub(t[1]), col, x);
            GradCheck.check("mul", t -> t[0].mul(t[1]), x, col);
            GradCheck.check("div", t -> t[0].div(t[1]), x, rand(0.5f, 2f, b, 1));
            GradCheck.check("pow", t -> t[0].pow(t[1]), rand(0.5f, 2f, a, b, c), rand(-1.5f, 1.5f, c));
            GradCheck.check("same input twice", t -> t[0].mul(t[0]).add(t[0]), x);
        }
    }

    @Test
    void scalarAndUnaryOps() {
        int[] s = {dim(), dim() + 1};
        GradCheck.check("add scalar", t -> t[0].add(3f), rand(-1, 1, s));
        GradCheck.check("mul scalar", t -> t[0].mul(-2.5f), rand(-1, 1, s));
        GradCheck.check("div scalar", t -> t[0].div(4f), rand(-1, 1, s));
        GradCheck.check("pow scalar", t -> t[0].pow(3f), rand(-1, 1, s));
        GradCheck.check("pow fractional", t -> t[0].pow(0.5f), rand(0.5f, 2f, s));
        GradCheck.check("rdiv scalar", t -> t[0].rdiv(2f), rand(0.5f, 2f, s));
        GradCheck.check("rsub scalar", t -> t[0].rsub(2f), rand(-1, 1, s));
        GradCheck.check("neg", t -> t[0].neg(), rand(-1, 1, s));
        GradCheck.check("exp", t -> t[0].exp(), rand(-1, 1, s));
        GradCheck.check("log", t -> t[0].log(), rand(0.5f, 3f, s));
        GradCheck.check("relu", t -> t[0].relu(), awayFromZero(s));
        GradCheck.check("tanh", t -> t[0].tanh(), rand(-2, 2, s));
        GradCheck.check("sigmoid", t -> t[0].sigmoid(), rand(-3, 3, s));
    }

    @Test
    void reductions() {
        NDArray x = rand(-1, 1, dim() + 1, dim(), dim() + 1);
        GradCheck.check("sum all", t -> t[0].sum(), x);
        GradCheck.check("sum axis 1", t -> t[0].sum(1), x);
        GradCheck.check("sum axes 0,2", t -> t[0].sum(0, 2), x);
        GradCheck.check("sum keepdims", t -> t[0].sumKeepDims(-1), x);
        GradCheck.check("mean", t -> t[0].mean(0, 1), x);
        NDArray d = distinct(3, 4, 5);
        GradCheck.check("max all", t -> t[0].max(), d);
        GradCheck.check("max axis 1", t -> t[0].max(1), d);
        GradCheck.check("max axes 0,2 keepdims", t -> t[0].maxKeepDims(0, 2), d);
    }

    @Test
    void matmul2dBatchedAndBroadcast() {
        int m = dim() + 1, k = dim() + 2, n = dim();
        GradCheck.check("matmul 2-d", t -> t[0].matmul(t[1]), rand(-1, 1, m, k), rand(-1, 1, k, n));
        GradCheck.check("matmul batched", t -> t[0].matmul(t[1]), rand(-1, 1, 2, m, k), rand(-1, 1, 2, k, n));
        GradCheck.check("matmul batch x matrix", t -> t[0].matmul(t[1]), rand(-1, 1, 3, m, k), rand(-1, 1, k, n));
        GradCheck.check("matmul broadcast batch", t -> t[0].matmul(t[1]), rand(-1, 1, 2, 1, m, k), rand(-1, 1, 3, k, n));
        GradCheck.check("matmul with transposed view", t -> t[0].matmul(t[1].transpose()), rand(-1, 1, m, k), rand(-1, 1, n, k));
    }

    @Test
    void shapeOps() {
        NDArray x = rand(-1, 1, 2, 3, 4);
        GradCheck.check("reshape", t -> t[0].reshape(4, -1), x);
        GradCheck.check("permute", t -> t[0].permute(2, 0, 1), x);
        GradCheck.check("transpose then reshape", t -> t[0].transpose(0, 2).reshape(-1), x);
        GradCheck.check("broadcastTo", t -> t[0].broadcastTo(5, 2, 3, 4), x);
        GradCheck.check("broadcastTo size-1 axis", t -> t[0].broadcastTo(2, 3, 4), rand(-1, 1, 2, 1, 4));
        GradCheck.check("flatten", t -> t[0].flatten(1), x);
        GradCheck.check("slice", t -> t[0].slice(2, 1, 3), x);
        GradCheck.check("stack", t -> Functions.stack(1, t[0], t[1]), rand(-1, 1, 2, 3), rand(-1, 1, 2, 3));
        GradCheck.check("concat", t -> Functions.concat(1, t[0], t[1]), rand(-1, 1, 2, 3), rand(-1, 1, 2, 1));
    }

    @Test
    void softmaxFamily() {
        NDArray logits = rand(-3, 3, dim() + 1, 5);
        GradCheck.check("logsumexp", t -> t[0].logsumexp(1), logits);
        GradCheck.check("logsumexp all", t -> t[0].logsumexp(), logits);
        GradCheck.check("logSoftmax", t -> t[0].logSoftmax(1), logits);
        float[] labels = new float[logits.shape(0)];
        for (int i = 0; i < labels.length; i++) labels[i] = random.nextInt(5);
        NDArray y = NDArray.of(labels, labels.length);
        GradCheck.check("softmax cross-entropy", t -> Functions.softmaxCrossEntropy(t[0], y), logits);
    }

    @Test
    void convolutionWithStrideAndPadding() {
        GradCheck.check("conv2d 3x3 pad 1", t -> Functions.conv2d(t[0], t[1], 1, 1), rand(-1, 1, 2, 3, 5, 4), rand(-1, 1, 4, 3, 3, 3));
        GradCheck.check("conv2d stride 2", t -> Functions.conv2d(t[0], t[1], 2, 0), rand(-1, 1, 1, 2, 7, 6), rand(-1, 1, 3, 2, 3, 2));
        GradCheck.check("conv2d + bias", t -> Functions.conv2d(t[0], t[1], 1, 0).add(t[2].reshape(1, 2, 1, 1)),
                rand(-1, 1, 2, 1, 4, 4), rand(-1, 1, 2, 1, 2, 2), rand(-1, 1, 2));
    }

    @Test
    void maxPoolDropoutBatchNorm() {
        GradCheck.check("maxPool2d 2x2", t -> Functions.maxPool2d(t[0], 2, 2, 0), distinct(2, 2, 4, 6));
        GradCheck.check("maxPool2d 3x3 stride 2 pad 1", t -> Functions.maxPool2d(t[0], 3, 2, 1), distinct(1, 2, 5, 5));
        GradCheck.check("dropout", t -> Functions.dropout(t[0], 0.4f, new Rng(7)), rand(-1, 1, 4, 6));
        GradCheck.check("batchNorm2d", 3e-2, t -> Functions.batchNorm2d(t[0], t[1], t[2], 1e-5f),
                rand(-1, 1, 3, 2, 3, 2), rand(0.5f, 1.5f, 2), rand(-1, 1, 2));
    }

    @Test
    void theCheckerCatchesAWrongGradient() {
        // x^2 with a backward that forgets the factor 2: the check must fail
        class WrongSquare extends org.mpi2nccl.autograd.Function {
            NDArray x;
            protected NDArray forward(NDArray... in) { x = in[0]; return x.square(); }
            protected NDArray[] backward(NDArray g) { return new NDArray[] {g.mul(x)}; }
        }
        AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> GradCheck.check("wrong square", t -> new WrongSquare().apply(t[0]), rand(0.5f, 1f, 3)));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("analytic"), e.getMessage());
    }
}
