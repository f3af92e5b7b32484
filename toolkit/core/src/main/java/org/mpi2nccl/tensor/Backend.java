package org.mpi2nccl.tensor;

/**
 * The primitives one device computes with: the contract every backend (CPU, CUDA) implements.
 * {@link NDArray} does shapes, strides, views and broadcasting on top of these and calls nothing else, so a
 * model runs on any device that implements this interface. The test suite
 * {@code org.mpi2nccl.tensor.BackendContractTest} checks a backend against plain-Java reference results;
 * a new backend subclasses it with its device.
 *
 * <h2>Rules common to every method</h2>
 * <ul>
 *   <li>Every {@link Storage} argument was allocated by this backend (implementations may cast it to their
 *       own class); element counts, offsets and strides are in float32 elements, never bytes.</li>
 *   <li><b>Compact operands.</b> Unless a method says otherwise it reads and writes elements
 *       {@code [0, n)} of its storages, which may be larger than {@code n}.</li>
 *   <li><b>Aliasing.</b> An elementwise method's {@code out} may be the very same storage as an input
 *       (in-place update); other overlaps are not allowed.</li>
 *   <li><b>Ordering.</b> Calls take effect in program order as seen by later calls on the same backend
 *       from the same thread. An asynchronous backend may queue work; {@link #copyToHost} and
 *       {@link #synchronize()} return only when the result is complete.</li>
 *   <li><b>No host access.</b> No method hands out a device buffer's host memory; data crosses between host
 *       and device only through {@link #copyFromHost} and {@link #copyToHost}.</li>
 *   <li><b>Errors.</b> Bad arguments (negative sizes, out-of-range offsets, a closed storage) throw
 *       {@link IllegalArgumentException} or {@link IllegalStateException} with the method and values named;
 *       never a silent out-of-bounds access.</li>
 *   <li><b>Precision.</b> float32 throughout; elementwise results agree with {@link BinaryOp#apply} /
 *       {@link UnaryOp#apply} within 1e-5 relative, reductions and GEMM within 1e-4 relative (no TF32
 *       unless a caller asks for it).</li>
 * </ul>
 * Helpers added after the first version (binaryBroadcast, channelSums, channelAffine) have a default
 * implementation composed of the others; a backend may override them with a faster kernel. The fused training
 * layers (batch norm, softmax cross-entropy) have none: each backend implements them in one pass.
 */
public interface Backend {

    /** The device this backend computes on. */
    Device device();

    /** A short human-readable description, e.g. "cpu (OpenBLAS via netlib JNIBLAS, 2 threads)". */
    String describe();

    // ---- memory -----------------------------------------------------------------------------------------

    /** A new storage of {@code n >= 0} elements; contents unspecified (callers fill or overwrite it). */
    Storage allocate(long n);

    /** Elements allocated through this backend and not yet closed (for leak tests and memory reports). */
    long liveElements();

    /** Copies {@code n} floats from the host array into {@code dst[dstOffset, dstOffset + n)}. */
    void copyFromHost(float[] src, int srcOffset, Storage dst, long dstOffset, int n);

    /** Copies {@code src[srcOffset, srcOffset + n)} into the host array; complete when it returns. */
    void copyToHost(Storage src, long srcOffset, float[] dst, int dstOffset, int n);

    /** Contiguous device-local copy of {@code n} elements; source and destination ranges must not overlap. */
    void copy(Storage src, long srcOffset, Storage dst, long dstOffset, long n);

    /** Sets {@code dst[offset, offset + n)} to {@code value}. */
    void fill(Storage dst, long offset, long n, float value);

    /**
     * The strided copy behind {@code compact()}, broadcasting and slice assignment: for every index tuple
     * {@code (i0, .., ik)} within {@code shape},
     * {@code dst[dstOffset + sum(ij * dstStrides[j])] = src[srcOffset + sum(ij * srcStrides[j])]}.
     * Source strides may be 0 (broadcast); destination elements must be distinct. {@code shape},
     * {@code srcStrides} and {@code dstStrides} have the same length (0 to 8 dimensions; 0 = one element).
     */
    void copyStrided(Storage src, long srcOffset, long[] srcStrides,
                     Storage dst, long dstOffset, long[] dstStrides, int[] shape);

    /** Sets every element of the strided view {@code (offset, strides, shape)} of {@code dst} to {@code value}. */
    void fillStrided(Storage dst, long offset, long[] strides, int[] shape, float value);

    // ---- elementwise --------------------------------------------------------------------------------------

