package org.mpi2nccl.bench.gpu;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.cuda.DeviceMemory;
import org.mpi2nccl.cuda.PinnedHostBuffer;

/**
 * {@code bench-gpu --only staging}: host <-> GPU copies as the MPI lesson's route makes them (its ranks send Java
 * arrays, so GPU data goes through the host): pageable Java arrays, pinned buffers, and pinned plus the
 * Java-array copy that feeding MPJ needs. Wall-clock time of each blocking copy, median of the repetitions.
 */
public final class StagingBench {
    private StagingBench() {}

    /** The MPI route's copies for each size in bytes: pageable arrays, pinned buffers, pinned + Java copy. */
    public static List<GpuFigure> run(CudaContext ctx, long[] sizes, int reps) {
        List<GpuFigure> out = new ArrayList<>();
        for (long bytes : sizes) {
            int n = (int) (bytes / 4);
            float[] host = new float[n];
            Arrays.fill(host, 1.25f);
            String mib = bytes / (1024 * 1024) + " MiB";
            try (DeviceMemory d = ctx.allocate(bytes); PinnedHostBuffer pinned = PinnedHostBuffer.allocate(ctx, bytes)) {
                FloatBuffer pf = pinned.floatBuffer();
                add(out, "float[] -> GPU (pageable) " + mib, bytes, GpuTiming.timeHost(reps, () -> d.copyFrom(host)));
                add(out, "GPU -> float[] (pageable) " + mib, bytes, GpuTiming.timeHost(reps, () -> d.copyTo(host)));
                add(out, "pinned -> GPU " + mib, bytes, GpuTiming.timeHost(reps, () -> pinned.copyToDevice(d, bytes)));
                add(out, "GPU -> pinned " + mib, bytes, GpuTiming.timeHost(reps, () -> pinned.copyFromDevice(d, bytes)));
                add(out, "float[] -> pinned -> GPU " + mib, bytes, GpuTiming.timeHost(reps, () -> {
                    pf.clear();
                    pf.put(host);
                    pinned.copyToDevice(d, bytes);
                }));
                add(out, "GPU -> pinned -> float[] " + mib, bytes, GpuTiming.timeHost(reps, () -> {
                    pinned.copyFromDevice(d, bytes);
                    pf.clear();
                    pf.get(host);
                }));
            }
        }
        return out;
    }

    private static void add(List<GpuFigure> out, String name, long bytes, double ms) {
        out.add(new GpuFigure("staging", name, bytes / (ms * 1e-3) / 1e9, "GB/s", ms, ""));
    }
}
