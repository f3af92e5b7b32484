package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.BackendTestData;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;
import org.mpi2nccl.tensor.cpu.CpuBackend;

/**
 * Every launch plan of the streaming kernels on the GPU against the CPU backend: each reduction plan (a warp
 * per row, a block per row, a row shared by many blocks plus the pass over their partials, float4 and scalar
 * column tiles, split columns), the tiled transpose (one plane, batches of planes, thin planes left to the
 * per-element kernel), elementwise and fill at lengths that leave a tail after the float4 part; and more shapes
 * for the one-launch split-row and column reductions and the transpose. Sizes are large enough that the grids loop. Reductions are also run twice: the same bits both times.
 */
@Tag("gpu")
class CudaStreamingKernelsTest {
    private static CudaBackend gpu;
    private static final CpuBackend CPU = CpuBackend.instance();
    private final BackendTestData data = new BackendTestData();
    private final Random random = new Random(5);

    @BeforeAll
    static void requireGpu() {
        GpuTests.requireGpu();
        gpu = CudaBackend.open(0);
    }

    @AfterEach
    void free() {
        data.freeAll();
    }

    private Storage onGpu(float[] v) { return data.upload(gpu, v); }

    private Storage onCpu(float[] v) { return data.upload(CPU, v); }

    private Storage gpuAlloc(long n) { return data.alloc(gpu, n); }

    private Storage cpuAlloc(long n) { return data.alloc(CPU, n); }

    private static float[] download(org.mpi2nccl.tensor.Backend b, Storage s, int n) {
        return BackendTestData.download(b, s, n);
    }

    /** Uniform in [-1, 1). */
    private float[] randoms(int n) { return BackendTestData.randoms(random, n, -1, 1); }

    private void reduceBoth(ReduceOp op, long outer, long reduced, long inner) {
        int n = (int) (outer * reduced * inner), outs = (int) (outer * inner);
        float[] x = randoms(n);
        Storage g = onGpu(x), c = onCpu(x), go = gpuAlloc(outs), co = cpuAlloc(outs);
        gpu.reduce(op, g, go, outer, reduced, inner);
        CPU.reduce(op, c, co, outer, reduced, inner);
        float[] got = download(gpu, go, outs);
        String what = op + " over (" + outer + ", " + reduced + ", " + inner + "), plan "
                + CudaReductions.plan(outer, reduced, inner, gpu.context().device.multiprocessors,
                        CudaReductions.columnsAsFloat4(gpu.deviceAddress(g), inner), CudaReductions.SPLIT_ROW_BLOCKS_PER_SM);
        float[] want = download(CPU, co, outs);
        for (int i = 0; i < outs; i++) {
            // max/min are exact; a float sum's rounding grows with the magnitudes summed (|x| <= 1 here, the CPU
            // sums in double): the contract's 1e-4 relative, plus 1e-6 per term for sums that cancel to near 0
            double tol = op == ReduceOp.SUM ? 1e-4 * Math.max(1, Math.abs(want[i])) + 1e-6 * reduced : 0;
            if (!(Math.abs(want[i] - got[i]) <= tol)) {
                throw new AssertionError(what + ": output " + i + " expected " + want[i] + " but was " + got[i] + " (tolerance " + tol + ")");
            }
        }
        gpu.reduce(op, g, go, outer, reduced, inner);
        assertArrayEquals(got, download(gpu, go, outs), what + ": a second run gives other bits");
    }

