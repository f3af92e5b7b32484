package org.mpi2nccl.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.dist.Route;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./build.sh run}: the speedup experiment with the embedded defaults (GPUs: the lesson CNN on
 * Fashion-MNIST over NCCL and MPI on every GPU count; no GPU: a Fashion-MNIST subset on 1 and 2 CPU ranks
 * over MPI), or with any setting changed by an option. Prints the summary table and writes the report folder.
 */
@Command(name = "run", aliases = "speedup", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The main job: data-parallel training on 1, 2, ... ranks over each route (NCCL, MPI host-staged;",
                "MPI only on CPUs), timing every epoch. Writes epochs.csv, summary.csv, index.html and PNG charts",
                "(speedup with the ideal line, efficiency, time breakdown per route, all-reduce phases, accuracy).",
                "Without options: the embedded default for this machine (GPUs if any, else CPU ranks on a subset)."})
public final class SpeedupCommand implements Callable<Integer> {
    @Option(names = "--routes", split = ",", description = "mpi, ring, nccl (default: nccl,mpi with GPUs, mpi without)")
    List<String> routes;

    @Option(names = "--ranks", split = ",", description = "rank counts, e.g. 1,2 (default: 1..GPUs, or 1,2[,4] CPU ranks)")
    List<Integer> ranks;

    @Option(names = "--device", description = "cpu or cuda (default: cuda when a GPU is usable)")
    String device;

    @Option(names = "--model", description = "cnn (the lesson CNN) or mlp")
    String model;

    @Option(names = "--channels", split = ",", description = "CNN channels, e.g. 32,64")
    int[] channels;

    @Option(names = "--data", description = "fashion or synthetic-cifar (3x32x32, 10 classes, seeded)")
    String data;

    @Option(names = "--data-dir", description = "Fashion-MNIST folder (default $MPI2NCCL_FASHION_MNIST or /usr/share/datasets/fashion-mnist)")
    Path dataDir;

    @Option(names = "--train-examples", description = "training examples (0 = all)")
    Integer trainExamples;

    @Option(names = "--test-examples", description = "test examples (0 = all)")
    Integer testExamples;

    @Option(names = "--epochs")
    Integer epochs;

    @Option(names = "--batch-per-rank", description = "examples per rank per step (fixed as ranks are added)")
    Integer batchPerRank;

    @Option(names = "--global-batch", description = "instead: a fixed total batch split over the ranks (must divide)")
    Integer globalBatch;

    @Option(names = "--optimizer", description = "sgd (momentum 0.9) or adam")
    String optimizer;

    @Option(names = "--lr", description = "learning rate of one rank")
    Float lr;

    @Option(names = "--lr-scaling", description = "linear, sqrt or none: how the rate grows with the global batch")
    String lrScaling;

    @Option(names = "--lr-warmup-epochs", description = "epochs over which a scaled rate is reached from one rank's (default 1)")
    Double lrWarmupEpochs;

    @Option(names = "--seed")
    Long seed;

    @Option(names = "--warmup-steps", description = "steps run and undone before timing (default 10 on CPUs, "
            + SpeedupConfig.GPU_WARMUP_STEPS + " on GPUs)")
    Integer warmupSteps;

    @Option(names = "--no-overlap", description = "all-reduce only after backward has finished")
    boolean noOverlap;

    @Option(names = "--bucket-kib", description = "gradient bucket size in KiB (default 1024)")
    Integer bucketKib;

    @Option(names = "--last-bucket-kib", description = {"the model's first parameters, up to this many KiB, get the last gradient",
            "bucket to themselves: a small all-reduce after backward (default 0: filled like the others)"})
    Integer lastBucketKib;

    @Option(names = "--overlap-ctas", description = {"NCCL: the all-reduces beside backward use at most this many CTAs (SMs), through",
            "a second communicator; the one after backward keeps them all (default 4; 0: NCCL's choice)"})
    Integer overlapCtas;

