package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.List;

/**
 * A kernel of native/: the PTX module (file name without .cu) it is in, its extern "C" name, its argument
 * signature (letters as in {@link KernelArgs}) and how a launch maps work items to threads. Java code
 * names kernels only through these objects (the constants below and the {@link BinaryOp}/{@link UnaryOp}
 * families), so a test can check that the PTX in the jar holds every one of them with matching parameters.
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

    static synchronized Kernel of(String module, String name, String signature, Launch launch) {
        Kernel k = new Kernel(module, name, signature, launch);
        ALL.add(k);
        return k;
    }

    /** Every kernel the Java side can launch. */
    public static synchronized List<Kernel> all() {
        // the families register their kernels when their enum classes initialize
        BinaryOp.values();
        UnaryOp.values();
        return List.copyOf(ALL);
    }

    /** The PTX modules (native/*.cu file names) the kernels live in. */
    public static List<String> modules() {
        return all().stream().map(k -> k.module).distinct().sorted().toList();
    }

    @Override
    public String toString() {
        return module + ".cu:" + name;
    }

    // native/batchnorm.cu
    public static final Kernel BATCHNORM_STATS = of("batchnorm", "batchnorm_stats_f32", "ppplll", Launch.PER_BLOCK);
    public static final Kernel BATCHNORM_APPLY = of("batchnorm", "batchnorm_apply_f32", "pppppplllf", Launch.PER_ELEMENT);
    public static final Kernel BATCHNORM_RUNNING_UPDATE = of("batchnorm", "batchnorm_running_update_f32", "ppppllf", Launch.PER_ELEMENT);
    public static final Kernel BATCHNORM_BACKWARD_REDUCE = of("batchnorm", "batchnorm_backward_reduce_f32", "pppppplllf", Launch.PER_BLOCK);
    public static final Kernel BATCHNORM_BACKWARD_APPLY = of("batchnorm", "batchnorm_backward_apply_f32", "pppppppplllf", Launch.PER_ELEMENT);

    // native/cast.cu
    public static final Kernel CAST_F32_TO_F16 = of("cast", "cast_f32_to_f16", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_F16_TO_F32 = of("cast", "cast_f16_to_f32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_F32_TO_BF16 = of("cast", "cast_f32_to_bf16", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_BF16_TO_F32 = of("cast", "cast_bf16_to_f32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_I32_TO_F32 = of("cast", "cast_i32_to_f32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_F32_TO_I32 = of("cast", "cast_f32_to_i32", "ppl", Launch.PER_ELEMENT);
    public static final Kernel CAST_U8_TO_F32 = of("cast", "cast_u8_to_f32", "pplff", Launch.PER_ELEMENT);

    // native/cross_entropy.cu
    public static final Kernel CROSS_ENTROPY_FORWARD = of("cross_entropy", "cross_entropy_forward_f32", "pppll", Launch.PER_WARP);
    public static final Kernel CROSS_ENTROPY_BACKWARD = of("cross_entropy", "cross_entropy_backward_f32", "pppllf", Launch.PER_WARP);
    public static final Kernel ONE_HOT = of("cross_entropy", "one_hot_f32", "ppll", Launch.PER_ELEMENT);

    // native/elementwise.cu
    public static final Kernel AXPBY = of("elementwise", "ew_axpby_f32", "pfpfpl", Launch.PER_ELEMENT);
    public static final Kernel CLAMP = of("elementwise", "ew_clamp_f32", "pffpl", Launch.PER_ELEMENT);

    // native/im2col.cu
    public static final Kernel IM2COL = of("im2col", "im2col_f32", "ppG", Launch.PER_ELEMENT);
    public static final Kernel COL2IM = of("im2col", "col2im_f32", "ppG", Launch.PER_ELEMENT);
    public static final Kernel CONV_OUTPUT_TO_NCHW = of("im2col", "conv_output_to_nchw_f32", "ppplll", Launch.PER_ELEMENT);
    public static final Kernel NCHW_TO_CONV_OUTPUT = of("im2col", "nchw_to_conv_output_f32", "pplll", Launch.PER_ELEMENT);

    // native/memory.cu
    public static final Kernel FILL = of("memory", "fill_f32", "pfl", Launch.PER_ELEMENT);
    public static final Kernel FILL_STRIDED = of("memory", "fill_strided_f32", "pLfl", Launch.PER_ELEMENT);
    public static final Kernel COPY_STRIDED = of("memory", "copy_strided_f32", "pLpLl", Launch.PER_ELEMENT);
    public static final Kernel ARANGE = of("memory", "arange_f32", "pffl", Launch.PER_ELEMENT);

    // native/optim.cu
    public static final Kernel SGD_UPDATE = of("optim", "sgd_update_f32", "ppplffffi", Launch.PER_ELEMENT);
    public static final Kernel ADAM_UPDATE = of("optim", "adam_update_f32", "pppplfffffffi", Launch.PER_ELEMENT);

    // native/pool.cu
    public static final Kernel MAXPOOL2D_FORWARD = of("pool", "maxpool2d_forward_f32", "ppQ", Launch.PER_ELEMENT);
    public static final Kernel MAXPOOL2D_BACKWARD = of("pool", "maxpool2d_backward_f32", "pppQ", Launch.PER_ELEMENT);

    // native/random.cu
    public static final Kernel UNIFORM = of("random", "uniform_f32", "pluff", Launch.PER_ELEMENT);
    public static final Kernel DROPOUT_MASK = of("random", "dropout_mask_f32", "pluf", Launch.PER_ELEMENT);

    // native/reduce.cu
    public static final Kernel REDUCE_SUM_ROWS = of("reduce", "reduce_sum_rows_f32", "ppllllf", Launch.PER_BLOCK);
    public static final Kernel REDUCE_MAX_ROWS = of("reduce", "reduce_max_rows_f32", "ppllll", Launch.PER_BLOCK);
    public static final Kernel REDUCE_SUM_COLS = of("reduce", "reduce_sum_cols_f32", "pplllllf", Launch.PER_ELEMENT);
    public static final Kernel REDUCE_MAX_COLS = of("reduce", "reduce_max_cols_f32", "pplllll", Launch.PER_ELEMENT);
    public static final Kernel ARGMAX = of("reduce", "argmax_f32", "pplll", Launch.PER_ELEMENT);

    // native/softmax.cu
    public static final Kernel SOFTMAX = of("softmax", "softmax_f32", "ppll", Launch.PER_WARP);
    public static final Kernel LOG_SOFTMAX = of("softmax", "log_softmax_f32", "ppll", Launch.PER_WARP);
    public static final Kernel LOGSUMEXP_ROWS = of("softmax", "logsumexp_rows_f32", "ppll", Launch.PER_WARP);
    public static final Kernel SOFTMAX_BACKWARD = of("softmax", "softmax_backward_f32", "pppll", Launch.PER_WARP);
    public static final Kernel LOG_SOFTMAX_BACKWARD = of("softmax", "log_softmax_backward_f32", "pppll", Launch.PER_WARP);
}
