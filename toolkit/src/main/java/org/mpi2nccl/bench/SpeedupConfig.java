package org.mpi2nccl.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpi2nccl.dist.DataParallel;
import org.mpi2nccl.dist.Route;
import org.mpi2nccl.dist.gpu.GpuOptions;

/**
 * What the speedup experiment trains, the same for every (route, ranks) run: model, data, epochs, the batch
 * each rank computes (fixed: adding ranks adds examples per step, as when adding GPUs), optimizer. Travels to
 * the rank programs as {@code key=value} arguments ({@link #toArgs}, {@link #fromArgs}).
 */
public final class SpeedupConfig {
    /** {@code cnn}: the lesson CNN (conv-BN-ReLU-pool twice, 128 hidden, 10 out); {@code mlp}: 784-256-10. */
    public String model = "cnn";
    /** Channels of the CNN's two convolutions. */
    public int channels1 = 32;
    public int channels2 = 64;
    /** {@code fashion}: Fashion-MNIST (IDX files); {@code synthetic-cifar}: a seeded CIFAR-shaped set (3x32x32, 10 classes). */
    public String data = "fashion";
    /** Fashion-MNIST folder (null: $MPI2NCCL_FASHION_MNIST or Debian's). */
    public Path dataDir;
    /** Training examples used (0: all; synthetic: the set's size, default 50000). */
    public int trainExamples = 0;
    /** Test examples used (0: all; synthetic: default 10000). */
    public int testExamples = 0;
    public int epochs = 5;
    /** Examples per rank per step. */
    public int batchPerRank = 128;
    /** 0: {@link #batchPerRank} on every rank (weak scaling). Else a fixed total batch split over the ranks (strong scaling). */
    public int globalBatch = 0;
    /** {@code sgd} (momentum 0.9) or {@code adam}. */
    public String optimizer = "sgd";
    /** Learning rate for one rank; see {@link #lrScaling}. */
    public float lr = 0.05f;
    /** {@code linear}: N ranks use N x lr (their global batch is N times larger; Goyal et al. 2017); {@code sqrt}; {@code none}. */
    public String lrScaling = "linear";
    /** Epochs over which a scaled learning rate is reached, linearly from one rank's (0: at once). */
    public double lrWarmupEpochs = 1;
    public long seed = 1;
    /** Steps trained and then undone before the first epoch: JIT, kernel loading and memory pools warm up. */
    public int warmupSteps = 10;
    /**
     * The warm-up of GPU runs (`mpi2nccl run --device cuda`): see SpeedupCommand. 1000: after 300, the host's time
     * between steps still fell for the first 700-900 timed steps of every run on 2x H200 (Fashion-MNIST, 1 and 2
     * GPUs, `results/gpu-2026-11-22-s8/`), so the first epochs timed a rank that had not settled.
     */
    public static final int GPU_WARMUP_STEPS = 1000;
    public boolean overlap = true;
    public long bucketBytes = DataParallel.Options.DEFAULT_BUCKET_BYTES;
    /** {@link GpuOptions#lastBucketBytes}. */
    public long lastBucketBytes;
    /**
     * {@link GpuOptions#overlapCtas} (NCCL route only): 4 here, where the library's default is NCCL's choice.
     * On 2x H200 the lesson CNN's backward (CIFAR-shaped) lost 4-5 us less per step beside 4-CTA all-reduces, and the
     * step's tail took no longer (`results/gpu-2026-11-22-s8/`).
     */
    public int overlapCtas = 4;
    /** GPU steps replayed from CUDA graphs ({@link GpuOptions#cudaGraphs}). */
    public boolean cudaGraphs;
    /** With CUDA graphs: NCCL's all-reduces recorded too ({@link GpuOptions#graphCollectives}). */
    public boolean graphCollectives = true;
    /** {@code cpu} or {@code cuda} (rank r on GPU r % count). */
    public String device = "cpu";