    /** {@code out[i] = op(a[i])} for {@code i < n}. */
    void unary(UnaryOp op, Storage a, Storage out, long n);

    /** {@code out[i] = a[i] op b[i]} for {@code i < n}. */
    void binary(BinaryOp op, Storage a, Storage b, Storage out, long n);

    /** {@code out[i] = a[i] op scalar} for {@code i < n}. */
    void binaryScalar(BinaryOp op, Storage a, float scalar, Storage out, long n);

    /**
     * Elementwise with a broadcast operand, without expanding it: for the compact {@code a} and {@code out} of
     * shape {@code (outer, channels, inner)} and the compact {@code b} of {@code channels} elements,
     * {@code out[o, c, i] = a[o, c, i] op b[c]}. This is a bias over (batch, features) (outer = batch,
     * inner = 1), a per-channel scale over NCHW (outer = N, channels = C, inner = H*W), a per-row value
     * (outer = 1, inner = row length), or a device-resident scalar (channels = 1). {@code out} may be {@code a}.
     * The default expands {@code b} with {@link #copyStrided} and calls {@link #binary}.
     */
    default void binaryBroadcast(BinaryOp op, Storage a, Storage b, Storage out, long outer, long channels, long inner) {
        long n = outer * channels * inner;
        try (Storage expanded = allocate(n)) {
            copyStrided(b, 0, new long[] {0, 1, 0}, expanded, 0, new long[] {channels * inner, inner, 1},
                    new int[] {(int) outer, (int) channels, (int) inner});
            binary(op, a, expanded, out, n);
        }
    }

    // ---- per-channel helpers (batch-norm) ---------------------------------------------------------------------

    /**
     * Per-channel sums over the compact {@code (outer, channels, inner)} arrays {@code a} and {@code b}:
     * {@code sumA[c] = sum over o, i of a[o, c, i]} and {@code sumAB[c] = sum of a[o, c, i] * b[o, c, i]}
     * ({@code b} may be {@code a}: sums and sums of squares). Accumulate in double or with compensation:
     * batch-norm derives a variance from these.
     */
    default void channelSums(Storage a, Storage b, Storage sumA, Storage sumAB, long outer, long channels, long inner) {
        long n = outer * channels * inner;
        try (Storage prod = allocate(n); Storage partial = allocate(outer * channels)) {
            binary(BinaryOp.MUL, a, b, prod, n);
            reduce(ReduceOp.SUM, a, partial, outer * channels, inner, 1);
            reduce(ReduceOp.SUM, partial, sumA, 1, outer, channels);
            reduce(ReduceOp.SUM, prod, partial, outer * channels, inner, 1);
            reduce(ReduceOp.SUM, partial, sumAB, 1, outer, channels);
        }
    }

    /**
     * Per-channel affine combination over compact {@code (outer, channels, inner)} arrays:
     * {@code out[o, c, i] = a[o, c, i] * scaleA[c] + b[o, c, i] * scaleB[c] + shift[c]}; with {@code b} and
     * {@code scaleB} null, {@code out = a * scaleA[c] + shift[c]}. {@code out} may be {@code a} or {@code b}.
     */
    default void channelAffine(Storage a, Storage scaleA, Storage b, Storage scaleB, Storage shift, Storage out,
                               long outer, long channels, long inner) {
        long n = outer * channels * inner;
        try (Storage tmp = allocate(n)) {
            binaryBroadcast(BinaryOp.MUL, a, scaleA, tmp, outer, channels, inner);
            if (b != null) {
                try (Storage tb = allocate(n)) {
                    binaryBroadcast(BinaryOp.MUL, b, scaleB, tb, outer, channels, inner);
                    binary(BinaryOp.ADD, tmp, tb, tmp, n);
                }
            }
            binaryBroadcast(BinaryOp.ADD, tmp, shift, out, outer, channels, inner);
        }
    }

    /**
     * The gradient of ReLU: {@code dx[i] = dy[i] * (x[i] > 0 ? 1 : 0)} for {@code i < n}. {@code dx} may be {@code dy}.
     * The default composes {@link #binaryScalar} (GT) and {@link #binary} (MUL) with a temporary.
     */
    default void reluBackward(Storage x, Storage dy, Storage dx, long n) {
        try (Storage mask = allocate(n)) {
            binaryScalar(BinaryOp.GT, x, 0f, mask, n);
            binary(BinaryOp.MUL, dy, mask, dx, n);
        }
    }

    // ---- reductions -----------------------------------------------------------------------------------------

