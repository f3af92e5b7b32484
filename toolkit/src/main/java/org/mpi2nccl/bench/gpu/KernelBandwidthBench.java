package org.mpi2nccl.bench.gpu;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * {@code bench-gpu --only bandwidth}: the backend's memory-bound kernels (fill, elementwise, the SGD step,
 * reductions over all elements, rows and columns, the tiled transpose) on large buffers, as GB/s of memory traffic
 * next to the device's own copy (cuMemcpyDtoD) measured the same way. A kernel that streams its data as well as the
 * copy does is at 100%.
 */
public final class KernelBandwidthBench {
    private KernelBandwidthBench() {}

    /**
     * Kernels on {@code bytes}-sized float buffers; traffic counted as bytes read + written. Every case, the copy
     * that is the reference included, is first warmed up and then timed in interleaved rounds
     * ({@link GpuTiming#interleaved}); the figures are the medians over all rounds.
     */
    public static List<GpuFigure> run(CudaBackend backend, long bytes, int reps) {
        CudaContext ctx = backend.context();
        long n = bytes / 4;
        long side = (long) Math.sqrt((double) n);
        List<GpuFigure> out = new ArrayList<>();
        Storage a = backend.allocate(n), b = backend.allocate(n), c = backend.allocate(n), small = backend.allocate(Math.max(n / 1024, 65536));
        try {
            backend.fillUniform(a, n, 0.5f, 1.5f, 3, 0);
            backend.fillUniform(b, n, 0.5f, 1.5f, 4, 0);
            backend.fill(c, 0, n, 0f);
            List<GpuTiming.Timed> cases = new ArrayList<>();
            cases.add(new GpuTiming.Timed("copy (cuMemcpyDtoD)", 2 * n * 4, () -> backend.copy(a, 0, c, 0, n)));
            cases.add(new GpuTiming.Timed("fill", n * 4, () -> backend.fill(c, 0, n, 1f)));
            cases.add(new GpuTiming.Timed("add a+b", 3 * n * 4, () -> backend.binary(BinaryOp.ADD, a, b, c, n)));
            cases.add(new GpuTiming.Timed("mul a*2", 2 * n * 4, () -> backend.binaryScalar(BinaryOp.MUL, a, 2f, c, n)));
            cases.add(new GpuTiming.Timed("exp", 2 * n * 4, () -> backend.unary(UnaryOp.EXP, a, c, n)));
            cases.add(new GpuTiming.Timed("relu", 2 * n * 4, () -> backend.unary(UnaryOp.RELU, a, c, n)));
            cases.add(new GpuTiming.Timed("sgd step (momentum)", 5 * n * 4, () -> backend.sgdStep(c, a, b, n, 1e-9f, 0.9f, 0f)));
            cases.add(new GpuTiming.Timed("sum (all)", n * 4, () -> backend.reduce(ReduceOp.SUM, a, small, 1, n, 1)));
            cases.add(new GpuTiming.Timed("max (all)", n * 4, () -> backend.reduce(ReduceOp.MAX, a, small, 1, n, 1)));
            cases.add(new GpuTiming.Timed("sum rows (" + n / 1024 + " x 1024)", n * 4, () -> backend.reduce(ReduceOp.SUM, a, small, n / 1024, 1024, 1)));
            cases.add(new GpuTiming.Timed("sum columns (1024 x " + n / 1024 + ")", n * 4, () -> backend.reduce(ReduceOp.SUM, a, small, 1, 1024, n / 1024)));
            cases.add(new GpuTiming.Timed("transpose " + side + "x" + side, 2 * side * side * 4, () -> backend.copyStrided(a, 0, new long[] {1, side}, c, 0,
                    new long[] {side, 1}, new int[] {(int) side, (int) side})));
            GpuTiming.interleaved(ctx, cases, reps);
            GpuTiming.Timed copy = cases.get(0);
            double copyGbs = copy.gbs(copy.singleMs());
            for (GpuTiming.Timed k : cases) {
                double gbs = k.gbs(k.singleMs()), queuedGbs = k.gbs(k.queuedMs());
                String note = k == copy ? String.format("reference: 1 read + 1 write; %d back to back: %.0f GB/s", GpuTiming.BACK_TO_BACK, queuedGbs)
                        : String.format("%.0f%% of copy; %d back to back: %.0f GB/s (%.0f%%)", 100 * gbs / copyGbs, GpuTiming.BACK_TO_BACK,
                                queuedGbs, 100 * queuedGbs / copyGbs);
                out.add(new GpuFigure("bandwidth", k.name, gbs, "GB/s", k.singleMs(), note + "; interleaved rounds: " + GpuTiming.ROUNDS));
            }
        } finally {
            a.close();
            b.close();
            c.close();
            small.close();
        }
        return out;
    }
}