    @Option(names = "--cuda-graphs", negatable = true, description = {"GPUs: replay each step's forward, backward and optimizer from",
            "CUDA graphs (a few launches per step instead of dozens of kernels and cuBLAS calls).",
            "Default: on with --device cuda; --no-cuda-graphs launches every kernel from Java"})
    Boolean cudaGraphs;

    @Option(names = "--no-graph-collectives", description = {"with CUDA graphs: leave NCCL's all-reduces out of the graphs",
            "(the host calls them between the pieces of backward) instead of recording them too"})
    boolean noGraphCollectives;

    @Option(names = "--rounds", description = {"run every (route, ranks) pair this many times, in turn (1, 2, ..., then",
            "again): the summary gives the pooled speedup, each round's against its own 1 rank, and their median (default 1)"})
    Integer rounds;

    @Option(names = "--from-csv", split = ",", description = {"no training: the report of recorded per-epoch CSV files",
            "(epochs.csv of earlier runs, a peer's CSV such as PyTorch DDP's), merged"})
    List<Path> fromCsv;

    @Option(names = "--out", description = "report folder (default $MPI2NCCL_REPORT_DIR, else build/report: ${DEFAULT-VALUE})",
            defaultValue = "${env:MPI2NCCL_REPORT_DIR:-build/report}")
    Path out;

    @Option(names = "--run-timeout", description = "longest one (route, ranks) run may take, seconds (default ${DEFAULT-VALUE})",
            defaultValue = "1200")
    long runTimeoutSeconds;

    @Override
    public Integer call() throws Exception {
        if (fromCsv != null) return fromRecorded();
        SpeedupExperiment base;
        SpeedupExperiment exp;
        try {
            base = SpeedupExperiment.defaults();
            SpeedupConfig c = base.config();
            boolean deviceChanged = device != null && !device.equals(c.device);
            if (device != null) c.device = device;
            if (model != null) c.model = model;
            if (channels != null) {
                if (channels.length != 2) throw new IllegalArgumentException("--channels takes two numbers, e.g. 32,64");
                c.channels1 = channels[0];
                c.channels2 = channels[1];
            }
            if (data != null) c.data = data;
            if (dataDir != null) c.dataDir = dataDir;
            if (trainExamples != null) c.trainExamples = trainExamples;
            if (testExamples != null) c.testExamples = testExamples;
            if (epochs != null) c.epochs = epochs;
            if (batchPerRank != null) c.batchPerRank = batchPerRank;
            if (optimizer != null) c.optimizer = optimizer;
            if (lr != null) c.lr = lr;
            if (lrScaling != null) c.lrScaling = lrScaling;
            if (seed != null) c.seed = seed;
            if (lrWarmupEpochs != null) c.lrWarmupEpochs = lrWarmupEpochs;
            if (warmupSteps != null) c.warmupSteps = warmupSteps;
            // A GPU step takes milliseconds: the JIT and the GPU memory pool need hundreds of them to settle, and
            // a run with N ranks has N times fewer steps per epoch, so too short a warm-up flatters one rank.
            else if (c.device.equals("cuda")) c.warmupSteps = SpeedupConfig.GPU_WARMUP_STEPS;
            if (noOverlap) c.overlap = false;
            if (bucketKib != null) c.bucketBytes = bucketKib * 1024L;
            if (lastBucketKib != null) c.lastBucketBytes = lastBucketKib * 1024L;
            if (overlapCtas != null) c.overlapCtas = overlapCtas;
            c.cudaGraphs = cudaGraphs != null ? cudaGraphs : c.device.equals("cuda");
            if (noGraphCollectives) c.graphCollectives = false;
            List<Route> rs = routes != null ? routes.stream().map(Route::parse).toList()
                    : deviceChanged ? (c.device.equals("cuda") ? List.of(Route.NCCL, Route.MPI) : List.of(Route.MPI)) : base.routes();
            List<Integer> ns = ranks != null ? ranks : deviceChanged && c.device.equals("cpu") ? SpeedupExperiment.cpuRankCounts() : base.rankCounts();
            if (globalBatch != null) {
                if (batchPerRank != null) throw new IllegalArgumentException("give --batch-per-rank or --global-batch, not both");
                c.globalBatch = globalBatch;
            }
            exp = new SpeedupExperiment(c, rs, ns);
            if (rounds != null) exp.rounds(rounds);
        } catch (IllegalArgumentException e) {
            System.err.println("run: " + e.getMessage());
            return 2;
        }
        exp.progress(TerminalProgress.onStdout()).runTimeout(Duration.ofSeconds(runTimeoutSeconds));
        long t0 = System.nanoTime();
        SpeedupResults r = exp.run();
        System.out.println();
        System.out.println("Summary (" + r.machine() + "; " + exp.config().describe() + "):");
        System.out.println(SpeedupReport.text(r));
        if (r.epochs().rowCount() > 0) {
            List<Path> files = SpeedupReport.write(r, out, "mpi2nccl run " + String.join(" ", commandLine()));
            System.out.println("report: " + out.toAbsolutePath().resolve("index.html") + " (" + files.size() + " files: "
                    + String.join(", ", files.stream().map(p -> p.getFileName().toString()).toList()) + ")");
        }
        System.out.printf(java.util.Locale.ROOT, "experiment took %.0f s%n", (System.nanoTime() - t0) / 1e9);
        if (!r.failures().isEmpty()) {
            System.err.println("run: " + r.failures().size() + " run(s) failed:");
            r.failures().forEach(f -> System.err.println("  " + f));
            return 1;
        }
        return 0;
    }