    /**
     * Reduces the middle axis of the compact array {@code a} of shape {@code (outer, reduced, inner)} into the
     * compact {@code out} of shape {@code (outer, inner)}: {@code out[o, i] = op over r of a[o, r, i]}.
     * {@code reduced >= 1}. Sums accumulate in float32 or better.
     */
    void reduce(ReduceOp op, Storage a, Storage out, long outer, long reduced, long inner);

    // ---- linear algebra ---------------------------------------------------------------------------------------

    /**
     * Batched row-major GEMM: for {@code t < batch}, {@code out[t] (m x n) = op(A[t]) (m x k) * op(B[t]) (k x n)},
     * where {@code A[t]} starts at element {@code t * strideA} of {@code a} and is stored row-major as
     * {@code (m, k)}, or as {@code (k, m)} when {@code transA} (likewise {@code B[t]} at {@code t * strideB},
     * {@code (k, n)} or {@code (n, k)} when {@code transB}). A stride of 0 uses one matrix for the whole batch.
     * {@code out} is compact {@code (batch, m, n)} and is overwritten. CPU: BLAS sgemm; CUDA: cuBLAS
     * (strided batched GEMM).
     */
    void matmul(Storage a, Storage b, Storage out, int batch, int m, int n, int k,
                boolean transA, boolean transB, long strideA, long strideB);

    // ---- convolution and pooling (NCHW) ---------------------------------------------------------------------

    /**
     * Unfolds the compact NCHW input {@code x} into {@code cols}, compact {@code (n, c*kh*kw, outH*outW)}:
     * {@code cols[s, (ch*kh + i)*kw + j, oy*outW + ox] = x[s, ch, oy*stride - pad + i, ox*stride - pad + j]},
     * 0 where that pixel lies in the padding. A convolution is then {@code W (oc, c*kh*kw) x cols[s]}
     * ({@link #matmul} with {@code strideA = 0}), which gives NCHW output directly.
     */
    void im2col(Storage x, Storage cols, ConvGeometry g);

    /** The adjoint of {@link #im2col}: overwrites {@code dx} (NCHW) with the sum of every column entry into its pixel. */
    void col2im(Storage cols, Storage dx, ConvGeometry g);

    /**
     * Max-pooling of the compact NCHW {@code x} with window {@code kh x kw}, {@code stride}, padding {@code pad}
     * (padding never wins) into compact {@code out} {@code (n, c, outH, outW)}.
     */
    void maxPool2d(Storage x, Storage out, ConvGeometry g);

    /**
     * Backward of {@link #maxPool2d}: overwrites {@code dx} (shape of {@code x}) with zeros, then adds each
     * {@code dy} element to the input position of its window's maximum (the first one in row-major window
     * order when there are ties), recomputed from {@code x}.
     */
    void maxPool2dBackward(Storage x, Storage dy, Storage dx, ConvGeometry g);

    // ---- losses and labels -----------------------------------------------------------------------------------

    /**
     * {@code out} compact {@code (n, classes)}: 1 at {@code [i, (int) labels[i]]}, 0 elsewhere. A label outside
     * {@code [0, classes)} is an error (the CPU throws naming it; a GPU kernel may report it afterwards).
     */
    void oneHot(Storage labels, Storage out, long n, int classes);

    // ---- fused training layers (batch norm, softmax cross-entropy) ---------------------------------------------
    // One call each way per layer, where composing the primitives above costs a dozen launches and temporaries:
    // a small model's training step is bound by the host's per-call cost on a GPU. No default: every backend
    // implements them (the CPU in plain Java, which the gradient checks hold to the maths).

    /**
     * Training-mode batch normalization of the compact {@code x} of shape {@code (outer, channels, inner)}, per
     * channel {@code c} over its {@code m = outer * inner >= 2} values: {@code mean[c]}, biased {@code var[c]};
     * {@code saveMean[c] = mean[c]}, {@code saveInvStd[c] = 1 / sqrt(var[c] + eps)};
     * {@code y[o, c, i] = (x[o, c, i] - mean[c]) * saveInvStd[c] * gamma[c] + beta[c]}. When {@code runningMean}
     * is not null, the running averages are updated in place:
     * {@code runningMean = (1 - momentum) runningMean + momentum mean},
     * {@code runningVar = (1 - momentum) runningVar + momentum var * m / (m - 1)} (unbiased, PyTorch's convention).
     * Statistics accumulate in double.
     */
    void batchNormForward(Storage x, Storage gamma, Storage beta, Storage y, Storage saveMean, Storage saveInvStd,
                          Storage runningMean, Storage runningVar, long outer, long channels, long inner,
                          float eps, float momentum);

