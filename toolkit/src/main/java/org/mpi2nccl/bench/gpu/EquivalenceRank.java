package org.mpi2nccl.bench.gpu;

import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
import org.mpi2nccl.launch.Report;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

/**
 * The rank program of the equivalence proof ({@link EquivalenceCheck}) on MPJ ranks: trains {@code steps}
 * steps data-parallel over a route, with every setting of the step lesson 05 runs on GPUs
 * ({@link GpuDataParallel}: on the CPU, the plain step), writes its parameters to {@code OUT/rank-R.f32} (little-endian float32)
 * and reports a checksum. The caller compares the files with one rank trained on the whole batch.
 *
 * <p>Arguments ({@code key=value}): {@code route=mpi|ring|nccl device=cpu|cuda model=mlp|cnn|cnn-bn
 * data=synthetic|fashion examples=N batch=B steps=K seed=S lr=0.1 momentum=0.9 overlap=true cuda-graphs=false graph-collectives=true
 * bucket-bytes=1048576 last-bucket-bytes=0 overlap-ctas=0 out=DIR timeline=FILE timeline-steps=2}. On {@code device=cuda}
 * rank r uses GPU r % count. With {@code timeline=FILE} a {@link Timeline} records the first {@code timeline-steps}
 * steps and rank 0 writes every rank's events to FILE as a Chrome trace.
 */
public final class EquivalenceRank {
    private EquivalenceRank() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Map<String, String> a = parse(rest);
        try (MpjCommunicator host = MpjCommunicator.world()) {
            Route route = Route.parse(a.getOrDefault("route", "mpi"));
            Device device = device(a.getOrDefault("device", "cpu"), host.rank());
            EquivalenceCheck.Setup setup = setup(a);
            DataParallel.Options options = DataParallel.Options.defaults()
                    .overlap(Boolean.parseBoolean(a.getOrDefault("overlap", "true")))
                    .bucketBytes(Long.parseLong(a.getOrDefault("bucket-bytes", Long.toString(DataParallel.Options.DEFAULT_BUCKET_BYTES))));
            GpuOptions gpu = GpuOptions.defaults()
                    .cudaGraphs(Boolean.parseBoolean(a.getOrDefault("cuda-graphs", "false")))
                    .graphCollectives(Boolean.parseBoolean(a.getOrDefault("graph-collectives", "true")))
                    .lastBucketBytes(Long.parseLong(a.getOrDefault("last-bucket-bytes", "0")))
                    .overlapCtas(Integer.parseInt(a.getOrDefault("overlap-ctas", "0")));
            Communicator comm = route.open(host, device);
            float[] params;
            try (Module net = EquivalenceCheck.rankModel(setup, device, host.rank());
                 GpuDataParallel dp = new GpuDataParallel(net, comm, options, gpu)) {
                Timeline timeline = a.containsKey("timeline")
                        ? Timeline.attach(dp, Integer.parseInt(a.getOrDefault("timeline-steps", "2"))) : null;
                params = EquivalenceCheck.train(setup, dp);
                if (timeline != null) {
                    TimelineTrace trace = timeline.gather(host);        // host memory: the MPI communicator carries it
                    if (host.rank() == 0) trace.write(Path.of(a.get("timeline")));
                }
                if (gpu.overlapCtas() > 0) System.out.println("rank " + comm.rank() + ": " + dp);
                if (gpu.cudaGraphs()) {
                    System.out.println("rank " + comm.rank() + ": " + dp.graphReplays() + " of " + setup.steps()
                            + " steps replayed from CUDA graphs" + (dp.graphsOff() != null ? " (graphs off: " + dp.graphsOff() + ")" : ""));
                }
            } finally {
                if (comm != host) comm.close();
            }
            Path out = Path.of(a.getOrDefault("out", "."));
            write(out.resolve("rank-" + host.rank() + ".f32"), params);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("route", route.label());
            r.put("device", device.toString());
            r.put("params", params.length);
            r.put("checksum", checksum(params));
            Report.emit(r);
        }
        MPI.Finalize();
    }

    public static EquivalenceCheck.Setup setup(Map<String, String> a) {
        int examples = Integer.parseInt(a.getOrDefault("examples", "192"));
        long seed = Long.parseLong(a.getOrDefault("seed", "3"));
        Dataset data = switch (a.getOrDefault("data", "synthetic")) {
            case "synthetic" -> new SyntheticDataset(examples, new int[] {1, 6, 6}, 5, 11);
            case "fashion" -> FashionMnist.train(a.containsKey("data-dir") ? Path.of(a.get("data-dir")) : FashionMnist.defaultDir()).head(examples);
            default -> throw new IllegalArgumentException("data must be synthetic or fashion, got " + a.get("data"));
        };
        return new EquivalenceCheck.Setup(a.getOrDefault("model", "mlp"), data, Integer.parseInt(a.getOrDefault("batch", "24")),
                Integer.parseInt(a.getOrDefault("steps", "10")), seed, Float.parseFloat(a.getOrDefault("lr", "0.1")),
                Float.parseFloat(a.getOrDefault("momentum", "0.9")));
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

    public static Map<String, String> parse(String[] args) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String s : args) {
            int eq = s.indexOf('=');
            if (eq < 1) throw new IllegalArgumentException("argument '" + s + "' is not key=value");
            m.put(s.substring(0, eq), s.substring(eq + 1));
        }
        return m;
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
