package org.mpi2nccl.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.parallel.DataChecks;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import picocli.CommandLine.Option;

/**
 * What the speedup experiment trains, the same for every (route, ranks) run: device, model, data, epochs, the
 * batch each rank computes (fixed: adding ranks adds examples per step, as when adding GPUs), optimizer and the
 * data-parallel trainer's settings. Each field is declared once, here, with its default: as a command-line
 * option of {@code mpi2nccl run} (this class is its picocli mixin), and as JSON for the rank programs
 * ({@link #toJson}, {@link #fromJson}). Lesson 05 runs the experiment; {@link SpeedupExperiment#defaultConfig()}
 * is the preset for this machine.
 */
public final class SpeedupConfig {
    /** {@code cpu} or {@code cuda} (rank r on GPU r % count). */
    @Option(names = "--device", description = "cpu or cuda (default: cuda when a GPU is usable)")
    public String device = "cpu";

    /** {@code cnn}: the lesson CNN (conv-BN-ReLU-pool twice, 128 hidden, 10 out); {@code mlp}: 784-256-10. */
    @Option(names = "--model", description = "cnn (the lesson CNN) or mlp")
    public String model = "cnn";

    /** Channels of the CNN's two convolutions. */
    @Option(names = "--channels", split = ",", description = "CNN channels, e.g. 32,64")
    public int[] channels = {32, 64};

    /** {@code fashion}: Fashion-MNIST (IDX files); {@code synthetic-cifar}: a seeded CIFAR-shaped set (3x32x32, 10 classes). */
    @Option(names = "--data", description = "fashion or synthetic-cifar (3x32x32, 10 classes, seeded)")
    public String data = "fashion";

    /** Fashion-MNIST folder (null: $MPI2NCCL_FASHION_MNIST or Debian's); "{rank}" in it becomes the rank. */
    @Option(names = "--data-dir", description = "Fashion-MNIST folder (default $MPI2NCCL_FASHION_MNIST or /usr/share/datasets/fashion-mnist)")
    public Path dataDir;

    /** Training examples used (0: all; synthetic: the set's size, default 50000). */
    @Option(names = "--train-examples", description = "training examples (0 = all)")
    public int trainExamples = 0;

    /** Test examples used (0: all; synthetic: default 10000). */
    @Option(names = "--test-examples", description = "test examples (0 = all)")
    public int testExamples = 0;

    @Option(names = "--epochs")
    public int epochs = 5;

    /** Examples per rank per step. */
    @Option(names = "--batch-per-rank", description = "examples per rank per step (fixed as ranks are added)")
    public int batchPerRank = 128;

    /** 0: {@link #batchPerRank} on every rank (weak scaling). Else a fixed total batch split over the ranks (strong scaling). */
    @Option(names = "--global-batch", description = "instead: a fixed total batch split over the ranks (must divide)")
    public int globalBatch = 0;

    /** {@code sgd} (momentum 0.9) or {@code adam}. */
    @Option(names = "--optimizer", description = "sgd (momentum 0.9) or adam")
    public String optimizer = "sgd";

    /** Learning rate for one rank; see {@link #lrScaling}. */
    @Option(names = "--lr", description = "learning rate of one rank")
    public float lr = 0.05f;

    /** {@code linear}: N ranks use N x lr (their global batch is N times larger; Goyal et al. 2017); {@code sqrt}; {@code none}. */
    @Option(names = "--lr-scaling", description = "linear, sqrt or none: how the rate grows with the global batch")
    public String lrScaling = "linear";

    /** Epochs over which a scaled learning rate is reached, linearly from one rank's (0: at once). */
    @Option(names = "--lr-warmup-epochs", description = "epochs over which a scaled rate is reached from one rank's (default 1)")
    public double lrWarmupEpochs = 1;

    @Option(names = "--seed")
    public long seed = 1;

