package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * A kernel of native/: the PTX module (the .cu file name) it is in, its extern "C" name, its argument
 * signature (letters as in {@link KernelArgs}) and how a launch maps work items to threads. Java code names
 * kernels only through these objects, so a CI test can check that the PTX in the jar holds every one of
 * them, with parameters of matching types, and that no PTX kernel is left without a Java name.
 */
public final class Kernel {
    /** How the launch's item count maps to threads (blocks of {@link #BLOCK_THREADS} threads). */
    public enum Launch {
        /** one thread per item, grid-stride loop */
        PER_ELEMENT,
        /** one block per item (a row or a channel reduced by the whole block) */
        PER_BLOCK,
        /** one warp per item (a short row) */
        PER_WARP
    }

    public static final int BLOCK_THREADS = 256;
    private static final List<Kernel> ALL = new ArrayList<>();

    public final String module;
    public final String name;
    public final String signature;
    public final Launch launch;

    private Kernel(String module, String name, String signature, Launch launch) {
        this.module = module;
        this.name = name;
        this.signature = signature;
        this.launch = launch;
    }

    private static Kernel of(String module, String name, String signature, Launch launch) {
        Kernel k = new Kernel(module, name, signature, launch);
        ALL.add(k);
        return k;
    }

    /** Every kernel the Java side can launch. */
    public static List<Kernel> all() {
        return Collections.unmodifiableList(ALL);
    }

    /** The PTX modules (native/*.cu file names) the kernels live in. */
    public static List<String> modules() {
        return ALL.stream().map(k -> k.module).distinct().sorted().toList();
    }

    /**
     * The PTX builds the toolkit jar lacks, as "module.target" ("memory.sm75"): empty when build.sh compiled
     * native/ with nvcc for both targets (compute_90 and compute_75).
     */
    public static List<String> missingPtx() {
        List<String> missing = new java.util.ArrayList<>();
        for (String module : modules()) {
            for (String target : List.of("sm90", "sm75")) {
                if (Kernel.class.getResource(KernelModules.resourceName(module, target)) == null) missing.add(module + "." + target);
            }
        }
        return missing;
    }

    @Override
    public String toString() {
        return module + ".cu:" + name;
    }

    // native/elementwise.cu: ew_OP_f32 (a OP b), ew_OP_scalar_f32 (a OP s, or s OP a when reversed) and
    // ew_OP_bcast_f32 (a[o,c,i] OP b[c], or reversed) for
    // every BinaryOp except RSUB and RDIV (SUB and DIV with swapped operands); ew_OP_f32 for every UnaryOp.
    private static final Map<BinaryOp, Kernel> BINARY = new EnumMap<>(BinaryOp.class);
    private static final Map<BinaryOp, Kernel> BINARY_SCALAR = new EnumMap<>(BinaryOp.class);
    private static final Map<BinaryOp, Kernel> BINARY_BROADCAST = new EnumMap<>(BinaryOp.class);
    private static final Map<UnaryOp, Kernel> UNARY = new EnumMap<>(UnaryOp.class);

    static {
        for (BinaryOp op : BinaryOp.values()) {
            if (op == BinaryOp.RSUB || op == BinaryOp.RDIV) continue;
            String name = op.name().toLowerCase(Locale.ROOT);
            BINARY.put(op, of("elementwise", "ew_" + name + "_f32", "pppl", Launch.PER_ELEMENT));
            BINARY_SCALAR.put(op, of("elementwise", "ew_" + name + "_scalar_f32", "pfpli", Launch.PER_ELEMENT));
            BINARY_BROADCAST.put(op, of("elementwise", "ew_" + name + "_bcast_f32", "pppllli", Launch.PER_ELEMENT));
        }
        for (UnaryOp op : UnaryOp.values()) {
            UNARY.put(op, of("elementwise", "ew_" + op.name().toLowerCase(Locale.ROOT) + "_f32", "ppl", Launch.PER_ELEMENT));
        }
    }

    /** The kernel computing {@code a op b} elementwise (for RSUB/RDIV: the SUB/DIV kernel, operands swapped by the caller). */
    public static Kernel binary(BinaryOp op) {
        return BINARY.get(withoutReversal(op));
    }

    /** The kernel computing {@code a op s} (reversed = 0) or {@code s op a} (reversed = 1). */
    public static Kernel binaryScalar(BinaryOp op) {
        return BINARY_SCALAR.get(withoutReversal(op));
    }

    /** The kernel computing {@code a[o,c,i] op b[c]} (reversed = 0) or {@code b[c] op a[o,c,i]} (reversed = 1). */
    public static Kernel binaryBroadcast(BinaryOp op) {
        return BINARY_BROADCAST.get(withoutReversal(op));
    }

    public static Kernel unary(UnaryOp op) {
        return UNARY.get(op);
    }

