package org.mpi2nccl.cuda;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.DeviceMemoryBackend;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * The {@link Backend} contract on one GPU (lessons 05 and 06): the kernels of native/ launched through the
 * context ({@link CudaContext#launch}), GEMM through cuBLAS, memory from the context's stream-ordered pool through
 * a cache of closed storages' blocks ({@link StorageBlocks}). Every call is queued on the context's one stream, so
 * calls run in program order; {@link #copyToHost} and {@link #synchronize} wait for them. A kernel's failure
 * therefore surfaces at the next wait, naming the wait (run with {@code MPI2NCCL_CUDA_SYNC=1} to have every launch
 * checked at once).
 * <p>This class holds memory and the argument checks; the contract's groups of operations live in classes of their
 * own, this one delegating: {@link CudaCopies}, {@link CudaElementwise}, {@link CudaStridedCopies}, {@link CudaReductions},
 * {@link CudaMatmul}, {@link CudaConvolutions}, the training layers ({@link CudaTrainingLayers}) and the optimizer
 * steps ({@link CudaOptimizerSteps}).
 * <p>Besides the contract it offers the fused kernels a model can use directly on this device (softmax,
 * log-softmax, log-sum-exp and their gradients), see {@link FusedOps}.
 */
public final class CudaBackend implements DeviceMemoryBackend {
    private static final Map<Integer, CudaBackend> OPEN = new HashMap<>();

    private final CudaContext context;
    private final Device device;
    private final AtomicLong live = new AtomicLong();
    private final FusedOps fused;
    private final LabelChecks labelChecks;
    private final CudaTrainingLayers layers;
    private final CudaOptimizerSteps optimizer;
    private final CudaCopies copies;
    private final CudaStridedCopies strided;
    private final CudaElementwise elementwise;
    private final CudaConvolutions convolutions;
    private final CudaMatmul matmul;
    private final StorageBlocks blocks;

    private CudaBackend(CudaContext context) {
        this.context = context;
        this.labelChecks = new LabelChecks(context);
        this.device = Device.cuda(context.device.ordinal);
        this.fused = new FusedOps(this);
        this.layers = new CudaTrainingLayers(this, context, fused, labelChecks);
        this.optimizer = new CudaOptimizerSteps(this, context);
        this.copies = new CudaCopies(this, labelChecks);
        this.strided = new CudaStridedCopies(this, context);
        this.elementwise = new CudaElementwise(this, context);
        this.convolutions = new CudaConvolutions(this, context);
        this.matmul = new CudaMatmul(this, context);
        this.blocks = new StorageBlocks(context);
    }

    /** The backend of GPU {@code index} (one per GPU per JVM). Throws {@link CudaUnavailableException} with the reason when there is none. */
    public static synchronized CudaBackend open(int index) {
        return OPEN.computeIfAbsent(index, i -> new CudaBackend(Cuda.device(i).context()));
    }

    public CudaContext context() {
        return context;
    }

    /** The softmax family: fused kernels beyond the contract (and those behind its training layers). */
    public FusedOps fused() {
        return fused;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public String describe() {
        return device + " (" + context.describe() + ")";
    }

    // ---- memory -----------------------------------------------------------------------------------------

    /** A block from {@link StorageBlocks}: a closed storage's of the same size when there is one (no driver call). */
    @Override
    public Storage allocate(long n) {
        if (n < 0) throw new IllegalArgumentException("allocate: " + n + " elements is not a valid size");
        DeviceMemory m = blocks.take(Math.multiplyExact(n, 4L));
        live.addAndGet(n);
        return new CudaStorage(this, m, n);
    }

    /** Frees the blocks kept for reuse (the memory returns to the context's pool). */
    public void releaseCachedBlocks() {
        blocks.clear();
    }

    /** Bytes of device memory held in the block cache for reuse. */
    public long cachedBytes() {
        return blocks.cachedBytes();
    }

    /**
     * {@code n} floats of {@code parent} from float {@code offset}, as a storage of their own: the same GPU memory
     * (writes through either are seen by both). It owns nothing: {@code parent} must stay open while it is used.
     */
    @Override
    public Storage view(Storage parent, long offset, long n) {
        checkRange("view", parent, offset, n);
        CudaStorage v = new CudaStorage(this, memory(parent, "view").view(offset * 4, n * 4), n);
        v.viewOf((CudaStorage) parent);
        return v;
    }

    /** A storage of {@code n} floats was closed: its block goes to the cache (which frees its oldest blocks when full). */
    void freed(long n, DeviceMemory block) {
        live.addAndGet(-n);
        blocks.give(block);
    }

    /**
     * Starts recording this GPU's stream into CUDA graphs ({@link GraphRecording}): the work queued from now on runs
     * only when its graphs are launched. One recording at a time per GPU.
     */
    public synchronized GraphRecording recording() {
        BlockCache<DeviceMemory> own = blocks.startRecording(device.toString());
        try {
            return new GraphRecording(this, context, own);
        } catch (RuntimeException e) {
            blocks.recordingEnded(own);
            throw e;
        }
    }

    /** The recording is over: blocks freed from now on go back to the shared cache. */
    void recordingEnded(GraphRecording r) {
        blocks.recordingEnded(r.blocks());
    }

    /** The bad-label checks, which a {@link GraphRecording} tells when it starts and closes. */
    LabelChecks labelChecks() {
        return labelChecks;
    }

    @Override
    public long liveElements() {
        return live.get();
    }

    @Override
    public void copyFromHost(float[] src, int srcOffset, Storage dst, long dstOffset, int n) {
        copies.fromHost(src, srcOffset, dst, dstOffset, n);
    }

    @Override
    public void copyToHost(Storage src, long srcOffset, float[] dst, int dstOffset, int n) {
        copies.toHost(src, srcOffset, dst, dstOffset, n);
    }

    @Override
    public void copy(Storage src, long srcOffset, Storage dst, long dstOffset, long n) {
        copies.onDevice(src, srcOffset, dst, dstOffset, n);
    }

    @Override
    public void fill(Storage dst, long offset, long n, float value) {
        elementwise.fill(dst, offset, n, value);
    }

    @Override
    public void copyStrided(Storage src, long srcOffset, long[] srcStrides, Storage dst, long dstOffset, long[] dstStrides, int[] shape) {
        strided.copyStrided(src, srcOffset, srcStrides, dst, dstOffset, dstStrides, shape);
    }

    @Override
    public void fillStrided(Storage dst, long offset, long[] strides, int[] shape, float value) {
        strided.fillStrided(dst, offset, strides, shape, value);
    }

    // ---- elementwise --------------------------------------------------------------------------------------

    @Override
    public void unary(UnaryOp op, Storage a, Storage out, long n) {
        elementwise.unary(op, a, out, n);
    }

    @Override
    public void binary(BinaryOp op, Storage a, Storage b, Storage out, long n) {
        elementwise.binary(op, a, b, out, n);
    }

    @Override
    public void binaryScalar(BinaryOp op, Storage a, float scalar, Storage out, long n) {
        elementwise.binaryScalar(op, a, scalar, out, n);
    }

    @Override
    public void binaryBroadcast(BinaryOp op, Storage a, Storage b, Storage out, long outer, long channels, long inner) {
        elementwise.binaryBroadcast(op, a, b, out, outer, channels, inner);
    }

    // ---- per-channel (batch norm) and fused training layers (CudaTrainingLayers) ---------------------------------

    /** One block per channel, sums in double. */
    @Override
    public void channelSums(Storage a, Storage b, Storage sumA, Storage sumAB, long outer, long channels, long inner) {
        layers.channelSums(a, b, sumA, sumAB, outer, channels, inner);
    }

    @Override
    public void channelAffine(Storage a, Storage scaleA, Storage b, Storage scaleB, Storage shift, Storage out,
                              long outer, long channels, long inner) {
        layers.channelAffine(a, scaleA, b, scaleB, shift, out, outer, channels, inner);
    }

    @Override
    public void reluBackward(Storage x, Storage dy, Storage dx, long n) {
        layers.reluBackward(x, dy, dx, n);
    }

    @Override
    public void batchNormForward(Storage x, Storage gamma, Storage beta, Storage y, Storage saveMean, Storage saveInvStd,
                                 Storage runningMean, Storage runningVar, long outer, long channels, long inner,
                                 float eps, float momentum) {
        layers.batchNormForward(x, gamma, beta, y, saveMean, saveInvStd, runningMean, runningVar, outer, channels, inner, eps, momentum);
    }

    @Override
    public void batchNormBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                  Storage dx, Storage dgamma, Storage dbeta, long outer, long channels, long inner) {
        layers.batchNormBackward(dy, x, saveMean, saveInvStd, gamma, dx, dgamma, dbeta, outer, channels, inner);
    }

    @Override
    public void batchNormReluPoolForward(Storage x, Storage gamma, Storage beta, Storage out, Storage saveMean,
                                         Storage saveInvStd, Storage runningMean, Storage runningVar,
                                         long n, long c, long h, long w, float eps, float momentum) {
        layers.batchNormReluPoolForward(x, gamma, beta, out, saveMean, saveInvStd, runningMean, runningVar, n, c, h, w, eps, momentum);
    }

    @Override
    public void batchNormReluPoolBackward(Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                          Storage beta, Storage dx, Storage dgamma, Storage dbeta, long n, long c, long h, long w) {
        layers.batchNormReluPoolBackward(dy, x, saveMean, saveInvStd, gamma, beta, dx, dgamma, dbeta, n, c, h, w);
    }

    /** The block's kernels read the convolution's output twice where the three layers read it about eleven times. */
    @Override
    public boolean fusesBatchNormReluPool() {
        return true;
    }

    @Override
    public void softmaxCrossEntropy(Storage logits, Storage labels, Storage loss, long rows, int classes) {
        layers.softmaxCrossEntropy(logits, labels, loss, rows, classes);
    }

    @Override
    public void softmaxCrossEntropyBackward(Storage logits, Storage labels, Storage upstream, Storage grad, long rows, int classes) {
        layers.softmaxCrossEntropyBackward(logits, labels, upstream, grad, rows, classes);
    }

    @Override
    public void addBatchMetrics(Storage logits, Storage labels, Storage loss, Storage sums, long rows, int classes) {
        layers.addBatchMetrics(logits, labels, loss, sums, rows, classes);
    }

    // ---- reductions -----------------------------------------------------------------------------------------

    @Override
    public void reduce(ReduceOp op, Storage a, Storage out, long outer, long reduced, long inner) {
        CudaReductions.reduce(this, op, a, out, outer, reduced, inner);
    }

    // ---- linear algebra ---------------------------------------------------------------------------------------

    @Override
    public void matmul(Storage a, Storage b, Storage out, int batch, int m, int n, int k,
                       boolean transA, boolean transB, long strideA, long strideB) {
        matmul.matmul(a, b, out, batch, m, n, k, transA, transB, strideA, strideB);
    }

    /** Lets cuBLAS use TF32 tensor cores for float32 GEMM (faster; ~1e-3 relative error, outside the contract's 1e-4). */
    public void setTf32(boolean on) {
        context.cublas().setTf32(on);
    }

    // ---- convolution and pooling ---------------------------------------------------------------------------

    @Override
    public void im2col(Storage x, Storage cols, ConvGeometry g) {
        convolutions.im2col(x, cols, g);
    }

    @Override
    public void col2im(Storage cols, Storage dx, ConvGeometry g) {
        convolutions.col2im(cols, dx, g);
    }

    @Override
    public void maxPool2d(Storage x, Storage out, ConvGeometry g) {
        convolutions.maxPool2d(x, out, g);
    }

    @Override
    public void maxPool2dBackward(Storage x, Storage dy, Storage dx, ConvGeometry g) {
        convolutions.maxPool2dBackward(x, dy, dx, g);
    }

    // ---- labels, random numbers, optimizers (CudaOptimizerSteps) --------------------------------------------------------------

    @Override
    public void oneHot(Storage labels, Storage out, long n, int classes) {
        layers.oneHot(labels, out, n, classes);
    }

    @Override
    public void fillUniform(Storage out, long n, float low, float high, long seed, long counter) {
        elementwise.fillUniform(out, n, low, high, seed, counter);
    }

    @Override
    public void fillNormal(Storage out, long n, float mean, float std, long seed, long counter) {
        elementwise.fillNormal(out, n, mean, std, seed, counter);
    }

    @Override
    public void sgdStep(Storage param, Storage grad, Storage velocity, long n, float lr, float momentum, float weightDecay) {
        optimizer.sgdStep(param, grad, velocity, n, lr, momentum, weightDecay);
    }

    @Override
    public void sgdSteps(Storage[] params, Storage[] grads, Storage[] velocities, long[] sizes, float lr, float momentum,
                         float weightDecay) {
        optimizer.sgdSteps(params, grads, velocities, sizes, lr, momentum, weightDecay);
    }

    @Override
    public void sgdStepsLrFrom(Storage[] params, Storage[] grads, Storage[] velocities, long[] sizes, Storage lr, float momentum,
                               float weightDecay) {
        optimizer.sgdSteps(params, grads, velocities, sizes, Float.NaN, lr, momentum, weightDecay);
    }

    @Override
    public void adamStep(Storage param, Storage grad, Storage m, Storage v, long n, float lr, float beta1, float beta2,
                         float eps, float weightDecay, long step) {
        optimizer.adamStep(param, grad, m, v, n, lr, beta1, beta2, eps, weightDecay, step);
    }

    @Override
    public void adamSteps(Storage[] params, Storage[] grads, Storage[] m, Storage[] v, long[] sizes, float lr, float beta1,
                          float beta2, float eps, float weightDecay, long step) {
        optimizer.adamSteps(params, grads, m, v, sizes, lr, beta1, beta2, eps, weightDecay, step);
    }

    @Override
    public void synchronize() {
        context.synchronize();
        labelChecks.checkAll();
    }

    // ---- argument checks ----------------------------------------------------------------------------------

    DeviceMemory memory(Storage s, String op) {
        if (!(s instanceof CudaStorage c) || c.backend() != this) {
            throw new IllegalArgumentException(op + ": the " + device + " backend was given a storage of "
                    + (s == null ? "null" : s.backend().device()) + " (move the array with NDArray.to(device) first)");
        }
        if (c.isClosed()) throw new IllegalStateException(op + ": " + c + " used after close()");
        return c.memory;
    }

    long address(Storage s, String op) {
        return memory(s, op).address();
    }

    /**
     * The device address of {@code s} (a storage of this backend), for code that hands GPU memory to another
     * library in place: NCCL all-reduces data-parallel gradient buckets there. The storage must stay open while
     * that library uses the address, and its work must be ordered with this backend's stream.
     */
    @Override
    public long deviceAddress(Storage s) {
        return address(s, "deviceAddress");
    }

    static void checkRange(String op, Storage s, long offset, long n) {
        if (offset < 0 || n < 0 || offset + n > s.size()) {
            throw new IllegalArgumentException(op + ": range [" + offset + ", " + (offset + n) + ") outside a storage of " + s.size() + " elements");
        }
    }

    @Override
    public String toString() {
        return "CudaBackend[" + device + "]";
    }
}