    /** Steps trained and then undone before the first epoch (null: by device, {@link #warmupSteps()}). */
    @Option(names = "--warmup-steps", description = "steps run and undone before timing (default " + SpeedupConfig.CPU_WARMUP_STEPS
            + " on CPUs, " + SpeedupConfig.GPU_WARMUP_STEPS + " on GPUs)")
    public Integer warmupSteps;

    /**
     * The warm-up of CPU ranks. On a machine with one core per rank the JIT's compiler threads share the ranks' cores,
     * so a multi-rank job's epochs keep getting faster until the JIT has compiled the step's code. A warm-up shorter
     * than that leaves the median epoch of a short run in the slow stretch and understates the speedup; a longer one
     * costs little against a run. results/cpu-training ("Warm-up") has the epochs and speedups with 10 and 250
     * steps.
     */
    public static final int CPU_WARMUP_STEPS = 250;

    /**
     * The warm-up of GPU ranks. A GPU step is short, and the host's time between steps keeps falling long after the
     * first steps (the JIT compiles the host's code, the GPU memory pool grows to the step's working set): a run with
     * N ranks has N times fewer steps per epoch, so a shorter warm-up would flatter one rank.
     */
    public static final int GPU_WARMUP_STEPS = 1000;

    /**
     * All-reduce each gradient bucket while backward still runs ({@link DataParallel.Options#overlap}); null: by
     * machine, {@link #overlapByDefault}.
     */
    @Option(names = "--overlap", negatable = true, description = {"all-reduce each gradient bucket while backward still runs;",
            "--no-overlap: only after backward has finished. Default: on with GPUs; on CPUs only where every rank has",
            "a second core for its all-reduce thread"})
    public Boolean overlap;

    @Option(names = "--bucket-kib", description = "gradient bucket size in KiB (default 1024)")
    public int bucketKib = (int) (DataParallel.Options.DEFAULT_BUCKET_BYTES / 1024);

    /** {@link GpuOptions#lastBucketBytes}, in KiB. */
    @Option(names = "--last-bucket-kib", description = {"the model's first parameters, up to this many KiB, get the last gradient",
            "bucket to themselves: a small all-reduce after backward (default 0: filled like the others)"})
    public int lastBucketKib;

    /**
     * {@link GpuOptions#overlapCtas} (NCCL route only): 4 here, where the library leaves it to NCCL, because
     * all-reduces of few CTAs leave backward, which runs beside them, more SMs, while the all-reduce after backward
     * keeps every SM, so the step's tail is not slowed. results/gpu-scaling/step-settings has NCCL's own CTA count
     * and 8 CTAs tried against it.
     */
    @Option(names = "--overlap-ctas", description = {"NCCL: the all-reduces beside backward use at most this many CTAs (SMs), through",
            "a second communicator; the one after backward keeps them all (default 4; 0: NCCL's choice)"})
    public int overlapCtas = 4;

    /** GPU steps replayed from CUDA graphs ({@link GpuOptions#cudaGraphs}); null: by device, {@link #cudaGraphs()}. */
    @Option(names = "--cuda-graphs", negatable = true, description = {"GPUs: replay each step's forward, backward and optimizer from",
            "CUDA graphs (a few launches per step instead of dozens of kernels and cuBLAS calls).",
            "Default: on with --device cuda; --no-cuda-graphs launches every kernel from Java"})
    public Boolean cudaGraphs;

    /** With CUDA graphs: NCCL's all-reduces recorded too ({@link GpuOptions#graphCollectives}). */
    @Option(names = "--no-graph-collectives", negatable = true, description = {"--no-graph-collectives: with CUDA graphs, leave NCCL's all-reduces out of the graphs",
            "(the host calls them between the pieces of backward) instead of recording them too"})
    public boolean graphCollectives = true;

    /** The warm-up in effect: as set, else {@link #GPU_WARMUP_STEPS} on GPUs and {@link #CPU_WARMUP_STEPS} on CPUs. */
    public int warmupSteps() {
        return warmupSteps != null ? warmupSteps : device.equals("cuda") ? GPU_WARMUP_STEPS : CPU_WARMUP_STEPS;
    }

