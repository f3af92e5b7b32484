package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.Storage;

/**
 * Fused kernels of the CUDA backend beyond the {@link org.mpi2nccl.tensor.Backend} contract: the row-wise
 * softmax family, softmax cross-entropy and batch normalization, each one launch where composing contract
 * primitives takes several (and several temporaries). Operands are compact float32 storages of
 * {@link CudaBackend}; shapes are given as (rows, cols) or NCHW (n, c, hw = h*w).
 * <p>Reached as {@code ((CudaBackend) device.backend()).fused()}; the GPU test suite holds each to a plain-Java
 * reference (CudaFusedOpsTest).
 */
public final class FusedOps {
    private final CudaBackend backend;

    FusedOps(CudaBackend backend) {
        this.backend = backend;
    }

    // ---- softmax family over the last axis of (rows, cols) ------------------------------------------------

    public void softmax(Storage in, Storage out, long rows, long cols) {
        rowwise(Kernel.SOFTMAX, "softmax", in, out, rows, cols);
    }

    public void logSoftmax(Storage in, Storage out, long rows, long cols) {
        rowwise(Kernel.LOG_SOFTMAX, "logSoftmax", in, out, rows, cols);
    }

    /** out[row] = log(sum(exp(in[row, :]))), stable for large values. */
    public void logSumExp(Storage in, Storage out, long rows, long cols) {
        long pi = ptr(in, "logSumExp in", rows * cols), po = ptr(out, "logSumExp out", rows);
        backend.context().launch(Kernel.LOGSUMEXP_ROWS, rows, KernelArgs.of().ptr(pi).ptr(po).i64(rows).i64(cols));
    }

    /** gx = y * (gy - sum(gy * y)) with y = softmax(x). */
    public void softmaxBackward(Storage y, Storage gy, Storage gx, long rows, long cols) {
        backward(Kernel.SOFTMAX_BACKWARD, "softmaxBackward", y, gy, gx, rows, cols);
    }

    /** gx = gy - exp(y) * sum(gy) with y = logSoftmax(x). */
    public void logSoftmaxBackward(Storage y, Storage gy, Storage gx, long rows, long cols) {
        backward(Kernel.LOG_SOFTMAX_BACKWARD, "logSoftmaxBackward", y, gy, gx, rows, cols);
    }

    // ---- softmax cross-entropy with class labels (as floats) ------------------------------------------------

    /** loss[row] = logsumexp(logits[row]) - logits[row, label[row]]; NaN for a label that is not a class. */
    public void crossEntropy(Storage logits, Storage labels, Storage lossPerRow, long rows, long cols) {
        long pl = ptr(logits, "crossEntropy logits", rows * cols), py = ptr(labels, "crossEntropy labels", rows);
        long po = ptr(lossPerRow, "crossEntropy loss", rows);
        backend.context().launch(Kernel.CROSS_ENTROPY_FORWARD, rows, KernelArgs.of().ptr(pl).ptr(py).ptr(po).i64(rows).i64(cols));
    }

    /** grad = scale * (softmax(logits) - onehot(labels)); scale = dLoss/rows for the mean loss. */
    public void crossEntropyBackward(Storage logits, Storage labels, Storage grad, long rows, long cols, float scale) {
        long pl = ptr(logits, "crossEntropyBackward logits", rows * cols), py = ptr(labels, "crossEntropyBackward labels", rows);
        long pg = ptr(grad, "crossEntropyBackward grad", rows * cols);
        backend.context().launch(Kernel.CROSS_ENTROPY_BACKWARD, rows,
                KernelArgs.of().ptr(pl).ptr(py).ptr(pg).i64(rows).i64(cols).f32(scale));
    }

    // ---- batch normalization over NCHW (statistics per channel over n*hw values) -----------------------------

    /** mean[c] and biased var[c] of x (n, c, hw). */
    public void batchNormStats(Storage x, Storage mean, Storage var, long n, long c, long hw) {
        long px = ptr(x, "batchNormStats x", n * c * hw), pm = ptr(mean, "batchNormStats mean", c), pv = ptr(var, "batchNormStats var", c);
        backend.context().launch(Kernel.BATCHNORM_STATS, c, KernelArgs.of().ptr(px).ptr(pm).ptr(pv).i64(n).i64(c).i64(hw));
    }

