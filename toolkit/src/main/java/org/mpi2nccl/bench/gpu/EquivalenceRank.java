package org.mpi2nccl.bench.gpu;

import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.data.Dataset;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.launch.RankArgs;
import org.mpi2nccl.launch.Report;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The rank program of the equivalence proof ({@link EquivalenceCheck}) on MPJ ranks: trains {@code steps}
 * steps data-parallel over a route, with every setting of the step lesson 05 runs on GPUs
 * ({@link GpuDataParallel}: on the CPU, the plain step), writes its parameters to {@code OUT/rank-R.f32} (little-endian float32)
 * and reports a checksum. The caller compares the files with one rank trained on the whole batch.
 *
 * <p>Arguments ({@code key=value}, {@link Args}): {@code route=mpi|ring|nccl device=cpu|cuda model=mlp|cnn|cnn-bn
 * data=synthetic|fashion examples=N batch=B steps=K seed=S lr=0.1 momentum=0.9 overlap=true cuda-graphs=false graph-collectives=true
 * bucket-bytes=1048576 last-bucket-bytes=0 overlap-ctas=0 out=DIR timeline=FILE timeline-steps=2}. On {@code device=cuda}
 * rank r uses GPU r % count. With {@code timeline=FILE} a {@link Timeline} records the first {@code timeline-steps}
 * steps and rank 0 writes every rank's events to FILE as a Chrome trace.
 */
public final class EquivalenceRank {
    private EquivalenceRank() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Args a = parse(rest);
        try (MpjCommunicator host = MpjCommunicator.world()) {
            Route route = Route.parse(a.route);
            Device device = device(a.device, host.rank());
            EquivalenceCheck.Setup setup = a.setup();
            DataParallel.Options options = a.dataParallel();
            GpuOptions gpu = a.gpu();
            Communicator comm = route.open(host, device);
            float[] params;
            try (Module net = EquivalenceCheck.rankModel(setup, device, host.rank());
                 GpuDataParallel dp = new GpuDataParallel(net, comm, options, gpu)) {
                Timeline timeline = a.timeline != null ? Timeline.attach(dp, a.timelineSteps) : null;
                params = EquivalenceCheck.train(setup, dp);
                if (timeline != null) {
                    TimelineTrace trace = timeline.gather(host);        // host memory: the MPI communicator carries it
                    if (host.rank() == 0) trace.write(a.timeline);
                }
                if (gpu.overlapCtas() > 0) System.out.println("rank " + comm.rank() + ": " + dp);
                if (gpu.cudaGraphs()) {
                    System.out.println("rank " + comm.rank() + ": " + dp.graphReplays() + " of " + setup.steps()
                            + " steps replayed from CUDA graphs" + (dp.graphsOff() != null ? " (graphs off: " + dp.graphsOff() + ")" : ""));
                }
            } finally {
                if (comm != host) comm.close();
            }
            write(a.out.resolve("rank-" + host.rank() + ".f32"), params);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("route", route.label());
            r.put("device", device.toString());
            r.put("params", params.length);
            r.put("checksum", checksum(params));
            Report.emit(r);
        }
        MPI.Finalize();
    }

    /** The program's {@code key=value} arguments, parsed by picocli: each key an option name below. */
    @Command(name = "EquivalenceRank")
    public static final class Args {
        @Option(names = "route", defaultValue = "mpi") String route;
        @Option(names = "device", defaultValue = "cpu") String device;
        @Option(names = "model", defaultValue = "mlp") String model;
        @Option(names = "data", defaultValue = "synthetic") String data;
        /** Where Fashion-MNIST is, with {@code data=fashion}; none given: {@link FashionMnist#defaultDir()}. */
        @Option(names = "data-dir") Path dataDir;
        @Option(names = "examples", defaultValue = "192") int examples;
        @Option(names = "batch", defaultValue = "24") int batch;
        @Option(names = "steps", defaultValue = "10") int steps;
        @Option(names = "seed", defaultValue = "3") long seed;
        @Option(names = "lr", defaultValue = "0.1") float lr;
        @Option(names = "momentum", defaultValue = "0.9") float momentum;
        @Option(names = "overlap", arity = "1", defaultValue = "true") boolean overlap;
        @Option(names = "bucket-bytes", defaultValue = "" + DataParallel.Options.DEFAULT_BUCKET_BYTES) long bucketBytes;
        @Option(names = "cuda-graphs", arity = "1", defaultValue = "false") boolean cudaGraphs;
        @Option(names = "graph-collectives", arity = "1", defaultValue = "true") boolean graphCollectives;
        @Option(names = "last-bucket-bytes", defaultValue = "0") long lastBucketBytes;
        @Option(names = "overlap-ctas", defaultValue = "0") int overlapCtas;
        /** The folder for {@code rank-R.f32}. */
        @Option(names = "out", defaultValue = ".") Path out;
        /** Where rank 0 writes the Chrome trace of the first {@code timeline-steps} steps; none given: no timeline. */
        @Option(names = "timeline") Path timeline;
        @Option(names = "timeline-steps", defaultValue = "2") int timelineSteps;

        /** The model, data set, batch, steps, seed and rates to train. */
        public EquivalenceCheck.Setup setup() {
            Dataset set = switch (data) {
                case "synthetic" -> new SyntheticDataset(examples, new int[] {1, 6, 6}, 5, 11);
                case "fashion" -> FashionMnist.train(dataDir != null ? dataDir : FashionMnist.defaultDir()).head(examples);
                default -> throw new IllegalArgumentException("data must be synthetic or fashion, got " + data);
            };
            return new EquivalenceCheck.Setup(model, set, batch, steps, seed, lr, momentum);
        }

        public DataParallel.Options dataParallel() {
            return DataParallel.Options.defaults().overlap(overlap).bucketBytes(bucketBytes);
        }

        public GpuOptions gpu() {
            return GpuOptions.defaults().cudaGraphs(cudaGraphs).graphCollectives(graphCollectives)
                    .lastBucketBytes(lastBucketBytes).overlapCtas(overlapCtas);
        }
    }

    /** The arguments; IllegalArgumentException naming a key it does not know or a value that does not parse. */
    public static Args parse(String... args) {
        return RankArgs.parse(new Args(), List.of(args));
    }

    /** "cpu", or "cuda": this rank's GPU, rank % count. */
    static Device device(String kind, int rank) {
        if (kind.equals("cpu")) return Device.cpu();
        if (kind.equals("cuda")) {
            int gpus = org.mpi2nccl.cuda.Cuda.deviceCount();
            if (gpus == 0) throw new IllegalStateException("rank " + rank + ": device=cuda but no GPU: " + org.mpi2nccl.cuda.Cuda.unavailableReason());
            return Device.cuda(rank % gpus);
        }
        throw new IllegalArgumentException("device must be cpu or cuda, got " + kind);
    }

    static void write(Path file, float[] values) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, b.array());
    }

    /** Reads a file written by {@link #write}. */
    public static float[] read(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        float[] v = new float[b.remaining() / 4];
        b.asFloatBuffer().get(v);
        return v;
    }

    static double checksum(float[] v) {
        double s = 0;
        for (int i = 0; i < v.length; i++) s += v[i] * (1 + (i % 7));
        return s;
    }
}