    /** The arguments of one rank program run on {@code route}. */
    public List<String> toArgs(Route route) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("route", route.label());
        m.put("model", model);
        m.put("channels", channels1 + "," + channels2);
        m.put("data", data);
        if (dataDir != null) m.put("data-dir", dataDir.toAbsolutePath().toString());
        m.put("train-examples", Integer.toString(trainExamples));
        m.put("test-examples", Integer.toString(testExamples));
        m.put("epochs", Integer.toString(epochs));
        m.put("batch", Integer.toString(batchPerRank));
        m.put("global-batch", Integer.toString(globalBatch));
        m.put("optimizer", optimizer);
        m.put("lr", Float.toString(lr));
        m.put("lr-scaling", lrScaling);
        m.put("lr-warmup", Double.toString(lrWarmupEpochs));
        m.put("seed", Long.toString(seed));
        m.put("warmup", Integer.toString(warmupSteps));
        m.put("overlap", Boolean.toString(overlap));
        m.put("bucket-bytes", Long.toString(bucketBytes));
        m.put("last-bucket-bytes", Long.toString(lastBucketBytes));
        m.put("overlap-ctas", Integer.toString(overlapCtas));
        m.put("cuda-graphs", Boolean.toString(cudaGraphs));
        m.put("graph-collectives", Boolean.toString(graphCollectives));
        m.put("device", device);
        List<String> out = new ArrayList<>();
        m.forEach((k, v) -> out.add(k + "=" + v));
        return out;
    }

    /** Parses {@link #toArgs}'s output; returns the config and sets {@code route[0]}. */
    public static SpeedupConfig fromArgs(String[] args, Route[] route) {
        SpeedupConfig c = new SpeedupConfig();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq < 1) throw new IllegalArgumentException("argument '" + a + "' is not key=value");
            String k = a.substring(0, eq), v = a.substring(eq + 1);
            switch (k) {
                case "route" -> route[0] = Route.parse(v);
                case "model" -> c.model = v;
                case "channels" -> {
                    String[] p = v.split(",");
                    c.channels1 = Integer.parseInt(p[0].trim());
                    c.channels2 = Integer.parseInt(p[1].trim());
                }
                case "data" -> c.data = v;
                case "data-dir" -> c.dataDir = Path.of(v);
                case "train-examples" -> c.trainExamples = Integer.parseInt(v);
                case "test-examples" -> c.testExamples = Integer.parseInt(v);
                case "epochs" -> c.epochs = Integer.parseInt(v);
                case "batch" -> c.batchPerRank = Integer.parseInt(v);
                case "global-batch" -> c.globalBatch = Integer.parseInt(v);
                case "optimizer" -> c.optimizer = v;
                case "lr" -> c.lr = Float.parseFloat(v);
                case "lr-scaling" -> c.lrScaling = v;
                case "lr-warmup" -> c.lrWarmupEpochs = Double.parseDouble(v);
                case "seed" -> c.seed = Long.parseLong(v);
                case "warmup" -> c.warmupSteps = Integer.parseInt(v);
                case "overlap" -> c.overlap = Boolean.parseBoolean(v);
                case "bucket-bytes" -> c.bucketBytes = Long.parseLong(v);
                case "last-bucket-bytes" -> c.lastBucketBytes = Long.parseLong(v);
                case "overlap-ctas" -> c.overlapCtas = Integer.parseInt(v);
                case "cuda-graphs" -> c.cudaGraphs = Boolean.parseBoolean(v);
                case "graph-collectives" -> c.graphCollectives = Boolean.parseBoolean(v);
                case "device" -> c.device = v;
                default -> throw new IllegalArgumentException("unknown setting '" + k + "'");
            }
        }
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
        if (warmupSteps < 0) throw new IllegalArgumentException("--warmup-steps must be >= 0, got " + warmupSteps);
        if (channels1 < 1 || channels2 < 1) throw new IllegalArgumentException("--channels must be two positive numbers");
        if (lastBucketBytes < 0) throw new IllegalArgumentException("--last-bucket-kib must be >= 0 (0: the last bucket filled like the others), got " + lastBucketBytes / 1024);
        if (overlapCtas < 0) throw new IllegalArgumentException("--overlap-ctas must be >= 0 (0: NCCL's choice), got " + overlapCtas);
    }

    /** The batch each of {@code ranks} ranks computes per step (checked: a fixed total batch must divide over the ranks). */
    public int batchFor(int ranks) {
        return globalBatch > 0 ? org.mpi2nccl.dist.DataChecks.perRankBatch(globalBatch, ranks) : batchPerRank;
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
        String m = model.equals("cnn") ? "lesson CNN (" + channels1 + "," + channels2 + " channels)" : "MLP 784-256-10";
        String d = data.equals("fashion") ? "Fashion-MNIST" : "synthetic CIFAR-shaped";
        String n = trainExamples == 0 ? "" : " (" + trainExamples + " training examples)";
        String batch = globalBatch > 0 ? "total batch " + globalBatch + " split over the ranks" : "batch " + batchPerRank + " per rank";
        return String.format(Locale.ROOT, "%s on %s%s, %s, %s lr %.3g (%s), %d epochs, %s",
                m, d, n, batch, optimizer, lr, globalBatch > 0 ? "same for all rank counts" : lrScaling + " scaling with ranks"
                        + (lrWarmupEpochs > 0 && !lrScaling.equals("none") ? ", reached over " + lrWarmupEpochs + " epoch(s)" : ""),
                epochs, (device.equals("cpu") ? "CPU" : !cudaGraphs ? "GPU"
                        : graphCollectives ? "GPU, steps replayed from CUDA graphs" : "GPU, steps replayed from CUDA graphs, all-reduces called by the host")
                        + (device.equals("cuda") ? knobs() : ""));
    }

    /** The GPU trainer's settings that differ from the library's defaults, as the report's settings line says them. */
    private String knobs() {
        String k = "";
        if (overlapCtas > 0) k += ", NCCL beside backward on at most " + overlapCtas + " CTAs";
        if (lastBucketBytes > 0) k += ", last bucket at most " + lastBucketBytes + " bytes";
        return k;
    }
}