    /** y = gamma * (x - mean) / sqrt(var + eps) + beta (training: batch statistics; evaluation: running ones). */
    public void batchNormApply(Storage x, Storage mean, Storage var, Storage gamma, Storage beta, Storage y,
                               long n, long c, long hw, float eps) {
        long size = n * c * hw;
        backend.context().launch(Kernel.BATCHNORM_APPLY, size, KernelArgs.of()
                .ptr(ptr(x, "batchNormApply x", size)).ptr(ptr(mean, "batchNormApply mean", c)).ptr(ptr(var, "batchNormApply var", c))
                .ptr(ptr(gamma, "batchNormApply gamma", c)).ptr(ptr(beta, "batchNormApply beta", c)).ptr(ptr(y, "batchNormApply y", size))
                .i64(n).i64(c).i64(hw).f32(eps));
    }

    /** running = (1 - momentum) * running + momentum * batch, the batch variance made unbiased over m = n*hw values. */
    public void batchNormRunningUpdate(Storage runningMean, Storage runningVar, Storage mean, Storage var, long c, long m, float momentum) {
        backend.context().launch(Kernel.BATCHNORM_RUNNING_UPDATE, c, KernelArgs.of()
                .ptr(ptr(runningMean, "batchNormRunningUpdate runningMean", c)).ptr(ptr(runningVar, "batchNormRunningUpdate runningVar", c))
                .ptr(ptr(mean, "batchNormRunningUpdate mean", c)).ptr(ptr(var, "batchNormRunningUpdate var", c))
                .i64(c).i64(m).f32(momentum));
    }

    /** Training-mode backward: dgamma, dbeta per channel, then dx. */
    public void batchNormBackward(Storage gy, Storage x, Storage mean, Storage var, Storage gamma,
                                  Storage dgamma, Storage dbeta, Storage dx, long n, long c, long hw, float eps) {
        long size = n * c * hw;
        long pgy = ptr(gy, "batchNormBackward gy", size), px = ptr(x, "batchNormBackward x", size);
        long pm = ptr(mean, "batchNormBackward mean", c), pv = ptr(var, "batchNormBackward var", c);
        long pg = ptr(gamma, "batchNormBackward gamma", c), pdg = ptr(dgamma, "batchNormBackward dgamma", c);
        long pdb = ptr(dbeta, "batchNormBackward dbeta", c), pdx = ptr(dx, "batchNormBackward dx", size);
        backend.context().launch(Kernel.BATCHNORM_BACKWARD_REDUCE, c,
                KernelArgs.of().ptr(pgy).ptr(px).ptr(pm).ptr(pv).ptr(pdg).ptr(pdb).i64(n).i64(c).i64(hw).f32(eps));
        backend.context().launch(Kernel.BATCHNORM_BACKWARD_APPLY, size,
                KernelArgs.of().ptr(pgy).ptr(px).ptr(pm).ptr(pv).ptr(pg).ptr(pdg).ptr(pdb).ptr(pdx).i64(n).i64(c).i64(hw).f32(eps));
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private void rowwise(Kernel k, String op, Storage in, Storage out, long rows, long cols) {
        long pi = ptr(in, op + " in", rows * cols), po = ptr(out, op + " out", rows * cols);
        backend.context().launch(k, rows, KernelArgs.of().ptr(pi).ptr(po).i64(rows).i64(cols));
    }

    private void backward(Kernel k, String op, Storage y, Storage gy, Storage gx, long rows, long cols) {
        long n = rows * cols;
        backend.context().launch(k, rows, KernelArgs.of().ptr(ptr(y, op + " y", n)).ptr(ptr(gy, op + " gy", n))
                .ptr(ptr(gx, op + " gx", n)).i64(rows).i64(cols));
    }

    private long ptr(Storage s, String op, long n) {
        if (n < 0) throw new IllegalArgumentException(op + ": negative size " + n);
        long p = backend.address(s, op);
        CudaBackend.checkRange(op, s, 0, n);
        return p;
    }
}
