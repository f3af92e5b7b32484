package org.mpi2nccl.bench.gpu;

import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import mpi.MPI;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

/**
 * The rank program that records lesson 05's GPU timeline: the lesson CNN (32, 64 channels) on a CIFAR-shaped
 * synthetic set (3x32x32, 10 classes), data-parallel through {@link GpuDataParallel}, warmed up, then a
 * {@link Timeline} of a few steps; rank 0 writes every rank's events as a Chrome trace and, where fonts allow, a PNG
 * chart. The warm-up matters: the first steps load kernels and fill the memory pool, and their timeline shows that.
 *
 * <p>Arguments ({@code key=value}): {@code route=nccl|mpi|ring device=cuda|cpu overlap=true batch-per-rank=128
 * warmup=20 steps=3 bucket-bytes=1048576 cuda-graphs=true examples=4096 seed=1 trace=FILE chart=FILE.png title=TEXT}.
 * On {@code device=cuda} rank r uses GPU r % count.
 */
public final class TimelineRank {
    private TimelineRank() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Map<String, String> a = EquivalenceRank.parse(rest);
        try (MpjCommunicator host = MpjCommunicator.world()) {
            Route route = Route.parse(a.getOrDefault("route", "nccl"));
            Device device = EquivalenceRank.device(a.getOrDefault("device", "cuda"), host.rank());
            int perRank = Integer.parseInt(a.getOrDefault("batch-per-rank", "128"));
            int warmup = Integer.parseInt(a.getOrDefault("warmup", "20"));
            int steps = Integer.parseInt(a.getOrDefault("steps", "3"));
            if (perRank < 1 || warmup < 0 || steps < 1) {
                throw new IllegalArgumentException("batch-per-rank and steps must be at least 1 and warmup at least 0, got "
                        + perRank + ", " + steps + ", " + warmup);
            }
            long seed = Long.parseLong(a.getOrDefault("seed", "1"));
            int examples = Integer.parseInt(a.getOrDefault("examples", "4096"));
            SyntheticDataset data = new SyntheticDataset(examples, new int[] {3, 32, 32}, 10, seed);
            int global = perRank * host.size();
            DataParallel.Options options = DataParallel.Options.defaults()
                    .overlap(Boolean.parseBoolean(a.getOrDefault("overlap", "true")))
                    .bucketBytes(Long.parseLong(a.getOrDefault("bucket-bytes", Long.toString(DataParallel.Options.DEFAULT_BUCKET_BYTES))));
            GpuOptions gpu = GpuOptions.defaults().cudaGraphs(Boolean.parseBoolean(a.getOrDefault("cuda-graphs", "true")));
            Communicator comm = route.open(host, device);
            try (Module net = Models.cnn(3, 32, 32, 64, device, seed);
                 GpuDataParallel dp = new GpuDataParallel(net, comm, options, gpu)) {
                // the model's "cnn" name is not read by train: the setup only carries the data, batch, steps and rates
                if (warmup > 0) EquivalenceCheck.train(new EquivalenceCheck.Setup("cnn", data, global, warmup, seed, 0.05f, 0.9f), dp);
                Timeline timeline = Timeline.attach(dp, steps);
                EquivalenceCheck.train(new EquivalenceCheck.Setup("cnn", data, global, steps, seed + 1, 0.05f, 0.9f), dp);
                TimelineTrace trace = timeline.gather(host);            // host memory: the MPI communicator carries it
                if (host.rank() == 0) {
                    String title = a.getOrDefault("title", "lesson CNN, " + host.size() + " ranks, " + route.label()
                            + ", overlap " + (options.overlap() ? "on" : "off"));
                    System.out.println("rank 0: " + dp + "; " + dp.bucketCount() + " buckets; " + trace.allReduces()
                            + " all-reduces recorded, " + trace.allReducesDuringBackward() + " began during backward; wait for"
                            + " gradients " + trace.waitNanos() / 1000 + " us of " + trace.stepNanos() / 1000 + " us of steps"
                            + " (summed over ranks and steps)");
                    if (a.containsKey("trace")) System.out.println("trace: " + trace.write(Path.of(a.get("trace"))));
                    if (a.containsKey("chart")) savePng(trace.chart(title), Path.of(a.get("chart")));
                }
            } finally {
                if (comm != host) comm.close();
            }
        }
        MPI.Finalize();
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
