package org.mpi2nccl.tensor.cpu;

import java.util.concurrent.atomic.AtomicLong;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.BatchNormReluPool;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.CounterRandom;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * The CPU backend: heap float arrays, Java loops spread over the cores for elementwise work, BLAS (netlib's
 * JNI binding to the system's libblas.so.3, OpenBLAS on Debian) for GEMM. Synchronous: every call has
 * finished when it returns.
 */
public final class CpuBackend implements Backend {

    private static final CpuBackend INSTANCE = new CpuBackend();

    private final AtomicLong live = new AtomicLong();
    private final ArrayPool pool = new ArrayPool();

    private CpuBackend() {}

    public static CpuBackend instance() { return INSTANCE; }

    @Override
    public Device device() { return Device.cpu(); }

    @Override
    public String describe() {
        return "cpu (" + Parallel.THREADS + " threads; GEMM: " + Gemm.implementation() + ")";
    }

    // ---- memory ----------------------------------------------------------------------------------------------

    @Override
    public Storage allocate(long n) {
        if (n < 0 || n > Integer.MAX_VALUE - 8)
            throw new IllegalArgumentException("allocate: " + n + " elements is not a valid CPU array size");
        live.addAndGet(n);
        return new CpuStorage(this, pool.take((int) n));
    }

    void freed(float[] data) {
        live.addAndGet(-data.length);
        pool.give(data);
    }

    @Override
    public long liveElements() { return live.get(); }

    static float[] data(Storage s) {
        if (!(s instanceof CpuStorage c))
            throw new IllegalArgumentException("the CPU backend was given a storage of " + (s == null ? "null" : s.backend().device()));
        return c.data();
    }

    static void checkRange(String op, Storage s, long offset, long n) {
        if (offset < 0 || n < 0 || offset + n > s.size())
            throw new IllegalArgumentException(op + ": range [" + offset + ", " + (offset + n) + ") outside a storage of "
                    + s.size() + " elements");
    }

    @Override
    public void copyFromHost(float[] src, int srcOffset, Storage dst, long dstOffset, int n) {
        checkRange("copyFromHost", dst, dstOffset, n);
        System.arraycopy(src, srcOffset, data(dst), (int) dstOffset, n);
    }

    @Override
    public void copyToHost(Storage src, long srcOffset, float[] dst, int dstOffset, int n) {
        checkRange("copyToHost", src, srcOffset, n);
        System.arraycopy(data(src), (int) srcOffset, dst, dstOffset, n);
    }

    @Override
    public void copy(Storage src, long srcOffset, Storage dst, long dstOffset, long n) {
        checkRange("copy", src, srcOffset, n);
        checkRange("copy", dst, dstOffset, n);
        System.arraycopy(data(src), (int) srcOffset, data(dst), (int) dstOffset, (int) n);
    }

    @Override
    public void fill(Storage dst, long offset, long n, float value) {
        checkRange("fill", dst, offset, n);
        float[] d = data(dst);
        int o = (int) offset;
        Parallel.range((int) n, 1, (from, to) -> java.util.Arrays.fill(d, o + from, o + to, value));
    }

    @Override
    public void copyStrided(Storage src, long srcOffset, long[] srcStrides, Storage dst, long dstOffset, long[] dstStrides, int[] shape) {
        StridedCopy.copy(data(src), srcOffset, srcStrides, data(dst), dstOffset, dstStrides, shape);
    }

    @Override
    public void fillStrided(Storage dst, long offset, long[] strides, int[] shape, float value) {
        StridedCopy.fill(data(dst), offset, strides, shape, value);
    }

    // ---- elementwise and reductions ------------------------------------------------------------------------

    @Override
    public void unary(UnaryOp op, Storage a, Storage out, long n) {
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), out, 0, n);
        Elementwise.unary(op, data(a), data(out), (int) n);
    }

    @Override
    public void binary(BinaryOp op, Storage a, Storage b, Storage out, long n) {
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), b, 0, n);
        checkRange(op.name(), out, 0, n);
        Elementwise.binary(op, data(a), data(b), data(out), (int) n);
    }

    @Override
    public void binaryScalar(BinaryOp op, Storage a, float scalar, Storage out, long n) {
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), out, 0, n);
        Elementwise.scalar(op, data(a), scalar, data(out), (int) n);
    }

    @Override
    public void binaryBroadcast(BinaryOp op, Storage a, Storage b, Storage out, long outer, long channels, long inner) {
        long n = outer * channels * inner;
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), b, 0, channels);
        checkRange(op.name(), out, 0, n);
        Elementwise.broadcast(op, data(a), data(b), data(out), (int) outer, (int) channels, (int) inner);
    }

    @Override
    public void channelSums(Storage a, Storage b, Storage sumA, Storage sumAB, long outer, long channels, long inner) {
        long n = outer * channels * inner;
        checkRange("channelSums a", a, 0, n);
        checkRange("channelSums b", b, 0, n);
        checkRange("channelSums sumA", sumA, 0, channels);
        checkRange("channelSums sumAB", sumAB, 0, channels);
        ChannelKernels.sums(data(a), data(b), data(sumA), data(sumAB), (int) outer, (int) channels, (int) inner);
    }

    @Override
    public void channelAffine(Storage a, Storage scaleA, Storage b, Storage scaleB, Storage shift, Storage out,
                              long outer, long channels, long inner) {
        long n = outer * channels * inner;
        checkRange("channelAffine a", a, 0, n);
        checkRange("channelAffine scaleA", scaleA, 0, channels);
        checkRange("channelAffine shift", shift, 0, channels);
        checkRange("channelAffine out", out, 0, n);
        if (b != null) {
            checkRange("channelAffine b", b, 0, n);
            checkRange("channelAffine scaleB", scaleB, 0, channels);
        }
        ChannelKernels.affine(data(a), data(scaleA), b == null ? null : data(b), b == null ? null : data(scaleB), data(shift), data(out),
                (int) outer, (int) channels, (int) inner);
    }

    @Override
    public void reluBackward(Storage x, Storage dy, Storage dx, long n) {
        checkRange("reluBackward x", x, 0, n);
        checkRange("reluBackward dy", dy, 0, n);
        checkRange("reluBackward dx", dx, 0, n);
        float[] a = data(x), g = data(dy), o = data(dx);
        Parallel.range((int) n, 1, (from, to) -> {
            for (int i = from; i < to; i++) o[i] = g[i] * (a[i] > 0f ? 1f : 0f);
        });
    }

    // ---- fused training layers ---------------------------------------------------------------------------------

    @Override
    public void batchNormForward(Storage x, Storage gamma, Storage beta, Storage y, Storage saveMean, Storage saveInvStd,
                                 Storage runningMean, Storage runningVar, long outer, long channels, long inner,
                                 float eps, float momentum) {
        long n = outer * channels * inner;
        if (outer * inner < 2) throw new IllegalArgumentException("batchNormForward: needs more than one value per channel, got "
                + outer + " x " + inner);
        if ((runningMean == null) != (runningVar == null))
            throw new IllegalArgumentException("batchNormForward: runningMean and runningVar go together (both or neither)");
        checkRange("batchNormForward x", x, 0, n);
        checkRange("batchNormForward y", y, 0, n);
        for (Storage s : new Storage[] {gamma, beta, saveMean, saveInvStd}) checkRange("batchNormForward per-channel", s, 0, channels);
        if (runningMean != null) {
            checkRange("batchNormForward runningMean", runningMean, 0, channels);
            checkRange("batchNormForward runningVar", runningVar, 0, channels);
        }
        TrainingLayerKernels.batchNormForward(data(x), data(gamma), data(beta), data(y), data(saveMean), data(saveInvStd),
                runningMean == null ? null : data(runningMean), runningMean == null ? null : data(runningVar),
                (int) outer, (int) channels, (int) inner, eps, momentum);
    }

    @Override
    public void batchNormBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                  Storage dx, Storage dgamma, Storage dbeta, long outer, long channels, long inner) {
        long n = outer * channels * inner;
        checkRange("batchNormBackward dy", dy, 0, n);
        checkRange("batchNormBackward x", x, 0, n);
        if (dx != null) checkRange("batchNormBackward dx", dx, 0, n);
        for (Storage s : new Storage[] {saveMean, saveInvStd, gamma, dgamma, dbeta}) checkRange("batchNormBackward per-channel", s, 0, channels);
        TrainingLayerKernels.batchNormBackward(data(dy), data(x), data(saveMean), data(saveInvStd), data(gamma),
                dx == null ? null : data(dx), data(dgamma), data(dbeta), (int) outer, (int) channels, (int) inner);
    }

    @Override
    public void batchNormReluPoolForward(Storage x, Storage gamma, Storage beta, Storage out, Storage saveMean,
                                         Storage saveInvStd, Storage runningMean, Storage runningVar,
                                         long n, long c, long h, long w, float eps, float momentum) {
        ConvGeometry g = BatchNormReluPool.pooling(n, c, h, w);
        if ((runningMean == null) != (runningVar == null))
            throw new IllegalArgumentException("batchNormReluPoolForward: runningMean and runningVar go together (both or neither)");
        checkRange("batchNormReluPoolForward x", x, 0, g.inputSize());
        checkRange("batchNormReluPoolForward out", out, 0, (long) g.n() * g.c() * g.outH() * g.outW());
        for (Storage s : new Storage[] {gamma, beta, saveMean, saveInvStd}) checkRange("batchNormReluPoolForward per-channel", s, 0, c);
        if (runningMean != null) {
            checkRange("batchNormReluPoolForward runningMean", runningMean, 0, c);
            checkRange("batchNormReluPoolForward runningVar", runningVar, 0, c);
        }
        BatchNormReluPoolKernels.forward(data(x), data(gamma), data(beta), data(out), data(saveMean), data(saveInvStd),
                runningMean == null ? null : data(runningMean), runningMean == null ? null : data(runningVar),
                g.n(), g.c(), g.h(), g.w(), eps, momentum);
    }

    @Override
    public void batchNormReluPoolBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                          Storage beta, Storage dx, Storage dgamma, Storage dbeta,
                                          long n, long c, long h, long w) {
        ConvGeometry g = BatchNormReluPool.pooling(n, c, h, w);
        checkRange("batchNormReluPoolBackward dy", dy, 0, (long) g.n() * g.c() * g.outH() * g.outW());
        checkRange("batchNormReluPoolBackward x", x, 0, g.inputSize());
        checkRange("batchNormReluPoolBackward dx", dx, 0, g.inputSize());
        for (Storage s : new Storage[] {saveMean, saveInvStd, gamma, beta, dgamma, dbeta}) checkRange("batchNormReluPoolBackward per-channel", s, 0, c);
        BatchNormReluPoolKernels.backward(data(dy), data(x), data(saveMean), data(saveInvStd), data(gamma), data(beta), data(dx),
                data(dgamma), data(dbeta), g.n(), g.c(), g.h(), g.w());
    }

    @Override
    public void softmaxCrossEntropy(Storage logits, Storage labels, Storage loss, long rows, int classes) {
        checkCrossEntropy("softmaxCrossEntropy", logits, labels, rows, classes);
        checkRange("softmaxCrossEntropy loss", loss, 0, 1);
        data(loss)[0] = TrainingLayerKernels.crossEntropyMean(data(logits), data(labels), (int) rows, classes);
    }

    @Override
    public void softmaxCrossEntropyBackward(Storage logits, Storage labels, Storage upstream, Storage grad, long rows, int classes) {
        checkCrossEntropy("softmaxCrossEntropyBackward", logits, labels, rows, classes);
        checkRange("softmaxCrossEntropyBackward upstream", upstream, 0, 1);
        checkRange("softmaxCrossEntropyBackward grad", grad, 0, rows * classes);
        TrainingLayerKernels.crossEntropyBackward(data(logits), data(labels), data(upstream)[0], data(grad), (int) rows, classes);
    }

    @Override
    public void addBatchMetrics(Storage logits, Storage labels, Storage loss, Storage sums, long rows, int classes) {
        checkCrossEntropy("addBatchMetrics", logits, labels, rows, classes);
        checkRange("addBatchMetrics loss", loss, 0, 1);
        checkRange("addBatchMetrics sums", sums, 0, 2);
        float[] s = data(sums);
        s[0] += data(loss)[0] * rows;
        s[1] += TrainingLayerKernels.hits(data(logits), data(labels), (int) rows, classes);
    }

    private static void checkCrossEntropy(String op, Storage logits, Storage labels, long rows, int classes) {
        if (rows < 1 || classes < 1)
            throw new IllegalArgumentException(op + ": needs at least one row and one class, got " + rows + " x " + classes);
        checkRange(op + " logits", logits, 0, rows * classes);
        checkRange(op + " labels", labels, 0, rows);
    }

    @Override
    public void reduce(ReduceOp op, Storage a, Storage out, long outer, long reduced, long inner) {
        if (reduced < 1) throw new IllegalArgumentException("reduce: reduced axis must have >= 1 element, got " + reduced);
        checkRange("reduce", a, 0, outer * reduced * inner);
        checkRange("reduce", out, 0, outer * inner);
        Reductions.reduce(op, data(a), data(out), (int) outer, (int) reduced, (int) inner);
    }

    @Override
    public void matmul(Storage a, Storage b, Storage out, int batch, int m, int n, int k,
                       boolean transA, boolean transB, long strideA, long strideB) {
        checkRange("matmul A", a, 0, (batch - 1) * strideA + (long) m * k);
        checkRange("matmul B", b, 0, (batch - 1) * strideB + (long) k * n);
        checkRange("matmul out", out, 0, (long) batch * m * n);
        Gemm.batched(data(a), data(b), data(out), batch, m, n, k, transA, transB, (int) strideA, (int) strideB);
    }

    // ---- convolution and pooling ---------------------------------------------------------------------------

    @Override
    public void im2col(Storage x, Storage cols, ConvGeometry g) {
        checkRange("im2col x", x, 0, g.inputSize());
        checkRange("im2col cols", cols, 0, (long) g.n() * g.colRows() * g.colCols());
        ConvKernels.im2col(data(x), data(cols), g);
    }

    @Override
    public void col2im(Storage cols, Storage dx, ConvGeometry g) {
        checkRange("col2im cols", cols, 0, (long) g.n() * g.colRows() * g.colCols());
        checkRange("col2im dx", dx, 0, g.inputSize());
        ConvKernels.col2im(data(cols), data(dx), g);
    }

    @Override
    public void maxPool2d(Storage x, Storage out, ConvGeometry g) {
        checkRange("maxPool2d x", x, 0, g.inputSize());
        checkRange("maxPool2d out", out, 0, (long) g.n() * g.c() * g.outH() * g.outW());
        ConvKernels.maxPool(data(x), data(out), g);
    }

    @Override
    public void maxPool2dBackward(Storage x, Storage dy, Storage dx, ConvGeometry g) {
        checkRange("maxPool2dBackward x", x, 0, g.inputSize());
        checkRange("maxPool2dBackward dy", dy, 0, (long) g.n() * g.c() * g.outH() * g.outW());
        checkRange("maxPool2dBackward dx", dx, 0, g.inputSize());
        ConvKernels.maxPoolBackward(data(x), data(dy), data(dx), g);
    }

    // ---- labels, random numbers, optimizers --------------------------------------------------------------

    @Override
    public void oneHot(Storage labels, Storage out, long n, int classes) {
        checkRange("oneHot labels", labels, 0, n);
        checkRange("oneHot out", out, 0, n * classes);
        float[] l = data(labels), o = data(out);
        java.util.Arrays.fill(o, 0, (int) (n * classes), 0f);
        for (int i = 0; i < n; i++) {
            float v = l[i];
            int c = (int) v;
            if (c != v || c < 0 || c >= classes)
                throw new IllegalArgumentException("oneHot: label " + v + " at position " + i + " is not a class in [0, " + classes + ")");
            o[i * classes + c] = 1f;
        }
    }

    @Override
    public void fillUniform(Storage out, long n, float low, float high, long seed, long counter) {
        checkRange("fillUniform", out, 0, n);
        float[] o = data(out);
        float span = high - low;
        Parallel.range((int) n, 8, (from, to) -> {
            for (int i = from; i < to; i++) o[i] = low + span * CounterRandom.uniform(seed, counter + i);
        });
    }

    @Override
    public void fillNormal(Storage out, long n, float mean, float std, long seed, long counter) {
        checkRange("fillNormal", out, 0, n);
        float[] o = data(out);
        Parallel.range((int) n, 32, (from, to) -> {
            for (int i = from; i < to; i++) o[i] = mean + std * CounterRandom.normal(seed, counter + i);
        });
    }

    @Override
    public void sgdStep(Storage param, Storage grad, Storage velocity, long n, float lr, float momentum, float weightDecay) {
        checkRange("sgdStep param", param, 0, n);
        checkRange("sgdStep grad", grad, 0, n);
        if (momentum != 0f) checkRange("sgdStep velocity", velocity, 0, n);
        OptimizerKernels.sgd(data(param), data(grad), momentum != 0f ? data(velocity) : null, (int) n, lr, momentum, weightDecay);
    }

    @Override
    public void adamStep(Storage param, Storage grad, Storage m, Storage v, long n, float lr, float beta1, float beta2,
                         float eps, float weightDecay, long step) {
        checkRange("adamStep param", param, 0, n);
        checkRange("adamStep grad", grad, 0, n);
        checkRange("adamStep m", m, 0, n);
        checkRange("adamStep v", v, 0, n);
        if (step < 1) throw new IllegalArgumentException("adamStep: step counts from 1, got " + step);
        OptimizerKernels.adam(data(param), data(grad), data(m), data(v), (int) n, lr, beta1, beta2, eps, weightDecay, step);
    }

    @Override
    public void synchronize() {
        // every CPU call is complete when it returns
    }
}