    /**
     * Whether buckets are all-reduced while backward runs when nobody said: always beside NCCL (it queues its work on
     * a CUDA stream and needs no host thread); on CPUs only with a second core per rank, since there the all-reduce runs
     * on a thread of its own, which otherwise takes its core from backward: backward then grows by more than the
     * overlap hides. results/cpu-training ("Overlap on 2 CPU ranks of 2 cores") has pairs of runs with and without it.
     */
    public static boolean overlapByDefault(boolean gpu, int cores, int ranks) {
        return gpu || cores >= 2 * ranks;
    }

    /** Whether buckets are all-reduced while backward runs on {@code ranks} ranks of this machine: as set, else by machine. */
    public boolean overlapFor(int ranks) {
        return overlap != null ? overlap : overlapByDefault(device.equals("cuda"), Runtime.getRuntime().availableProcessors(), ranks);
    }

    /** Whether steps are replayed from CUDA graphs: as set, else on GPUs. */
    public boolean cudaGraphs() {
        return cudaGraphs != null ? cudaGraphs : device.equals("cuda");
    }

    public long bucketBytes() {
        return bucketKib * 1024L;
    }

    public long lastBucketBytes() {
        return lastBucketKib * 1024L;
    }

    /** The plain data-parallel step's options these settings give. */
    public DataParallel.Options trainerOptions() {
        if (overlap == null) throw new IllegalStateException("overlap not decided: the experiment sets it from the machine (overlapFor)");
        return DataParallel.Options.defaults().overlap(overlap).bucketBytes(bucketBytes());
    }

    /** The GPU machinery's options these settings give (CUDA graphs, the small last bucket, fewer CTAs beside backward). */
    public GpuOptions gpuOptions() {
        return GpuOptions.defaults().lastBucketBytes(lastBucketBytes()).overlapCtas(overlapCtas)
                .cudaGraphs(cudaGraphs()).graphCollectives(graphCollectives);
    }

    /** Paths travel absolute: a rank may start in another folder. */
    private static final Gson JSON = new GsonBuilder().registerTypeHierarchyAdapter(Path.class, new TypeAdapter<Path>() {
        @Override
        public void write(JsonWriter out, Path p) throws IOException {
            out.value(p.toAbsolutePath().toString());
        }

        @Override
        public Path read(JsonReader in) throws IOException {
            return Path.of(in.nextString());
        }
    }.nullSafe()).create();

    /** These settings as one JSON argument of a rank program. */
    public String toJson() {
        return JSON.toJson(this);
    }

    /** Reads {@link #toJson}'s output and checks it. */
    public static SpeedupConfig fromJson(String json) {
        SpeedupConfig c = JSON.fromJson(json, SpeedupConfig.class);
        c.validate();
        return c;
    }

