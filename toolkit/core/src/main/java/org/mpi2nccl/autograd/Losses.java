package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Shapes;

/** log-sum-exp, log-softmax and softmax cross-entropy, computed the stable way (shifted by the maximum). */
final class Losses {
    private Losses() {}

    /** log(sum(exp(x))) over axes, as max + log(sum(exp(x - max))). */
    static final class LogSumExp extends Function {
        final int[] axes;
        NDArray a, outKept;

        LogSumExp(int[] axes) { this.axes = axes.clone(); }

        protected NDArray forward(NDArray... in) {
            a = in[0];
            outKept = logSumExpKept(a, axes);
            int[] ax = Shapes.axes(axes, a.ndim(), "logsumexp");
            int[] outShape = new int[a.ndim() - ax.length];
            boolean[] red = new boolean[a.ndim()];
            for (int x : ax) red[x] = true;
            for (int i = 0, j = 0; i < a.ndim(); i++) if (!red[i]) outShape[j++] = a.shape(i);
            return outKept.reshape(outShape);
        }

        protected NDArray[] backward(NDArray g) {
            // d/dx = softmax(x) = exp(x - lse)
            try (NDArray shifted = a.sub(outKept); NDArray soft = shifted.exp();
                 NDArray gk = g.reshape(outKept.shape())) {
                return new NDArray[] {soft.mul(gk)};
            }
        }
    }

    /** The log-sum-exp with reduced axes kept as 1. */
    static NDArray logSumExpKept(NDArray a, int... axes) {
        try (NDArray m = a.reduce(ReduceOp.MAX, true, axes); NDArray shifted = a.sub(m); NDArray e = shifted.exp();
             NDArray s = e.reduce(ReduceOp.SUM, true, axes); NDArray l = s.log()) {
            return l.add(m);
        }
    }

    /** x - logsumexp(x) along one axis. */
    static final class LogSoftmax extends Function {
        final int axis;
        NDArray out;

        LogSoftmax(int axis) { this.axis = axis; }

        protected NDArray forward(NDArray... in) {
            try (NDArray lse = logSumExpKept(in[0], axis)) {
                return out = in[0].sub(lse);
            }
        }

        protected NDArray[] backward(NDArray g) {
            // g - softmax * sum(g)
            try (NDArray soft = out.exp(); NDArray gs = g.reduce(ReduceOp.SUM, true, axis); NDArray p = soft.mul(gs)) {
                return new NDArray[] {g.sub(p)};
            }
        }
    }

    /**
     * Mean over the batch of {@code -log softmax(logits)[label]}: logits (N, C), labels (N,) holding class
     * indices as floats (not differentiated). The gradient is (softmax - onehot) / N times the upstream gradient.
     * One backend call each way ({@link org.mpi2nccl.tensor.Backend#softmaxCrossEntropy} and its backward): one
     * kernel each on a GPU, where the composition of oneHot, log-sum-exp and sums took eighteen. The upstream
     * gradient stays on the device (reading it on the host would make every step wait for the GPU).
     */
    static final class SoftmaxCrossEntropy extends Function {
        final NDArray labels;
        NDArray logits, lab;

        SoftmaxCrossEntropy(NDArray labels) { this.labels = labels; }

        protected NDArray forward(NDArray... in) {
            if (in[0].ndim() != 2)
                throw new IllegalArgumentException("softmaxCrossEntropy: logits must be (batch, classes), got " + Shapes.str(in[0].shape()));
            int n = in[0].shape(0);
            if (labels.ndim() != 1 || labels.shape(0) != n)
                throw new IllegalArgumentException("softmaxCrossEntropy: labels of shape " + Shapes.str(labels.shape())
                        + " do not match logits of shape " + Shapes.str(in[0].shape()) + " (expected (" + n + ",))");
            if (!labels.device().equals(in[0].device()))
                throw new IllegalArgumentException("softmaxCrossEntropy: labels on " + labels.device() + ", logits on " + in[0].device()
                        + " (move the labels with NDArray.to(device) first)");
            if (n == 0) throw new IllegalArgumentException("softmaxCrossEntropy: an empty batch has no mean loss (logits of shape "
                    + Shapes.str(in[0].shape()) + ")");
            logits = in[0].compact();
            lab = labels.compact();
            NDArray loss = NDArray.empty(logits.device());
            logits.backend().softmaxCrossEntropy(logits.storage(), lab.storage(), loss.storage(), n, logits.shape(1));
            return loss;
        }

        protected NDArray[] backward(NDArray g) {
            NDArray grad = NDArray.empty(logits.device(), logits.shape());
            try (NDArray up = g.compact()) {
                logits.backend().softmaxCrossEntropyBackward(logits.storage(), lab.storage(), up.storage(), grad.storage(),
                        logits.shape(0), logits.shape(1));
            }
            return new NDArray[] {grad};
        }
    }
}
