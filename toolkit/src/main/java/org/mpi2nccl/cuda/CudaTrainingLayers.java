package org.mpi2nccl.cuda;

import static org.mpi2nccl.cuda.CudaBackend.checkRange;

import org.mpi2nccl.tensor.BatchNormReluPool;
import org.mpi2nccl.tensor.Storage;

/**
 * The training layers of {@link CudaBackend}: batch norm's per-channel primitives (channelSums, channelAffine,
 * which a backend without fused layers composes batch norm from), ReLU's backward, training-mode batch norm (forward and
 * backward), the mean softmax cross-entropy (forward and backward) and the epoch's loss and hit sums, each one
 * or two launches where composing the contract's primitives takes several (and several temporaries). Batch norm
 * and cross-entropy run on {@link FusedOps}' kernels; a bad label is reported later, through {@link LabelChecks},
 * so that no step waits for the GPU.
 */
final class CudaTrainingLayers {
    private final CudaBackend backend;
    private final CudaContext context;
    private final FusedOps fused;
    private final LabelChecks labelChecks;

    CudaTrainingLayers(CudaBackend backend, CudaContext context, FusedOps fused, LabelChecks labelChecks) {
        this.backend = backend;
        this.context = context;
        this.fused = fused;
        this.labelChecks = labelChecks;
    }

    /** One block per channel, sums in double. */
    void channelSums(Storage a, Storage b, Storage sumA, Storage sumAB, long outer, long channels, long inner) {
        long n = outer * channels * inner;
        long pa = address(a, "channelSums a"), pb = address(b, "channelSums b");
        long ps = address(sumA, "channelSums sumA"), pab = address(sumAB, "channelSums sumAB");
        checkRange("channelSums a", a, 0, n);
        checkRange("channelSums b", b, 0, n);
        checkRange("channelSums sumA", sumA, 0, channels);
        checkRange("channelSums sumAB", sumAB, 0, channels);
        context.launch(Kernel.CHANNEL_SUMS, channels, KernelArgs.of().ptr(pa).ptr(pb).ptr(ps).ptr(pab).i64(outer).i64(channels).i64(inner));
    }

    void channelAffine(Storage a, Storage scaleA, Storage b, Storage scaleB, Storage shift, Storage out,
                       long outer, long channels, long inner) {
        long n = outer * channels * inner;
        long pa = address(a, "channelAffine a"), psa = address(scaleA, "channelAffine scaleA");
        long psh = address(shift, "channelAffine shift"), po = address(out, "channelAffine out");
        checkRange("channelAffine a", a, 0, n);
        checkRange("channelAffine scaleA", scaleA, 0, channels);
        checkRange("channelAffine shift", shift, 0, channels);
        checkRange("channelAffine out", out, 0, n);
        long pb = 0, psb = 0;
        if (b != null) {
            if (scaleB == null) throw new IllegalArgumentException("channelAffine: b given without scaleB");
            pb = address(b, "channelAffine b");
            psb = address(scaleB, "channelAffine scaleB");
            checkRange("channelAffine b", b, 0, n);
            checkRange("channelAffine scaleB", scaleB, 0, channels);
        }
        context.launch(Kernel.CHANNEL_AFFINE, n, KernelArgs.of().ptr(pa).ptr(psa).ptr(pb).ptr(psb).ptr(psh).ptr(po)
                .i64(outer).i64(channels).i64(inner));
    }

    void reluBackward(Storage x, Storage dy, Storage dx, long n) {
        long px = address(x, "reluBackward x"), pg = address(dy, "reluBackward dy"), po = address(dx, "reluBackward dx");
        checkRange("reluBackward x", x, 0, n);
        checkRange("reluBackward dy", dy, 0, n);
        checkRange("reluBackward dx", dx, 0, n);
        context.launch(Kernel.RELU_BACKWARD, n, KernelArgs.of().ptr(px).ptr(pg).ptr(po).i64(n));
    }

    void batchNormForward(Storage x, Storage gamma, Storage beta, Storage y, Storage saveMean, Storage saveInvStd,
                          Storage runningMean, Storage runningVar, long outer, long channels, long inner,
                          float eps, float momentum) {
        if (outer * inner < 2) throw new IllegalArgumentException("batchNormForward: needs more than one value per channel, got "
                + outer + " x " + inner);
        if ((runningMean == null) != (runningVar == null))
            throw new IllegalArgumentException("batchNormForward: runningMean and runningVar go together (both or neither)");
        fused.batchNormTraining(x, gamma, beta, y, saveMean, saveInvStd, runningMean, runningVar, outer, channels, inner, eps, momentum);
    }