    /** Errors that can be found before anything starts, each naming the setting and what to do. */
    public void validate() {
        if (!model.equals("cnn") && !model.equals("mlp")) throw new IllegalArgumentException("--model must be cnn or mlp, got " + model);
        if (!data.equals("fashion") && !data.equals("synthetic-cifar"))
            throw new IllegalArgumentException("--data must be fashion or synthetic-cifar, got " + data);
        if (model.equals("mlp") && !data.equals("fashion"))
            throw new IllegalArgumentException("the mlp takes 28x28 images: use --model cnn with --data " + data);
        if (epochs < 1) throw new IllegalArgumentException("--epochs must be at least 1, got " + epochs);
        if (batchPerRank < 1) throw new IllegalArgumentException("--batch-per-rank must be at least 1, got " + batchPerRank);
        if (globalBatch < 0) throw new IllegalArgumentException("--global-batch must be positive, got " + globalBatch);
        if (trainExamples < 0 || testExamples < 0) throw new IllegalArgumentException("example limits must be >= 0 (0 = all)");
        if (!optimizer.equals("sgd") && !optimizer.equals("adam")) throw new IllegalArgumentException("--optimizer must be sgd or adam, got " + optimizer);
        if (!(lr > 0)) throw new IllegalArgumentException("--lr must be positive, got " + lr);
        if (!List.of("linear", "sqrt", "none").contains(lrScaling))
            throw new IllegalArgumentException("--lr-scaling must be linear, sqrt or none, got " + lrScaling);
        if (!device.equals("cpu") && !device.equals("cuda")) throw new IllegalArgumentException("--device must be cpu or cuda, got " + device);
        if (lrWarmupEpochs < 0) throw new IllegalArgumentException("--lr-warmup-epochs must be >= 0, got " + lrWarmupEpochs);
        if (warmupSteps() < 0) throw new IllegalArgumentException("--warmup-steps must be >= 0, got " + warmupSteps);
        if (channels.length != 2) throw new IllegalArgumentException("--channels takes two numbers, e.g. 32,64");
        if (channels[0] < 1 || channels[1] < 1) throw new IllegalArgumentException("--channels must be two positive numbers");
        if (lastBucketKib < 0) throw new IllegalArgumentException("--last-bucket-kib must be >= 0 (0: the last bucket filled like the others), got " + lastBucketKib);
        if (overlapCtas < 0) throw new IllegalArgumentException("--overlap-ctas must be >= 0 (0: NCCL's choice), got " + overlapCtas);
    }

    /** The batch each of {@code ranks} ranks computes per step (checked: a fixed total batch must divide over the ranks). */
    public int batchFor(int ranks) {
        return globalBatch > 0 ? DataChecks.perRankBatch(globalBatch, ranks) : batchPerRank;
    }

    /** The learning rate of a run on {@code ranks} ranks (scaled with the global batch; a fixed total batch keeps it). */
    public float lrFor(int ranks) {
        if (globalBatch > 0) return lr;
        return switch (lrScaling) {
            case "linear" -> lr * ranks;
            case "sqrt" -> (float) (lr * Math.sqrt(ranks));
            default -> lr;
        };
    }

    /** One line for tables and plot titles. */
    public String describe() {
        String m = model.equals("cnn") ? "lesson CNN (" + channels[0] + "," + channels[1] + " channels)" : "MLP 784-256-10";
        String d = data.equals("fashion") ? "Fashion-MNIST" : "synthetic CIFAR-shaped";
        String n = trainExamples == 0 ? "" : " (" + trainExamples + " training examples)";
        String batch = globalBatch > 0 ? "total batch " + globalBatch + " split over the ranks" : "batch " + batchPerRank + " per rank";
        return String.format(Locale.ROOT, "%s on %s%s, %s, %s lr %.3g (%s), %d epochs, %s",
                m, d, n, batch, optimizer, lr, globalBatch > 0 ? "same for all rank counts" : lrScaling + " scaling with ranks"
                        + (lrWarmupEpochs > 0 && !lrScaling.equals("none") ? ", reached over " + lrWarmupEpochs + " epoch(s)" : ""),
                epochs, runsOn());
    }

    /** Where and how a step runs, as the settings line says it. */
    private String runsOn() {
        if (device.equals("cpu")) {
            return "CPU" + (overlap == null ? "" : overlap ? ", all-reduce beside backward" : ", all-reduce after backward");
        }
        String gpu = !cudaGraphs() ? "GPU" : graphCollectives ? "GPU, steps replayed from CUDA graphs"
                : "GPU, steps replayed from CUDA graphs, all-reduces called by the host";
        return device.equals("cuda") ? gpu + knobs() : gpu;
    }

    /** The GPU trainer's settings that differ from the library's defaults, as the report's settings line says them. */
    private String knobs() {
        String k = "";
        if (Boolean.FALSE.equals(overlap)) k += ", all-reduce after backward";
        else if (overlapCtas > 0) k += ", NCCL beside backward on at most " + overlapCtas + " CTAs";
        if (lastBucketKib > 0) k += ", last bucket at most " + lastBucketBytes() + " bytes";
        return k;
    }
}