    /** RSUB -> SUB, RDIV -> DIV (their operands are swapped), every other op itself. */
    public static BinaryOp withoutReversal(BinaryOp op) {
        return switch (op) {
            case RSUB -> BinaryOp.SUB;
            case RDIV -> BinaryOp.DIV;
            default -> op;
        };
    }

    // native/activation.cu
    public static final Kernel RELU_BACKWARD = of("activation", "relu_backward_f32", "pppl", Launch.PER_ELEMENT);

    // native/batchnorm.cu
    // evaluation-mode normalization from given statistics: no layer launches it; LaunchCostBench's 10-argument case
    public static final Kernel BATCHNORM_APPLY = of("batchnorm", "batchnorm_apply_f32", "pppppplllf", Launch.PER_ELEMENT);
    // Backend.batchNormForward / batchNormBackward (statistics kept as mean and 1/sqrt(var + eps))
    public static final Kernel BATCHNORM_FORWARD_STATS = of("batchnorm", "batchnorm_forward_stats_f32", "ppppplllffppl", Launch.PER_BLOCK);
    public static final Kernel BATCHNORM_FORWARD_APPLY = of("batchnorm", "batchnorm_forward_apply_f32", "pppppplll", Launch.PER_ELEMENT);
    public static final Kernel BATCHNORM_GRAD_SUMS = of("batchnorm", "batchnorm_grad_sums_f32", "pppppplllppl", Launch.PER_BLOCK);
    public static final Kernel BATCHNORM_INPUT_GRAD = of("batchnorm", "batchnorm_input_grad_f32", "pppppppplll", Launch.PER_ELEMENT);
    // batch norm - ReLU - 2x2 max pool as one block (FusedOps.batchNormReluPool): the statistics are BATCHNORM_FORWARD_STATS
    public static final Kernel BN_RELU_POOL_FORWARD = of("bn_relu_pool", "bn_relu_pool_forward_f32", "ppppppllll", Launch.PER_ELEMENT);
    public static final Kernel BN_RELU_POOL_GRAD_SUMS = of("bn_relu_pool", "bn_relu_pool_grad_sums_f32", "ppppppppllllppl", Launch.PER_BLOCK);
    public static final Kernel BN_RELU_POOL_INPUT_GRAD = of("bn_relu_pool", "bn_relu_pool_input_grad_f32", "pppppppppllll", Launch.PER_ELEMENT);