    /**
     * Backward of {@link #batchNormForward} (batch statistics), from its {@code saveMean} and {@code saveInvStd}:
     * with {@code xhat = (x - mean[c]) * invStd[c]}, {@code dbeta[c] = sum of dy}, {@code dgamma[c] = sum of dy * xhat}
     * over the channel's {@code m} values, and, unless {@code dx} is null,
     * {@code dx = gamma[c] * invStd[c] / m * (m * dy - dbeta[c] - xhat * dgamma[c])}.
     */
    void batchNormBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                           Storage dx, Storage dgamma, Storage dbeta, long outer, long channels, long inner);

    /**
     * Mean softmax cross-entropy of the compact {@code logits (rows, classes)} against {@code labels (rows,)} holding
     * class indices as floats: {@code loss[0] = (1 / rows) * sum over r of (logsumexp(logits[r, :]) - logits[r, labels[r]])},
     * the log-sum-exp shifted by the row's maximum. {@code rows >= 1}. A label that is not a class in
     * {@code [0, classes)} is an error naming it, as in {@link #oneHot} (a GPU reports it at a later wait).
     */
    void softmaxCrossEntropy(Storage logits, Storage labels, Storage loss, long rows, int classes);

    /**
     * Gradient of {@link #softmaxCrossEntropy}: {@code grad[r, c] = upstream[0] / rows * (softmax(logits[r, :])[c] - (c == labels[r]))}.
     * {@code upstream} is a one-element storage (the loss's gradient), read where it lives: a GPU backend does
     * not copy it to the host.
     */
    void softmaxCrossEntropyBackward(Storage logits, Storage labels, Storage upstream, Storage grad, long rows, int classes);

    /**
     * A batch's figures added into an epoch's running sums, where they live (a GPU is not waited for):
     * {@code sums[0] += loss[0] * rows} and {@code sums[1] +=} the number of rows {@code r} whose first maximum of
     * {@code logits[r, :]} (the {@link ReduceOp#ARGMAX} rule) is at column {@code labels[r]}.
     */
    void addBatchMetrics(Storage logits, Storage labels, Storage loss, Storage sums, long rows, int classes);

    // ---- batch norm, ReLU and 2x2 max pooling as one block (nn.Sequential fuses them where the backend does) ----

    /**
     * Training-mode {@link #batchNormForward} of the compact NCHW {@code x}, then ReLU, then 2x2 max pooling with
     * stride 2 ({@link #maxPool2d}) into the compact {@code out (n, c, h/2, w/2)}, {@code h} and {@code w} even: the same
     * values, statistics and running averages as the three calls. Nothing of {@code x}'s size is kept for backward.
     * The default makes the three calls ({@link BatchNormReluPool}).
     */
    default void batchNormReluPoolForward(Storage x, Storage gamma, Storage beta, Storage out, Storage saveMean,
                                          Storage saveInvStd, Storage runningMean, Storage runningVar,
                                          long n, long c, long h, long w, float eps, float momentum) {
        BatchNormReluPool.composedForward(this, x, gamma, beta, out, saveMean, saveInvStd, runningMean, runningVar, n, c, h, w, eps, momentum);
    }

    /**
     * Backward of {@link #batchNormReluPoolForward} from {@code x}, the statistics it saved and the parameters: the
     * pooling's, the ReLU's and {@link #batchNormBackward}'s gradients in turn ({@code dx} overwritten, never null),
     * the batch norm's output recomputed from {@code x}. The default makes those calls ({@link BatchNormReluPool}).
     */
    default void batchNormReluPoolBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                           Storage beta, Storage dx, Storage dgamma, Storage dbeta,
                                           long n, long c, long h, long w) {
        BatchNormReluPool.composedBackward(this, dy, x, saveMean, saveInvStd, gamma, beta, dx, dgamma, dbeta, n, c, h, w);
    }

    /**
     * Whether {@link #batchNormReluPoolForward} and its backward run in fewer passes over memory than the three
     * layers do (a GPU's fused kernels): then nn.Sequential runs a BatchNorm2d - ReLU - MaxPool2d(2) block through
     * them while training. False by default, and on the CPU, whose layers are not bound by memory traffic.
     */
    default boolean fusesBatchNormReluPool() {
        return false;
    }

    // ---- random numbers ----------------------------------------------------------------------------------------

    /**
     * {@code out[i] = low + (high - low) * CounterRandom.uniform(seed, counter + i)} for {@code i < n}
     * (see {@link CounterRandom}: every device gives the same numbers).
     */
    void fillUniform(Storage out, long n, float low, float high, long seed, long counter);

    /** {@code out[i] = mean + std * CounterRandom.normal(seed, counter + i)} for {@code i < n}. */
    void fillNormal(Storage out, long n, float mean, float std, long seed, long counter);

    // ---- optimizer updates (in place, so parameters never leave the device) ------------------------------------

    /**
     * One SGD step on {@code n} elements, in place, PyTorch's definition:
     * {@code g = grad + weightDecay * param; v = momentum * v + g (v = g when momentum == 0);
     * param -= lr * v}. {@code velocity} is read and written only when {@code momentum != 0} (may be null otherwise).
     */
    void sgdStep(Storage param, Storage grad, Storage velocity, long n, float lr, float momentum, float weightDecay);

    /**
     * {@link #sgdStep} on several tensors in one call: tensor {@code t} is {@code params[t]}, {@code grads[t]},
     * {@code velocities[t]} (null, or a null array, when {@code momentum == 0}), {@code sizes[t]} elements.
     * A GPU backend updates up to 16 tensors per kernel launch. The default calls {@link #sgdStep} for each.
     */
    default void sgdSteps(Storage[] params, Storage[] grads, Storage[] velocities, long[] sizes, float lr, float momentum,
                          float weightDecay) {
        if (grads.length != params.length || sizes.length != params.length || (velocities != null && velocities.length != params.length))
            throw new IllegalArgumentException("sgdSteps: " + params.length + " parameters, " + grads.length + " gradients, "
                    + (velocities == null ? "no" : String.valueOf(velocities.length)) + " velocities and " + sizes.length + " sizes");
        for (int t = 0; t < params.length; t++) {
            Storage v = velocities == null ? null : velocities[t];
            if (momentum != 0f && v == null)
                throw new IllegalArgumentException("sgdSteps: momentum " + momentum + " needs a velocity storage for tensor " + t);
            sgdStep(params[t], grads[t], v, sizes[t], lr, momentum, weightDecay);
        }
    }

    /**
     * {@link #sgdSteps} with the learning rate read from {@code lr} (its first element) when the update runs, not fixed
     * when it is queued: a step recorded once as a CUDA graph then follows a rate that changes between replays (the
     * warm-up of a scaled rate), as PyTorch's capturable optimizers do with a tensor rate. The default reads it now.
     */
    default void sgdStepsLrFrom(Storage[] params, Storage[] grads, Storage[] velocities, long[] sizes, Storage lr, float momentum,
                                float weightDecay) {
        float[] rate = new float[1];
        copyToHost(lr, 0, rate, 0, 1);
        sgdSteps(params, grads, velocities, sizes, rate[0], momentum, weightDecay);
    }

    /**
     * One Adam step on {@code n} elements, in place ({@code step} counts from 1):
     * {@code g = grad + weightDecay * param; m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g*g;
     * mHat = m / (1 - b1^step); vHat = v / (1 - b2^step); param -= lr * mHat / (sqrt(vHat) + eps)}.
     */
    void adamStep(Storage param, Storage grad, Storage m, Storage v, long n, float lr, float beta1, float beta2,
                  float eps, float weightDecay, long step);

    /**
     * {@link #adamStep} on several tensors in one call ({@code params[t]}, {@code grads[t]}, moments {@code m[t]} and
     * {@code v[t]}, {@code sizes[t]} elements), one step count for all. A GPU backend updates up to 16 tensors per
     * kernel launch. The default calls {@link #adamStep} for each.
     */
    default void adamSteps(Storage[] params, Storage[] grads, Storage[] m, Storage[] v, long[] sizes, float lr, float beta1,
                           float beta2, float eps, float weightDecay, long step) {
        if (grads.length != params.length || m.length != params.length || v.length != params.length || sizes.length != params.length)
            throw new IllegalArgumentException("adamSteps: " + params.length + " parameters, " + grads.length + " gradients, "
                    + m.length + " and " + v.length + " moments, " + sizes.length + " sizes");
        for (int t = 0; t < params.length; t++)
            adamStep(params[t], grads[t], m[t], v[t], sizes[t], lr, beta1, beta2, eps, weightDecay, step);
    }

    // ---- synchronisation -------------------------------------------------------------------------------------------

    /** Waits until every queued operation of this backend has finished (a no-op on the CPU). */
    void synchronize();
}