    private int fromRecorded() throws java.io.IOException {
        SpeedupResults r;
        try {
            r = SpeedupResults.fromCsv(fromCsv);
        } catch (IllegalArgumentException | java.io.IOException e) {
            System.err.println("run: " + e.getMessage());
            return 2;
        }
        System.out.println("Summary (" + r.machine() + "; " + r.settings() + "):");
        System.out.println(SpeedupReport.text(r));
        SpeedupReport.write(r, out, "mpi2nccl run --from-csv " + String.join(",", fromCsv.stream().map(Path::toString).toList()));
        System.out.println("report: " + out.toAbsolutePath().resolve("index.html"));
        return 0;
    }

    /** The options given, as the report's "command:" line repeats them. */
    List<String> commandLine() {
        List<String> a = new ArrayList<>();
        if (routes != null) a.add("--routes " + String.join(",", routes));
        if (ranks != null) a.add("--ranks " + String.join(",", ranks.stream().map(String::valueOf).toList()));
        if (device != null) a.add("--device " + device);
        if (model != null) a.add("--model " + model);
        if (channels != null) a.add("--channels " + Arrays.toString(channels).replaceAll("[\\[\\] ]", ""));
        if (data != null) a.add("--data " + data);
        if (dataDir != null) a.add("--data-dir " + dataDir);
        if (trainExamples != null) a.add("--train-examples " + trainExamples);
        if (testExamples != null) a.add("--test-examples " + testExamples);
        if (epochs != null) a.add("--epochs " + epochs);
        if (batchPerRank != null) a.add("--batch-per-rank " + batchPerRank);
        if (globalBatch != null) a.add("--global-batch " + globalBatch);
        if (optimizer != null) a.add("--optimizer " + optimizer);
        if (lr != null) a.add("--lr " + lr);
        if (lrScaling != null) a.add("--lr-scaling " + lrScaling);
        if (seed != null) a.add("--seed " + seed);
        if (lrWarmupEpochs != null) a.add("--lr-warmup-epochs " + lrWarmupEpochs);
        if (warmupSteps != null) a.add("--warmup-steps " + warmupSteps);
        if (noOverlap) a.add("--no-overlap");
        if (bucketKib != null) a.add("--bucket-kib " + bucketKib);
        if (lastBucketKib != null) a.add("--last-bucket-kib " + lastBucketKib);
        if (overlapCtas != null) a.add("--overlap-ctas " + overlapCtas);
        if (cudaGraphs != null) a.add(cudaGraphs ? "--cuda-graphs" : "--no-cuda-graphs");
        if (noGraphCollectives) a.add("--no-graph-collectives");
        if (rounds != null) a.add("--rounds " + rounds);
        return a;
    }
}
