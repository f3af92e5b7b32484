package org.mpi2nccl.cli;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.mpi2nccl.bench.gpu.GemmBench;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.bench.gpu.GpuFigure;
import org.mpi2nccl.bench.gpu.KernelBandwidthBench;
import org.mpi2nccl.bench.gpu.LaunchCostBench;
import org.mpi2nccl.bench.gpu.StagingBench;
import org.mpi2nccl.bench.gpu.TrainStepBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mpi2nccl bench-gpu}: GEMM, memory-bound kernels, host staging, launch cost and a CNN training step on one
 * GPU (the benchmarks of org.mpi2nccl.bench.gpu), as a table and optionally as JSON for comparison with
 * scripts/gpu/torch_peer.py.
 */
@Command(name = "bench-gpu", mixinStandardHelpOptions = true,
        description = "Benchmark the CUDA backend on one GPU: cuBLAS GEMM, elementwise/reduction kernels vs copy bandwidth, host<->GPU staging, the host's cost per kernel launch, a CNN training step (eager and replayed from a CUDA graph).")
public final class GpuBenchCommand implements Callable<Integer> {
    @Option(names = "--device", description = "GPU number (default ${DEFAULT-VALUE})", defaultValue = "0")
    int device;

    /** What --only may name. */
    static final java.util.List<String> PARTS = java.util.List.of("gemm", "gemm-calls", "bandwidth", "staging", "launch", "train");

    @Option(names = "--only", split = ",", description = "subset of: gemm, bandwidth, staging, launch, train (default: all), and gemm-calls (one GEMM per cuBLAS route"
                    + " and TF32 setting, for cuBLAS's API log; never part of the default)")
    Set<String> only;

    @Option(names = "--gemm-size", description = "n of the n x n x n GEMM (default ${DEFAULT-VALUE})", defaultValue = "4096")
    int gemmSize;

    @Option(names = "--mib", description = "buffer size of the bandwidth runs in MiB (default ${DEFAULT-VALUE})", defaultValue = "256")
    long mib;

    @Option(names = "--staging-mib", split = ",", description = "sizes of the staging runs in MiB (default ${DEFAULT-VALUE})", defaultValue = "1,16,64,256")
    long[] stagingMib;

    @Option(names = "--reps", description = "timed repetitions per figure, median reported (default ${DEFAULT-VALUE})", defaultValue = "20")
    int reps;

    @Option(names = "--batch", split = ",", description = "batches of the CNN train step, one figure each, e.g. 128,512,2048,8192"
            + " (default ${DEFAULT-VALUE})", defaultValue = "128")
    int[] batches;

    @Option(names = "--train-warmup", description = "seconds of untimed train steps before each batch's timed ones (default ${DEFAULT-VALUE})",
            defaultValue = "" + TrainStepBench.TRAIN_WARMUP_SECONDS)
    double trainWarmup;

    @Option(names = "--profiled-steps", description = "no train timings: after the warm-up, this many eager train steps per batch as the one range"
            + " a profiler started with profiling off records, e.g. ncu --profile-from-start off (default ${DEFAULT-VALUE})", defaultValue = "0")
    int profiledSteps;

    @Option(names = "--channels", split = ",", description = "CNN channels c1,c2 (default ${DEFAULT-VALUE})", defaultValue = "32,64")
    int[] channels;

    @Option(names = "--json", description = "also write the results to this JSON file")
    Path json;

    @Override
    public Integer call() throws IOException {
        if (only != null && !PARTS.containsAll(only)) {
            System.err.println("bench-gpu: --only " + String.join(",", only) + ": use some of " + PARTS);
            return 2;
        }
        if (gemmSize < 1 || mib < 1 || reps < 1 || trainWarmup < 0 || profiledSteps < 0) {
            System.err.println("bench-gpu: --gemm-size, --mib and --reps must be positive, --train-warmup and --profiled-steps not negative");
            return 2;
        }
        for (int b : batches) {
            if (b < 1) {
                System.err.println("bench-gpu: --batch " + b + ": every batch must be positive, e.g. --batch 128,512,2048,8192");
                return 2;
            }
        }
        if (!Cuda.isAvailable()) {
            System.err.println("bench-gpu: no GPU: " + Cuda.unavailableReason());
            return 2;
        }
        CudaBackend backend = CudaBackend.open(device);
        System.out.println(backend.describe());
        System.out.println("kernel launches: " + backend.context().launchDescription());
        List<GpuFigure> results = new ArrayList<>();
        if (only != null && only.contains("gemm-calls")) results.addAll(print(GemmBench.gemmCalls(backend, gemmSize)));
        if (wants("gemm")) results.addAll(print(GemmBench.gemm(backend, gemmSize, reps)));
        if (wants("bandwidth")) results.addAll(print(KernelBandwidthBench.run(backend, mib << 20, reps)));
        if (wants("staging")) {
            long[] bytes = new long[stagingMib.length];
            for (int i = 0; i < bytes.length; i++) bytes[i] = stagingMib[i] << 20;
            results.addAll(print(StagingBench.run(backend.context(), bytes, Math.max(3, reps / 4))));
        }
        if (wants("launch")) results.addAll(print(LaunchCostBench.run(backend, reps)));
        if (wants("train")) {
            for (int b : batches) {
                results.addAll(print(TrainStepBench.trainStep(backend, b, channels[0], channels[1], Math.max(20, reps), trainWarmup,
                        profiledSteps)));
            }
        }
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("device", backend.describe());
            doc.put("driver_cuda", Cuda.versionString(Cuda.driverVersion()));
            doc.put("kernel_launches", backend.context().launchDescription());
            doc.put("results", results);
            Files.writeString(json, new GsonBuilder().setPrettyPrinting().create().toJson(doc));
            System.out.println("written: " + json);
        }
        return 0;
    }

    private boolean wants(String what) {
        return only == null || only.isEmpty() || only.contains(what);
    }

    private static List<GpuFigure> print(List<GpuFigure> rs) {
        for (GpuFigure r : rs) {
            System.out.printf("%-10s %-44s %10.2f %-8s %9.3f ms  %s%n", r.group(), r.name(), r.value(), r.unit(), r.ms(), r.note());
        }
        return rs;
    }
}
