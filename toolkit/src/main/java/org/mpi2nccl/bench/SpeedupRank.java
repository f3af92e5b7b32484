package org.mpi2nccl.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.data.ArrayDataset;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.Dataset;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataChecks;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.DistributedSampler;
import org.mpi2nccl.parallel.DistributedTraining;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import org.mpi2nccl.parallel.timing.TimeBreakdown;
import org.mpi2nccl.launch.Report;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * One run of the speedup experiment, as an MPJ rank program: data-parallel training of the configured model
 * on every rank of the job over one {@link Route}, reporting each epoch (time, throughput, where the time
 * went, loss and test accuracy of all ranks together) from rank 0 with {@link Report#emit}. Arguments: the
 * {@link Route} and a {@link SpeedupConfig} as JSON. Rank r computes on the CPU or on GPU r % count.
 *
 * <p>Before training, the ranks check together that every rank could load the data and sees the same data
 * set, that NCCL gets a GPU per rank and that no rank's share is empty: a problem becomes an error on every
 * rank that names the rank and the cause, not a collective that waits for a rank that has already given up.
 */
public final class SpeedupRank {
    /** Marks rank 0's progress lines: {@code epoch batch batches epochs}. */
    public static final String PROGRESS = "@@speedup-progress ";
    /**
     * Replays of the forward graph alone per probe: enough that the probe's time is long against the clock's
     * resolution, few enough to stay short against an epoch (results/gpu-scaling/extra-time has the probes' times).
     */
    static final int PROBE_REPLAYS = 200;

    private SpeedupRank() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Route route = Route.parse(rest[0]);
        SpeedupConfig cfg = SpeedupConfig.fromJson(rest[1]);
        try (MpjCommunicator host = MpjCommunicator.world()) {
            run(cfg, route, host);
        }
        MPI.Finalize();
    }

    private static void run(SpeedupConfig cfg, Route route, MpjCommunicator host) {
        int rank = host.rank(), ranks = host.size();
        Device device = DataChecks.onEveryRank(host, "choosing the device", () -> device(cfg, route, rank, ranks));
        Dataset[] data = DataChecks.onEveryRank(host, "loading the data set", () -> load(cfg, rank));
        Dataset train = data[0], test = data[1];
        DataChecks.sameOnEveryRank(host, "the training set's size", train.size());
        DataChecks.sameOnEveryRank(host, "the test set's size", test.size());
        int batch = cfg.batchFor(ranks);
        DistributedSampler sampler = DataChecks.onEveryRank(host, "sharding the data set",
                () -> DistributedSampler.training(train.size(), rank, ranks, cfg.seed));
        // On a GPU the step's host time is short: gather the next batches on a background thread meanwhile. CPU
        // ranks are held to one core each, which a gathering thread would only take time from.
        DataLoader trainLoader = new DataLoader(train, batch, sampler, false, device).withPrefetch(device.isCpu() ? 0 : 2);
        DataLoader testLoader = new DataLoader(test, 500, DistributedSampler.evaluation(test.size(), rank, ranks), false, device);
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        float lr = cfg.lrFor(ranks);

        Communicator comm = route.open(host, device);
        try (Module model = model(cfg, device);
             GpuDataParallel dp = new GpuDataParallel(model, comm, cfg.trainerOptions(), cfg.gpuOptions())) {
            if (rank == 0) {
                System.out.printf(Locale.ROOT, "%s x%d on %s: %d parameters in %d bucket(s), %d training / %d test examples,"
                                + " %d steps per epoch, global batch %d, lr %.4g%n", route.description(), ranks,
                        device.isCpu() ? "CPU" : device + " (" + Cuda.device(device.index()).name + ")", model.parameterCount(),
                        dp.bucketCount(), train.size(), test.size(), trainLoader.batchesPerEpoch(), batch * ranks, lr);
            }
            warmUp(cfg, dp, trainLoader, lossFn);
            // the forward graph replayed alone after the warm-up and after each epoch: does it slow down as training goes on?
            double early = cfg.cudaGraphs() ? org.mpi2nccl.bench.gpu.ForwardGraphProbe.micros(dp, PROBE_REPLAYS) : Double.NaN;
            List<Double> alone = new ArrayList<>();
            float base = cfg.lr;
            int steps = trainLoader.batchesPerEpoch();
            try (Optimizer opt = optimizer(cfg, model, warmedUpLr(cfg, base, lr, 0, steps))) {
                for (int e = 0; e < cfg.epochs; e++) {
                    int epoch = e + 1, first = e * steps;
                    TimeBreakdown before = dp.times();
                    DistributedTraining.EpochResult tr = DistributedTraining.trainEpoch(dp, trainLoader, e, opt, lossFn, (b, n) -> {
                        opt.setLr(warmedUpLr(cfg, base, lr, first + b, steps));
                        if (rank == 0) progress(epoch, b, n, cfg.epochs);
                    });
                    TimeBreakdown times = dp.times().minus(before);
                    if (cfg.cudaGraphs()) alone.add(org.mpi2nccl.bench.gpu.ForwardGraphProbe.micros(dp, PROBE_REPLAYS));
                    DistributedTraining.EvalResult te = DistributedTraining.evaluate(dp, testLoader, lossFn);
                    // every rank reports: rank 0's row goes into the table, all of them into the per-rank file
                    Report.emit(row(batch, route, ranks, device, dp, epoch, opt.lr(), tr, times, te));
                }
            }
            if (cfg.cudaGraphs()) {
                // the same forward graph alone, against the step's forward phase: does the step around it slow it down?
                System.out.println("rank " + rank + ": " + dp.graphReplays() + " steps replayed from CUDA graphs"
                        + aloneLine(early, alone) + (dp.graphsOff() != null ? "; graphs off: " + dp.graphsOff() : ""));
            }
        } finally {
            if (comm != host) comm.close();
        }
    }

    /**
     * "; its forward graph replayed alone: LAST us (after the warm-up: A; after each epoch: B C ...)", LAST the probe
     * after the last epoch; "" when no probe gave a time (graphs off). A is left out when the warm-up left no graph.
     */
    static String aloneLine(double early, List<Double> afterEpochs) {
        if (afterEpochs.isEmpty() || afterEpochs.get(afterEpochs.size() - 1).isNaN()) return "";
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "; its forward graph replayed alone: %.1f us (",
                afterEpochs.get(afterEpochs.size() - 1)));
        if (!Double.isNaN(early)) s.append(String.format(Locale.ROOT, "after the warm-up: %.1f; ", early));
        s.append("after each epoch:");
        for (double a : afterEpochs) s.append(String.format(Locale.ROOT, " %.1f", a));
        return s.append(")").toString();
    }

    private static Device device(SpeedupConfig cfg, Route route, int rank, int ranks) {
        if (cfg.device.equals("cpu")) {
            if (route == Route.NCCL) throw new IllegalArgumentException("the NCCL route needs GPUs: use --device cuda or the MPI route");
            return Device.cpu();
        }
        int gpus = Cuda.deviceCount();
        if (gpus == 0) throw new IllegalStateException("no GPU usable: " + Cuda.unavailableReason());
        if (route == Route.NCCL) DataChecks.ranksFitGpus(ranks, gpus);
        return Device.cuda(rank % gpus);
    }

    /** {train, test}; "{rank}" in the data folder is replaced by the rank (node-local copies, one folder per rank). */
    static Dataset[] load(SpeedupConfig cfg, int rank) {
        if (cfg.data.equals("fashion")) {
            java.nio.file.Path dir = cfg.dataDir != null ? java.nio.file.Path.of(cfg.dataDir.toString().replace("{rank}", Integer.toString(rank)))
                    : FashionMnist.defaultDir();
            if (!FashionMnist.isPresent(dir)) {
                throw new IllegalStateException("Fashion-MNIST missing: the four IDX files are not in " + dir + " (install Debian's"
                        + " dataset-fashion-mnist, or copy the folder to every machine and pass --data-dir)");
            }
            ArrayDataset train = FashionMnist.train(dir), test = FashionMnist.test(dir);
            if (cfg.trainExamples > 0) train = train.head(Math.min(cfg.trainExamples, train.size()));
            if (cfg.testExamples > 0) test = test.head(Math.min(cfg.testExamples, test.size()));
            return new Dataset[] {train, test};
        }
        int n = cfg.trainExamples > 0 ? cfg.trainExamples : 50_000, m = cfg.testExamples > 0 ? cfg.testExamples : 10_000;
        ArrayDataset all = materialise(new SyntheticDataset(n + m, new int[] {3, 32, 32}, 10, 7));
        return new Dataset[] {slice(all, 0, n), slice(all, n, n + m)};
    }

    /** A synthetic set computed once into memory (it computes each example on every access otherwise). */
    private static ArrayDataset materialise(Dataset d) {
        int fs = d.featureSize();
        float[] x = new float[Math.multiplyExact(d.size(), fs)];
        int[] y = new int[d.size()];
        java.util.stream.IntStream all = java.util.stream.IntStream.range(0, d.size());
        // In parallel only where there are cores to spare (not in the one-core-per-rank CPU runs).
        if (Runtime.getRuntime().availableProcessors() > 1) all = all.parallel();
        all.forEach(i -> {
            d.features(i, x, i * fs);
            y[i] = d.label(i);
        });
        return new ArrayDataset(x, y, d.featureShape(), d.numClasses());
    }

    private static ArrayDataset slice(ArrayDataset d, int from, int to) {
        int fs = d.featureSize();
        float[] x = new float[(to - from) * fs];
        int[] y = new int[to - from];
        for (int i = from; i < to; i++) {
            d.features(i, x, (i - from) * fs);
            y[i - from] = d.label(i);
        }
        return new ArrayDataset(x, y, d.featureShape(), d.numClasses());
    }

    static Module model(SpeedupConfig cfg, Device device) {
        if (cfg.model.equals("mlp")) return Models.mlp(256, device, cfg.seed);
        return cfg.data.equals("fashion") ? Models.cnn(1, 28, cfg.channels[0], cfg.channels[1], device, cfg.seed)
                : Models.cnn(3, 32, cfg.channels[0], cfg.channels[1], device, cfg.seed);
    }

    /**
     * The learning rate of step {@code step} (0-based, counted over epochs): a scaled rate (more ranks, a larger
     * global batch) is reached gradually, linearly from one rank's rate over the first {@code lrWarmupEpochs}
     * epochs (Goyal et al. 2017: large rates at the start of training make it unstable).
     */
    static float warmedUpLr(SpeedupConfig cfg, float base, float target, long step, int stepsPerEpoch) {
        double warm = cfg.lrWarmupEpochs * stepsPerEpoch;
        if (target <= base || warm <= 0 || step >= warm) return target;
        return (float) (base + (target - base) * step / warm);
    }

    static Optimizer optimizer(SpeedupConfig cfg, Module model, float lr) {
        return cfg.optimizer.equals("adam") ? new Adam(model.parameters(), lr) : new SGD(model.parameters(), lr, 0.9f, 0f);
    }

    /**
     * A few steps that load kernels, fill memory pools and let the JIT compile the hot loops, then the model is
     * put back as it was: the epochs measured start from the same weights as without warm-up.
     */
    private static void warmUp(SpeedupConfig cfg, DataParallel dp, DataLoader loader, SoftmaxCrossEntropyLoss lossFn) {
        int steps = cfg.warmupSteps();
        if (steps == 0) return;
        Map<String, NDArray> saved = new LinkedHashMap<>();
        dp.model().state().forEach((k, v) -> saved.put(k, ArrayScope.outside(v::copy)));
        try (Optimizer scratch = optimizer(cfg, dp.model(), 1e-6f)) {
            int done = 0;
            // as many passes as the steps need (a short shard has fewer batches than the warm-up)
            for (int pass = 0, before = -1; done < steps && done > before; pass++) {
                before = done;
                for (Batch b : loader.epoch(1_000_000 + pass)) {
                    try (ArrayScope step = ArrayScope.open(); b) {
                        if (done < steps) dp.step(b, scratch, lossFn);
                    }
                    if (++done >= steps) break;
                }
            }
            dp.model().loadState(saved);
            dp.model().zeroGrad();
        } finally {
            saved.values().forEach(NDArray::close);
        }
    }

    private static void progress(int epoch, int batch, int batches, int epochs) {
        int every = Math.max(1, batches / 40);
        if (batch % every == 0 || batch == batches) {
            System.out.println(PROGRESS + epoch + " " + batch + " " + batches + " " + epochs);
        }
    }

    private static Map<String, Object> row(int batch, Route route, int ranks, Device device, DataParallel dp, int epoch,
                                           float lr, DistributedTraining.EpochResult tr, TimeBreakdown t,
                                           DistributedTraining.EvalResult te) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("route", route.label());
        m.put("ranks", ranks);
        m.put("device", device.isCpu() ? "cpu" : Cuda.device(device.index()).name);
        m.put("epoch", epoch);
        m.put("epoch_s", tr.seconds());
        m.put("samples", tr.samples());
        m.put("samples_per_s", tr.samplesPerSecond());
        m.put("steps", t.steps());
        m.put("train_loss", tr.meanLoss());
        m.put("train_acc", tr.accuracy());
        m.put("test_loss", te.meanLoss());
        m.put("test_acc", te.accuracy());
        m.put("eval_s", te.seconds());
        m.put("forward_s", t.forwardNanos() / 1e9);
        m.put("backward_s", t.backwardNanos() / 1e9);
        m.put("comm_s", t.commNanos() / 1e9);
        m.put("optimizer_s", t.optimizerNanos() / 1e9);
        m.put("d2h_s", t.d2hNanos() / 1e9);
        m.put("collective_s", t.collectiveNanos() / 1e9);
        m.put("h2d_s", t.h2dNanos() / 1e9);
        m.put("collectives", t.collectives());
        m.put("bytes_reduced", t.bytesReduced());
        m.put("batch_per_rank", batch);
        m.put("global_batch", batch * ranks);
        m.put("lr", (double) lr);
        m.put("buckets", dp.bucketCount());
        m.put("gradient_bytes", dp.gradientBytes());
        return m;
    }
}