    @Test
    void everyReductionPlan() {
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN}) {
            reduceBoth(op, 1, 3_000_001, 1);       // one row shared by many blocks, then a pass over the partials
            reduceBoth(op, 7, 100_003, 1);         // a few long rows, each shared; rows start misaligned
            reduceBoth(op, 70_000, 37, 1);         // many short misaligned rows: a warp each
            reduceBoth(op, 3_000, 2_000, 1);       // medium rows: a block each
            reduceBoth(op, 1, 1_000, 4_096);       // float4 column tiles, rows split into chunks
            reduceBoth(op, 3, 500, 1_001);         // scalar column tiles (1001 % 4 != 0)
            reduceBoth(op, 1, 200_000, 3);         // three columns, a very long axis: several passes
            reduceBoth(op, 2, 1, 5);               // one row to reduce over
        }
    }

    @Test
    void splitRowReductions() {
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN}) {
            reduceBoth(op, 1, 3_000_001, 1);   // one misaligned-tail row shared by many blocks
            reduceBoth(op, 7, 100_003, 1);     // a few rows, each shared; rows start misaligned
            reduceBoth(op, 1, 9_000, 1);       // barely long enough to be split in two
        }
    }

    @Test
    void columnReductions() {
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN}) {
            reduceBoth(op, 1, 1_024, 16_384);   // the benchmark's shape, smaller: float4 tiles, rows cut into chunks
            reduceBoth(op, 3, 500, 1_001);      // scalar tiles (1001 % 4 != 0), several outer indices
            reduceBoth(op, 1, 200_000, 3);      // three columns, a very long axis: many chunks per tile
            reduceBoth(op, 2, 1, 5);            // one row to reduce over
            reduceBoth(op, 700, 70, 8);         // many small tiles: no split
        }
    }

    @Test
    void tiledTransposes() {
        copyBoth(new int[] {1000, 1500}, new int[] {1, 0});          // partial tiles at both edges, misaligned
        copyBoth(new int[] {512, 384}, new int[] {1, 0}, 0);         // whole tiles only
        copyBoth(new int[] {512, 384}, new int[] {1, 0}, 4);
        copyBoth(new int[] {3, 256, 132}, new int[] {0, 2, 1}, 4);   // a batch of aligned planes, partial tiles too
        copyBoth(new int[] {3, 40, 50, 60}, new int[] {2, 0, 3, 1}); // two batch axes
    }

    private void copyBoth(int[] sourceShape, int[] axes) {
        copyBoth(sourceShape, axes, 5);
    }

    /** The permute on both backends into a destination {@code at} floats into its buffer (4: rows stay 16-byte aligned). */
    private void copyBoth(int[] sourceShape, int[] axes, int at) {
        int nd = axes.length;
        long[] srcStrides = Layout.contiguous(Arrays.stream(sourceShape).asLongStream().toArray()).strides();
        int[] shape = new int[nd];
        long[] from = new long[nd];
        for (int d = 0; d < nd; d++) {
            shape[d] = sourceShape[axes[d]];
            from[d] = srcStrides[axes[d]];
        }
        long[] to = Layout.contiguous(Arrays.stream(shape).asLongStream().toArray()).strides();
        int n = Arrays.stream(shape).reduce(1, (a, b) -> a * b);
        float[] x = randoms(n);
        Storage g = onGpu(x), c = onCpu(x), go = gpuAlloc(n + at), co = cpuAlloc(n + at);
        gpu.fill(go, 0, n + at, -7f);
        CPU.fill(co, 0, n + at, -7f);
        gpu.copyStrided(g, 0, from, go, at, to, shape);
        CPU.copyStrided(c, 0, from, co, at, to, shape);
        assertArrayEquals(download(CPU, co, n + at), download(gpu, go, n + at),
                Arrays.toString(sourceShape) + " permuted " + Arrays.toString(axes) + " to offset " + at);
    }

    @Test
    void permutesTiledAndPerElement() {
        copyBoth(new int[] {1000, 1500}, new int[] {1, 0});           // one plane, partial tiles at both edges
        copyBoth(new int[] {5, 130, 70}, new int[] {0, 2, 1});        // a batch of planes
        copyBoth(new int[] {4, 64, 30, 30}, new int[] {0, 2, 3, 1});  // NCHW -> NHWC: (H W) merged
        copyBoth(new int[] {3, 40, 50, 60}, new int[] {2, 0, 3, 1});  // two batch axes
        copyBoth(new int[] {16, 3, 28, 28}, new int[] {0, 2, 3, 1});  // a plane 3 wide: per-element kernel
        copyBoth(new int[] {20, 30, 40}, new int[] {1, 0, 2});        // last axis kept: per-element kernel
    }

    @Test
    void elementwiseAndFillWithTails() {
        for (int n : new int[] {1, 3, 4, 5, 1023, 1_000_003}) {
            float[] a = randoms(n), b = randoms(n);
            Storage ga = onGpu(a), gb = onGpu(b), ca = onCpu(a), cb = onCpu(b), go = gpuAlloc(n), co = cpuAlloc(n);
            gpu.binary(BinaryOp.SUB, ga, gb, go, n);
            CPU.binary(BinaryOp.SUB, ca, cb, co, n);
            assertArrayEquals(download(CPU, co, n), download(gpu, go, n), "SUB n=" + n);
            gpu.binaryScalar(BinaryOp.RDIV, ga, 3f, go, n);
            CPU.binaryScalar(BinaryOp.RDIV, ca, 3f, co, n);
            GpuTests.assertClose(download(CPU, co, n), download(gpu, go, n), 1e-5, "RDIV scalar n=" + n);
            gpu.unary(UnaryOp.EXP, ga, go, n);
            CPU.unary(UnaryOp.EXP, ca, co, n);
            GpuTests.assertClose(download(CPU, co, n), download(gpu, go, n), 1e-5, "EXP n=" + n);
            gpu.binaryScalar(BinaryOp.MUL, ga, 2f, ga, n);               // in place
            CPU.binaryScalar(BinaryOp.MUL, ca, 2f, ca, n);
            assertArrayEquals(download(CPU, ca, n), download(gpu, ga, n), "MUL in place n=" + n);
            float first = download(gpu, go, 1)[0];
            gpu.fill(go, 1, n - 1, 4f);                                   // from a misaligned start
            float[] filled = download(gpu, go, n);
            assertEquals(first, filled[0], "fill n=" + n + " wrote before its start");
            for (int i = 1; i < n; i++) assertEquals(4f, filled[i], "fill n=" + n + " at " + i);
        }
    }
}