    // native/cast.cu
    public static final Kernel CAST_F32_TO_F16 = of("cast", "cast_f32_to_f16", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_F16_TO_F32 = of("cast", "cast_f16_to_f32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_F32_TO_BF16 = of("cast", "cast_f32_to_bf16", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_BF16_TO_F32 = of("cast", "cast_bf16_to_f32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_I32_TO_F32 = of("cast", "cast_i32_to_f32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_F32_TO_I32 = of("cast", "cast_f32_to_i32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_U8_TO_F32 = of("cast", "cast_u8_to_f32", "pplff", Launch.PER_ELEMENT);

    // native/channel.cu
    public static final Kernel CHANNEL_SUMS = of("channel", "channel_sums_f32", "pppplll", Launch.PER_BLOCK);
    public static final Kernel CHANNEL_AFFINE = of("channel", "channel_affine_f32", "pppppplll", Launch.PER_ELEMENT);

    // native/cross_entropy.cu
    public static final Kernel ONE_HOT = of("cross_entropy", "one_hot_f32", "ppllp", Launch.PER_ELEMENT);
    // Backend.softmaxCrossEntropy (one block: launch with 1 item) / softmaxCrossEntropyBackward
    public static final Kernel CROSS_ENTROPY_MEAN = of("cross_entropy", "cross_entropy_mean_f32", "pppllp", Launch.PER_BLOCK);
    public static final Kernel CROSS_ENTROPY_MEAN_BACKWARD = of("cross_entropy", "cross_entropy_mean_backward_f32", "ppppll", Launch.PER_WARP);
    // Backend.addBatchMetrics (one block: launch with 1 item)
    public static final Kernel BATCH_METRICS = of("cross_entropy", "batch_metrics_f32", "ppppll", Launch.PER_BLOCK);

    // native/im2col.cu
    public static final Kernel IM2COL = of("im2col", "im2col_f32", "ppW", Launch.PER_BLOCK);
    public static final Kernel COL2IM = of("im2col", "col2im_f32", "ppW", Launch.PER_BLOCK);

    // native/memory.cu
    public static final Kernel FILL = of("memory", "fill_f32", "pfl", Launch.PER_ELEMENT);
    public static final Kernel FILL_STRIDED = of("memory", "fill_strided_f32", "pLfl", Launch.PER_ELEMENT);
    public static final Kernel COPY_STRIDED = of("memory", "copy_strided_f32", "pLpLl", Launch.PER_ELEMENT);
    // A batch of 2-D planes transposed tile by tile through shared memory (see {@link StridedCopyPlan}); 256-thread
    // blocks, tiles of 64 x 64.
    public static final Kernel COPY_TRANSPOSE_64X64 = of("memory", "copy_transpose_64x64_f32", "pLpLllllll", Launch.PER_BLOCK);

    // native/optim.cu
    public static final Kernel SGD_STEP = of("optim", "sgd_step_f32", "ppplfff", Launch.PER_ELEMENT);
    public static final Kernel SGD_STEPS = of("optim", "sgd_steps_f32", "Sfff", Launch.PER_ELEMENT);
    public static final Kernel SGD_STEPS_LR = of("optim", "sgd_steps_lr_f32", "Spff", Launch.PER_ELEMENT);
    public static final Kernel ADAM_STEPS = of("optim", "adam_steps_f32", "Afffffff", Launch.PER_ELEMENT);
    public static final Kernel ADAM_STEP = of("optim", "adam_step_f32", "pppplfffffff", Launch.PER_ELEMENT);

    // native/pool.cu
    public static final Kernel MAXPOOL2D_FORWARD = of("pool", "maxpool2d_forward_f32", "ppW", Launch.PER_ELEMENT);
    public static final Kernel MAXPOOL2D_BACKWARD = of("pool", "maxpool2d_backward_f32", "pppW", Launch.PER_ELEMENT);

    // native/random.cu
    public static final Kernel FILL_UNIFORM = of("random", "fill_uniform_f32", "plffuu", Launch.PER_ELEMENT);
    public static final Kernel FILL_NORMAL = of("random", "fill_normal_f32", "plffuu", Launch.PER_ELEMENT);

    // native/reduce.cu
    // rows: (in, out, outer, r, parts); rows_warp: (in, out, rows, r); cols: (in, out, outer, r, inner, chunk, chunks)
    public static final Kernel REDUCE_SUM_ROWS = of("reduce", "reduce_sum_rows_f32", "pplll", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MAX_ROWS = of("reduce", "reduce_max_rows_f32", "pplll", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MIN_ROWS = of("reduce", "reduce_min_rows_f32", "pplll", Launch.PER_BLOCK);
    public static final Kernel REDUCE_SUM_ROWS_WARP = of("reduce", "reduce_sum_rows_warp_f32", "ppll", Launch.PER_WARP);
    public static final Kernel REDUCE_MAX_ROWS_WARP = of("reduce", "reduce_max_rows_warp_f32", "ppll", Launch.PER_WARP);
    public static final Kernel REDUCE_MIN_ROWS_WARP = of("reduce", "reduce_min_rows_warp_f32", "ppll", Launch.PER_WARP);
    public static final Kernel REDUCE_SUM_COLS = of("reduce", "reduce_sum_cols_f32", "pplllll", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MAX_COLS = of("reduce", "reduce_max_cols_f32", "pplllll", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MIN_COLS = of("reduce", "reduce_min_cols_f32", "pplllll", Launch.PER_BLOCK);
    // rows_last: (in, out, outer, r, parts, partials, counters): the split row finished in the same launch
    public static final Kernel REDUCE_SUM_ROWS_LAST = of("reduce", "reduce_sum_rows_last_f32", "pplllpp", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MAX_ROWS_LAST = of("reduce", "reduce_max_rows_last_f32", "pplllpp", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MIN_ROWS_LAST = of("reduce", "reduce_min_rows_last_f32", "pplllpp", Launch.PER_BLOCK);
    // cols_last: (in, out, outer, r, inner, chunk, chunks, partials, counters): the column split finished in one launch
    public static final Kernel REDUCE_SUM_COLS_LAST = of("reduce", "reduce_sum_cols_last_f32", "pplllllpp", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MAX_COLS_LAST = of("reduce", "reduce_max_cols_last_f32", "pplllllpp", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MIN_COLS_LAST = of("reduce", "reduce_min_cols_last_f32", "pplllllpp", Launch.PER_BLOCK);
    public static final Kernel ARGMAX = of("reduce", "argmax_f32", "pplll", Launch.PER_ELEMENT);

    // native/softmax.cu
    public static final Kernel SOFTMAX = of("softmax", "softmax_f32", "ppll", Launch.PER_WARP);
    public static final Kernel LOG_SOFTMAX = of("softmax", "log_softmax_f32", "ppll", Launch.PER_WARP);
    public static final Kernel LOGSUMEXP_ROWS = of("softmax", "logsumexp_rows_f32", "ppll", Launch.PER_WARP);
    public static final Kernel SOFTMAX_BACKWARD = of("softmax", "softmax_backward_f32", "pppll", Launch.PER_WARP);
    public static final Kernel LOG_SOFTMAX_BACKWARD = of("softmax", "log_softmax_backward_f32", "pppll", Launch.PER_WARP);
}
