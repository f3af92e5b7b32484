package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.Storage;

/**
 * Fused kernels of the CUDA backend beyond the {@link org.mpi2nccl.tensor.Backend} contract: the row-wise
 * softmax family, each one launch where composing contract primitives takes several (and several temporaries),
 * and the kernels behind the contract's training layers. Operands are compact float32 storages of
 * {@link CudaBackend}; shapes are given as (rows, cols) or NCHW (n, c, hw = h*w).
 * <p>Reached as {@code ((CudaBackend) device.backend()).fused()}; the GPU test suite holds the softmax family to a
 * plain-Java reference (CudaFusedOpsTest). The training layers of the Backend contract ({@code batchNormForward/Backward},
 * {@code softmaxCrossEntropy/Backward}) run on {@link #batchNormTraining}, {@link #batchNormTrainingBackward} and the
 * one-block cross-entropy here (CudaTrainingLayers; tested by CudaBackendContractTest): autograd reaches them through
 * the contract, never here.
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

    // ---- the training layers of the Backend contract (batchNormForward/Backward, softmaxCrossEntropy/Backward) ----

    /**
     * Training-mode batch norm forward in two launches: per-channel statistics (kept as mean and 1/sqrt(var + eps),
     * the running averages updated in place unless {@code runningMean} is null), then the normalization.
     */
    public void batchNormTraining(Storage x, Storage gamma, Storage beta, Storage y, Storage saveMean, Storage saveInvStd,
                                  Storage runningMean, Storage runningVar, long n, long c, long hw, float eps, float momentum) {
        long size = n * c * hw;
        long px = ptr(x, "batchNormForward x", size), py = ptr(y, "batchNormForward y", size);
        long pm = ptr(saveMean, "batchNormForward saveMean", c), pi = ptr(saveInvStd, "batchNormForward saveInvStd", c);
        long pg = ptr(gamma, "batchNormForward gamma", c), pb = ptr(beta, "batchNormForward beta", c);
        statistics("batchNormForward", px, pm, pi, runningMean, runningVar, n, c, hw, eps, momentum);
        backend.context().launch(Kernel.BATCHNORM_FORWARD_APPLY, size,
                KernelArgs.of().ptr(px).ptr(pm).ptr(pi).ptr(pg).ptr(pb).ptr(py).i64(n).i64(c).i64(hw));
    }

    /** Per-channel mean and 1/sqrt(var + eps) of x, the running averages updated in place unless null. */
    private void statistics(String op, long px, long pm, long pi, Storage runningMean, Storage runningVar, long n, long c, long hw,
                            float eps, float momentum) {
        long prm = 0, prv = 0;
        if (runningMean != null) {
            prm = ptr(runningMean, op + " runningMean", c);
            prv = ptr(runningVar, op + " runningVar", c);
        }
        long slices = channelSlices(n, c);
        synchronized (this) {
            backend.context().launch(Kernel.BATCHNORM_FORWARD_STATS, c * slices,
                    KernelArgs.of().ptr(px).ptr(pm).ptr(pi).ptr(prm).ptr(prv).i64(n).i64(c).i64(hw).f32(eps).f32(momentum)
                            .ptr(channelPartials(c, slices)).ptr(channelArrivals(c)).i64(slices));
        }
    }

    /**
     * Batch norm (training), ReLU and 2x2 max pooling with stride 2 in two launches (native/bn_relu_pool.cu): the
     * statistics, then one pass that reads x and writes only the pooled {@code out}. h and w even.
     */
    public void batchNormReluPool(Storage x, Storage gamma, Storage beta, Storage out, Storage saveMean, Storage saveInvStd,
                                  Storage runningMean, Storage runningVar, long n, long c, long h, long w, float eps, float momentum) {
        long size = n * c * h * w;
        long px = ptr(x, "batchNormReluPoolForward x", size), po = ptr(out, "batchNormReluPoolForward out", size / 4);
        long pm = ptr(saveMean, "batchNormReluPoolForward saveMean", c), pi = ptr(saveInvStd, "batchNormReluPoolForward saveInvStd", c);
        long pg = ptr(gamma, "batchNormReluPoolForward gamma", c), pb = ptr(beta, "batchNormReluPoolForward beta", c);
        statistics("batchNormReluPoolForward", px, pm, pi, runningMean, runningVar, n, c, h * w, eps, momentum);
        backend.context().launch(Kernel.BN_RELU_POOL_FORWARD, size / 4,
                KernelArgs.of().ptr(px).ptr(pm).ptr(pi).ptr(pg).ptr(pb).ptr(po).i64(n).i64(c).i64(h).i64(w));
    }

    /** Backward of {@link #batchNormReluPool}: dgamma and dbeta per channel, then dx, each one pass over x and dy. */
    public void batchNormReluPoolBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma, Storage beta,
                                          Storage dx, Storage dgamma, Storage dbeta, long n, long c, long h, long w) {
        long size = n * c * h * w;
        long pdy = ptr(dy, "batchNormReluPoolBackward dy", size / 4), px = ptr(x, "batchNormReluPoolBackward x", size);
        long pm = ptr(saveMean, "batchNormReluPoolBackward saveMean", c), pi = ptr(saveInvStd, "batchNormReluPoolBackward saveInvStd", c);
        long pg = ptr(gamma, "batchNormReluPoolBackward gamma", c), pb = ptr(beta, "batchNormReluPoolBackward beta", c);
        long pdg = ptr(dgamma, "batchNormReluPoolBackward dgamma", c), pdb = ptr(dbeta, "batchNormReluPoolBackward dbeta", c);
        long pdx = ptr(dx, "batchNormReluPoolBackward dx", size);
        long slices = channelSlices(n, c);
        synchronized (this) {
            backend.context().launch(Kernel.BN_RELU_POOL_GRAD_SUMS, c * slices,
                    KernelArgs.of().ptr(pdy).ptr(px).ptr(pm).ptr(pi).ptr(pg).ptr(pb).ptr(pdg).ptr(pdb).i64(n).i64(c).i64(h).i64(w)
                            .ptr(channelPartials(c, slices)).ptr(channelArrivals(c)).i64(slices));
        }
        backend.context().launch(Kernel.BN_RELU_POOL_INPUT_GRAD, size / 4,
                KernelArgs.of().ptr(pdy).ptr(px).ptr(pm).ptr(pi).ptr(pg).ptr(pb).ptr(pdg).ptr(pdb).ptr(pdx).i64(n).i64(c).i64(h).i64(w));
    }

    /** Backward of {@link #batchNormTraining}: dgamma, dbeta per channel, then dx (skipped when {@code dx} is null). */
    public void batchNormTrainingBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                          Storage dx, Storage dgamma, Storage dbeta, long n, long c, long hw) {
        long size = n * c * hw;
        long pgy = ptr(dy, "batchNormBackward dy", size), px = ptr(x, "batchNormBackward x", size);
        long pm = ptr(saveMean, "batchNormBackward saveMean", c), pi = ptr(saveInvStd, "batchNormBackward saveInvStd", c);
        long pg = ptr(gamma, "batchNormBackward gamma", c), pdg = ptr(dgamma, "batchNormBackward dgamma", c);
        long pdb = ptr(dbeta, "batchNormBackward dbeta", c);
        long slices = channelSlices(n, c);
        synchronized (this) {
            backend.context().launch(Kernel.BATCHNORM_GRAD_SUMS, c * slices,
                    KernelArgs.of().ptr(pgy).ptr(px).ptr(pm).ptr(pi).ptr(pdg).ptr(pdb).i64(n).i64(c).i64(hw)
                            .ptr(channelPartials(c, slices)).ptr(channelArrivals(c)).i64(slices));
        }
        if (dx == null) return;
        long pdx = ptr(dx, "batchNormBackward dx", size);
        backend.context().launch(Kernel.BATCHNORM_INPUT_GRAD, size,
                KernelArgs.of().ptr(pgy).ptr(px).ptr(pm).ptr(pi).ptr(pg).ptr(pdg).ptr(pdb).ptr(pdx).i64(n).i64(c).i64(hw));
    }

    /**
     * loss[0] = mean cross-entropy over the rows, in one block; the first row whose label is not a class (or
     * INT_MAX) is written to the int at device address {@code firstBadRow} (a {@link LabelChecks} flag).
     */
    void crossEntropyMean(Storage logits, Storage labels, Storage loss, long rows, long cols, long firstBadRow) {
        long pl = ptr(logits, "softmaxCrossEntropy logits", rows * cols), py = ptr(labels, "softmaxCrossEntropy labels", rows);
        long po = ptr(loss, "softmaxCrossEntropy loss", 1);
        backend.context().launch(Kernel.CROSS_ENTROPY_MEAN, 1,
                KernelArgs.of().ptr(pl).ptr(py).ptr(po).i64(rows).i64(cols).ptr(firstBadRow));
    }

    /** grad = upstream[0] / rows * (softmax(logits) - onehot(labels)), the upstream gradient read on the GPU. */
    public void crossEntropyMeanBackward(Storage logits, Storage labels, Storage upstream, Storage grad, long rows, long cols) {
        long pl = ptr(logits, "softmaxCrossEntropyBackward logits", rows * cols);
        long py = ptr(labels, "softmaxCrossEntropyBackward labels", rows);
        long pu = ptr(upstream, "softmaxCrossEntropyBackward upstream", 1);
        long pg = ptr(grad, "softmaxCrossEntropyBackward grad", rows * cols);
        backend.context().launch(Kernel.CROSS_ENTROPY_MEAN_BACKWARD, rows,
                KernelArgs.of().ptr(pl).ptr(py).ptr(pu).ptr(pg).i64(rows).i64(cols));
    }

    // ---- the per-channel reductions' scratch -------------------------------------------------------------------

    // Two blocks, so that no layer's partial sums can overwrite another layer's counters: the arrival counters, one
    // per channel, zero between launches (zeroed once; each kernel resets those it used), and the partial sums.
    private DeviceMemory channelArrivals;
    private DeviceMemory channelPartials;

    /**
     * How many blocks share one channel's sums: enough that all channels together fill the GPU about four blocks
     * per SM (a 32-channel layer would otherwise run on 32 SMs), each with at least one sample of the batch.
     */
    long channelSlices(long n, long c) {
        long wanted = (4L * backend.context().device.multiprocessors + c - 1) / Math.max(1, c);
        return Math.max(1, Math.min(Math.min(n, 64), wanted));
    }

    /** The partial sums' address for {@code c} channels in {@code slices} (grown when too small). */
    private long channelPartials(long c, long slices) {
        long bytes = c * slices * 16;
        if (channelPartials == null || channelPartials.bytes() < bytes) {
            if (channelPartials != null) channelPartials.close();     // freed after the work queued so far
            channelPartials = DeviceMemory.allocateUnscoped(backend.context(), (bytes + 255) / 256 * 256);
        }
        return channelPartials.address();
    }

    /** The arrival counters' address for {@code c} channels, all zero (grown, and zeroed, when too small). */
    private long channelArrivals(long c) {
        long bytes = c * 4;
        if (channelArrivals == null || channelArrivals.bytes() < bytes) {
            if (channelArrivals != null) channelArrivals.close();
            channelArrivals = DeviceMemory.allocateUnscoped(backend.context(), (bytes + 255) / 256 * 256);
            channelArrivals.zero();
        }
        return channelArrivals.address();
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