    void batchNormBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                           Storage dx, Storage dgamma, Storage dbeta, long outer, long channels, long inner) {
        fused.batchNormTrainingBackward(dy, x, saveMean, saveInvStd, gamma, dx, dgamma, dbeta, outer, channels, inner);
    }

    void batchNormReluPoolForward(Storage x, Storage gamma, Storage beta, Storage out, Storage saveMean, Storage saveInvStd,
                                  Storage runningMean, Storage runningVar, long n, long c, long h, long w, float eps, float momentum) {
        BatchNormReluPool.pooling(n, c, h, w);
        if ((runningMean == null) != (runningVar == null))
            throw new IllegalArgumentException("batchNormReluPoolForward: runningMean and runningVar go together (both or neither)");
        fused.batchNormReluPool(x, gamma, beta, out, saveMean, saveInvStd, runningMean, runningVar, n, c, h, w, eps, momentum);
    }

    void batchNormReluPoolBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma, Storage beta,
                                   Storage dx, Storage dgamma, Storage dbeta, long n, long c, long h, long w) {
        BatchNormReluPool.pooling(n, c, h, w);
        fused.batchNormReluPoolBackward(dy, x, saveMean, saveInvStd, gamma, beta, dx, dgamma, dbeta, n, c, h, w);
    }

    /** One block computes the mean loss; the bad-label check is read later, like oneHot's ({@link LabelChecks}). */
    void softmaxCrossEntropy(Storage logits, Storage labels, Storage loss, long rows, int classes) {
        if (rows < 1 || classes < 1)
            throw new IllegalArgumentException("softmaxCrossEntropy: needs at least one row and one class, got " + rows + " x " + classes);
        long flag = labelChecks.flagFor(false);            // the kernel always writes it: no reset needed
        fused.crossEntropyMean(logits, labels, loss, rows, classes, flag);
        labelChecks.queued(flag, "softmaxCrossEntropy", rows, classes);
        if (context.syncEveryLaunch()) labelChecks.checkAll();
    }

    /** A row with a bad label gets NaN gradients (its forward call reports the label). */
    void softmaxCrossEntropyBackward(Storage logits, Storage labels, Storage upstream, Storage grad, long rows, int classes) {
        if (rows < 1 || classes < 1)
            throw new IllegalArgumentException("softmaxCrossEntropyBackward: needs at least one row and one class, got " + rows + " x " + classes);
        fused.crossEntropyMeanBackward(logits, labels, upstream, grad, rows, classes);
    }

    /** One block: the epoch's loss and hit sums accumulate on the GPU, one launch per step. */
    void addBatchMetrics(Storage logits, Storage labels, Storage loss, Storage sums, long rows, int classes) {
        if (rows < 1 || classes < 1)
            throw new IllegalArgumentException("addBatchMetrics: needs at least one row and one class, got " + rows + " x " + classes);
        long pl = address(logits, "addBatchMetrics logits"), py = address(labels, "addBatchMetrics labels");
        long pj = address(loss, "addBatchMetrics loss"), ps = address(sums, "addBatchMetrics sums");
        checkRange("addBatchMetrics logits", logits, 0, rows * classes);
        checkRange("addBatchMetrics labels", labels, 0, rows);
        checkRange("addBatchMetrics loss", loss, 0, 1);
        checkRange("addBatchMetrics sums", sums, 0, 2);
        context.launch(Kernel.BATCH_METRICS, 1, KernelArgs.of().ptr(pl).ptr(py).ptr(pj).ptr(ps).i64(rows).i64(classes));
    }

    /** Like the CPU, a label that is not a class is an error naming it: the kernel records the first bad row in a flag {@link LabelChecks} reads later. */
    void oneHot(Storage labels, Storage out, long n, int classes) {
        long pl = address(labels, "oneHot labels"), po = address(out, "oneHot out");
        if (classes < 1) throw new IllegalArgumentException("oneHot: classes must be >= 1, got " + classes);
        checkRange("oneHot labels", labels, 0, n);
        checkRange("oneHot out", out, 0, n * classes);
        if (n == 0) return;
        // The bad-label check reads its flag later (LabelChecks): waiting for it here would stall every step.
        long flag = labelChecks.flagFor(true);
        context.launch(Kernel.ONE_HOT, n * classes, KernelArgs.of().ptr(pl).ptr(po).i64(n).i64(classes).ptr(flag));
        labelChecks.queued(flag, "oneHot", n, classes);
        if (context.syncEveryLaunch()) labelChecks.checkAll();
    }

    private long address(Storage s, String op) {
        return backend.address(s, op);
    }
}
