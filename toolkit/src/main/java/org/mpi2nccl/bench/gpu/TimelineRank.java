package org.mpi2nccl.bench.gpu;

import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mpi.MPI;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.launch.RankArgs;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The rank program that records lesson 05's GPU timeline: the lesson CNN (32, 64 channels) on a CIFAR-shaped
 * synthetic set (3x32x32, 10 classes), data-parallel through {@link GpuDataParallel}, warmed up, then a
 * {@link Timeline} of a few steps; rank 0 writes every rank's events as a Chrome trace and, where fonts allow, a PNG
 * chart. The warm-up matters: the first steps load kernels and fill the memory pool, and their timeline shows that.
 *
 * <p>Arguments ({@code key=value}, {@link Args}): {@code route=nccl|mpi|ring device=cuda|cpu overlap=true batch-per-rank=128
 * warmup=20 steps=3 bucket-bytes=1048576 cuda-graphs=true examples=4096 seed=1 trace=FILE chart=FILE.png title=TEXT}.
 * On {@code device=cuda} rank r uses GPU r % count.
 */
public final class TimelineRank {
    private TimelineRank() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Args a = RankArgs.parse(new Args(), List.of(rest));
        try (MpjCommunicator host = MpjCommunicator.world()) {
            Route route = Route.parse(a.route);
            Device device = EquivalenceRank.device(a.device, host.rank());
            if (a.perRank < 1 || a.warmup < 0 || a.steps < 1) {
                throw new IllegalArgumentException("batch-per-rank and steps must be at least 1 and warmup at least 0, got "
                        + a.perRank + ", " + a.steps + ", " + a.warmup);
            }
            long seed = a.seed;
            SyntheticDataset data = new SyntheticDataset(a.examples, new int[] {3, 32, 32}, 10, seed);
            int global = a.perRank * host.size();
            DataParallel.Options options = DataParallel.Options.defaults().overlap(a.overlap).bucketBytes(a.bucketBytes);
            GpuOptions gpu = GpuOptions.defaults().cudaGraphs(a.cudaGraphs);
            Communicator comm = route.open(host, device);
            try (Module net = Models.cnn(3, 32, 32, 64, device, seed);
                 GpuDataParallel dp = new GpuDataParallel(net, comm, options, gpu)) {
                // the model's "cnn" name is not read by train: the setup only carries the data, batch, steps and rates
                if (a.warmup > 0) EquivalenceCheck.train(new EquivalenceCheck.Setup("cnn", data, global, a.warmup, seed, 0.05f, 0.9f), dp);
                Timeline timeline = Timeline.attach(dp, a.steps);
                EquivalenceCheck.train(new EquivalenceCheck.Setup("cnn", data, global, a.steps, seed + 1, 0.05f, 0.9f), dp);
                TimelineTrace trace = timeline.gather(host);            // host memory: the MPI communicator carries it
                if (host.rank() == 0) {
                    String title = a.title != null ? a.title : "lesson CNN, " + host.size() + " ranks, " + route.label()
                            + ", overlap " + (options.overlap() ? "on" : "off");
                    System.out.println("rank 0: " + dp + "; " + dp.bucketCount() + " buckets; " + trace.allReduces()
                            + " all-reduces recorded, " + trace.allReducesDuringBackward() + " began during backward; wait for"
                            + " gradients " + trace.waitNanos() / 1000 + " us of " + trace.stepNanos() / 1000 + " us of steps"
                            + " (summed over ranks and steps)");
                    if (a.trace != null) System.out.println("trace: " + trace.write(a.trace));
                    if (a.chart != null) savePng(trace.chart(title), a.chart);
                }
            } finally {
                if (comm != host) comm.close();
            }
        }
        MPI.Finalize();
    }

    /** The program's {@code key=value} arguments, parsed by picocli: each key an option name below. */
    @Command(name = "TimelineRank")
    static final class Args {
        @Option(names = "route", defaultValue = "nccl") String route;
        @Option(names = "device", defaultValue = "cuda") String device;
        @Option(names = "overlap", arity = "1", defaultValue = "true") boolean overlap;
        @Option(names = "batch-per-rank", defaultValue = "128") int perRank;
        @Option(names = "warmup", defaultValue = "20") int warmup;
        @Option(names = "steps", defaultValue = "3") int steps;
        @Option(names = "bucket-bytes", defaultValue = "" + DataParallel.Options.DEFAULT_BUCKET_BYTES) long bucketBytes;
        @Option(names = "cuda-graphs", arity = "1", defaultValue = "true") boolean cudaGraphs;
        @Option(names = "examples", defaultValue = "4096") int examples;
        @Option(names = "seed", defaultValue = "1") long seed;
        /** Where rank 0 writes the Chrome trace; none given: not written. */
        @Option(names = "trace") Path trace;
        /** Where rank 0 writes the chart as a PNG; none given: not drawn. */
        @Option(names = "chart") Path chart;
        /** The chart's title; none given: the model, ranks, route and overlap. */
        @Option(names = "title") String title;
    }

    /** The chart as a PNG, or a line saying why not: a bare GPU node may have no fonts, and the trace holds every event. */
    private static void savePng(XYChart chart, Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            System.out.println("chart: " + file);
        } catch (Exception | Error e) {
            System.out.println("no chart " + file.getFileName() + ": " + e + " (no fonts here? the trace has every event:"
                    + " open it in ui.perfetto.dev)");
        }
    }
}
