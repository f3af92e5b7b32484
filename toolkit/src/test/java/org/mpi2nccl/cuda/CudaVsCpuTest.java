package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.mpi2nccl.tensor.BackendTestData.size;

import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.BackendTestData;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * The same NDArray programs on the CPU and on GPU 0, on fresh random inputs, compared element by element with
 * the backend contract's tolerances (1e-5 relative elementwise, 1e-4 reductions and GEMM, TF32 off). Covers what the
 * contract test does not: views, broadcasting over several axes, reductions over any axes, batched matmul
 * through NDArray, stacks of ops, random initialisation.
 */
@Tag("gpu")
class CudaVsCpuTest {
    private static final Device GPU = Device.cuda(0);
    private final Random random = new Random(2024);

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
    }

    private float[] randoms(int n, float lo, float hi) { return BackendTestData.randoms(random, n, lo, hi); }

    /** Runs {@code program} on inputs placed on each device and compares the results. */
    private void same(String what, double rel, Function<NDArray[], NDArray> program, float[][] inputs, int[][] shapes) {
        float[] cpu, gpu;
        try (ArrayScope s = ArrayScope.open()) {
            cpu = program.apply(place(Device.cpu(), inputs, shapes)).toArray();
        }
        try (ArrayScope s = ArrayScope.open()) {
            NDArray out = program.apply(place(GPU, inputs, shapes));
            if (!out.device().equals(GPU)) throw new AssertionError(what + ": result left the GPU (" + out.device() + ")");
            gpu = out.toArray();
        }
        GpuTests.assertClose(cpu, gpu, rel, what);
    }

    private static NDArray[] place(Device d, float[][] inputs, int[][] shapes) {
        NDArray[] a = new NDArray[inputs.length];
        for (int i = 0; i < inputs.length; i++) a[i] = NDArray.of(d, inputs[i], shapes[i]);
        return a;
    }

    @Test
    void broadcastingBinaryOpsOverSeveralAxes() {
        int[] sa = {4, 1, 5, 6}, sb = {3, 1, 6};
        for (BinaryOp op : BinaryOp.values()) {
            boolean positive = op == BinaryOp.POW || op == BinaryOp.DIV || op == BinaryOp.RDIV;
            float[] a = randoms(size(sa), positive ? 0.5f : -3, 3), b = randoms(size(sb), positive ? 0.5f : -3, positive ? 2 : 3);
            same("broadcast " + op, 1e-5, x -> x[0].binary(op, x[1]), new float[][] {a, b}, new int[][] {sa, sb});
        }
    }

    @Test
    void unaryOpsOnTransposedAndSlicedViews() {
        int[] shape = {6, 7, 8};
        for (UnaryOp op : UnaryOp.values()) {
            boolean positive = op == UnaryOp.LOG || op == UnaryOp.SQRT || op == UnaryOp.RECIPROCAL;
            float[] a = randoms(size(shape), positive ? 0.1f : -4, 4);
            same("unary " + op + " of a permuted slice", 1e-5,
                    x -> x[0].permute(2, 0, 1).slice(0, 1, 7, 2).unary(op), new float[][] {a}, new int[][] {shape});
        }
    }

    @Test
    void reductionsOverEveryAxisCombination() {
        int[] shape = {5, 9, 4, 3};
        float[] a = randoms(size(shape), -2, 2);
        int[][] axesSets = {{0}, {1}, {2}, {3}, {0, 2}, {1, 3}, {0, 1, 2, 3}};
        for (int[] axes : axesSets) {
            String ax = java.util.Arrays.toString(axes);
            same("sum " + ax, 1e-4, x -> x[0].sum(axes), new float[][] {a}, new int[][] {shape});
            same("max " + ax, 1e-4, x -> x[0].max(axes), new float[][] {a}, new int[][] {shape});
            same("min " + ax, 1e-4, x -> x[0].min(axes), new float[][] {a}, new int[][] {shape});
            same("mean " + ax, 1e-4, x -> x[0].mean(axes), new float[][] {a}, new int[][] {shape});
        }
        for (int axis = 0; axis < 4; axis++) {
            int ax = axis;
            same("argmax " + axis, 0, x -> x[0].argmax(ax), new float[][] {a}, new int[][] {shape});
        }
        same("sum of a transposed view", 1e-4, x -> x[0].transpose(1, 3).sum(1), new float[][] {a}, new int[][] {shape});
    }

    @Test
    void matmulShapesThroughNDArray() {
        int[][][] cases = {{{33, 17}, {17, 29}}, {{4, 33, 17}, {17, 29}}, {{4, 33, 17}, {4, 17, 29}}, {{1, 1}, {1, 300}}, {{300, 1}, {1, 1}}};
        for (int[][] c : cases) {
            float[] a = randoms(size(c[0]), -1, 1), b = randoms(size(c[1]), -1, 1);
            same("matmul " + java.util.Arrays.deepToString(c), 1e-4, x -> x[0].matmul(x[1]), new float[][] {a, b}, c);
        }
        float[] a = randoms(40 * 30, -1, 1), b = randoms(20 * 40, -1, 1);
        same("matmul of transposed views", 1e-4, x -> x[0].transpose().matmul(x[1].transpose()), new float[][] {a, b},
                new int[][] {{40, 30}, {20, 40}});
    }

    @Test
    void matmulThroughBothCublasRoutes() {
        Cublas blas = CudaBackend.open(0).context().cublas();
        try {
            for (Cublas.Route route : Cublas.Route.values()) {
                blas.setRoute(route);
                float[] a = randoms(65 * 70, -1, 1), b = randoms(70 * 33, -1, 1);
                same("matmul via " + route, 1e-4, x -> x[0].matmul(x[1]), new float[][] {a, b}, new int[][] {{65, 70}, {70, 33}});
                same("matmul of transposed views via " + route, 1e-4, x -> x[1].transpose().matmul(x[0].transpose()), new float[][] {a, b},
                        new int[][] {{65, 70}, {70, 33}});
            }
        } finally {
            blas.setRoute(Cublas.DEFAULT_ROUTE);
        }
    }

    @Test
    void aStackOfOpsLikeALayer() {
        int[] sx = {64, 100}, sw = {100, 50}, sb = {50};
        float[] x = randoms(size(sx), -1, 1), w = randoms(size(sw), -0.2f, 0.2f), b = randoms(size(sb), -0.1f, 0.1f);
        same("relu(x W + b) then log-softmax by ops", 1e-4, in -> {
            NDArray h = in[0].matmul(in[1]).add(in[2]).relu();
            NDArray shifted = h.sub(h.maxKeepDims(1));
            return shifted.sub(shifted.exp().sumKeepDims(1).log());
        }, new float[][] {x, w, b}, new int[][] {sx, sw, sb});
        same("concat and stack", 0, in -> NDArray.stack(0, NDArray.concat(1, in[0], in[0].mul(2f)), NDArray.concat(1, in[0].neg(), in[0])),
                new float[][] {x}, new int[][] {sx});
    }

    @Test
    void randomInitialisationIsTheSameOnBothDevices() {
        float[] cpu, gpu;
        try (ArrayScope s = ArrayScope.open()) {
            cpu = NDArray.uniform(Device.cpu(), new Rng(7), -0.5f, 0.5f, 300, 200).toArray();
            gpu = NDArray.uniform(GPU, new Rng(7), -0.5f, 0.5f, 300, 200).toArray();
        }
        assertArrayEquals(cpu, gpu, "uniform init must be bit-identical");
        try (ArrayScope s = ArrayScope.open()) {
            cpu = NDArray.normal(Device.cpu(), new Rng(8), 0f, 0.05f, 300, 200).toArray();
            gpu = NDArray.normal(GPU, new Rng(8), 0f, 0.05f, 300, 200).toArray();
        }
        GpuTests.assertClose(cpu, gpu, 2e-6, "normal init");
    }

    @Test
    void convolutionAsIm2colPlusBatchedGemm() {
        ConvGeometry g = new ConvGeometry(8, 3, 28, 28, 5, 5, 1, 2);
        int oc = 16;
        float[] x = randoms((int) g.inputSize(), -1, 1), w = randoms(oc * g.colRows(), -0.3f, 0.3f);
        float[] cpu = conv(Device.cpu(), x, w, g, oc), gpu = conv(GPU, x, w, g, oc);
        GpuTests.assertClose(cpu, gpu, 1e-4, "conv2d " + g);
    }

    private static float[] conv(Device d, float[] x, float[] w, ConvGeometry g, int oc) {
        var be = d.backend();
        long colSize = (long) g.n() * g.colRows() * g.colCols();
        Storage sx = be.allocate(x.length), sw = be.allocate(w.length), cols = be.allocate(colSize), out = be.allocate((long) g.n() * oc * g.colCols());
        try {
            be.copyFromHost(x, 0, sx, 0, x.length);
            be.copyFromHost(w, 0, sw, 0, w.length);
            be.im2col(sx, cols, g);
            be.matmul(sw, cols, out, g.n(), oc, g.colCols(), g.colRows(), false, false, 0, (long) g.colRows() * g.colCols());
            float[] y = new float[(int) out.size()];
            be.copyToHost(out, 0, y, 0, y.length);
            return y;
        } finally {
            sx.close();
            sw.close();
            cols.close();
            out.close();
        }
    }
}
