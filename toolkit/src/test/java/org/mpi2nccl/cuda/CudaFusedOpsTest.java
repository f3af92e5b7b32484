package org.mpi2nccl.cuda;

import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.BackendTestData;
import org.mpi2nccl.tensor.Storage;

/**
 * The fused kernels beyond the contract (the softmax family) against plain-Java references. The kernels behind the
 * contract's training layers are tested through it (CudaBackendContractTest) and on the CPU (FusedKernelCpuCheckTest).
 */
@Tag("gpu")
class CudaFusedOpsTest {
    private static CudaBackend backend;
    private final BackendTestData data = new BackendTestData();
    private final Random random = new Random(99);

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
        backend = CudaBackend.open(0);
    }

    @AfterEach
    void free() {
        data.freeAll();
    }

    private Storage upload(float[] v) { return data.upload(backend, v); }

    private Storage alloc(long n) { return data.alloc(backend, n); }

    private float[] download(Storage s, int n) { return BackendTestData.download(backend, s, n); }

    private float[] randoms(int n, float lo, float hi) { return BackendTestData.randoms(random, n, lo, hi); }

    private static double[] logSumExp(float[] x, int rows, int cols) {
        double[] out = new double[rows];
        for (int r = 0; r < rows; r++) {
            double m = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < cols; c++) m = Math.max(m, x[r * cols + c]);
            double s = 0;
            for (int c = 0; c < cols; c++) s += Math.exp(x[r * cols + c] - m);
            out[r] = m + Math.log(s);
        }
        return out;
    }

    @Test
    void softmaxFamilyMatchesReference() {
        for (int[] shape : new int[][] {{128, 10}, {7, 33}, {3, 1000}, {1, 1}}) {
            int rows = shape[0], cols = shape[1], n = rows * cols;
            float[] x = randoms(n, -30, 30);
            double[] lse = logSumExp(x, rows, cols);
            float[] sm = new float[n], lsm = new float[n], lseF = new float[rows];
            for (int r = 0; r < rows; r++) {
                lseF[r] = (float) lse[r];
                for (int c = 0; c < cols; c++) {
                    lsm[r * cols + c] = (float) (x[r * cols + c] - lse[r]);
                    sm[r * cols + c] = (float) Math.exp(x[r * cols + c] - lse[r]);
                }
            }
            Storage in = upload(x), out = alloc(n), rowsOut = alloc(rows);
            backend.fused().softmax(in, out, rows, cols);
            GpuTests.assertClose(sm, download(out, n), 1e-5, "softmax " + rows + "x" + cols);
            backend.fused().logSoftmax(in, out, rows, cols);
            GpuTests.assertClose(lsm, download(out, n), 1e-5, "logSoftmax " + rows + "x" + cols);
            backend.fused().logSumExp(in, rowsOut, rows, cols);
            GpuTests.assertClose(lseF, download(rowsOut, rows), 1e-5, "logSumExp " + rows + "x" + cols);

            float[] gy = randoms(n, -1, 1);
            float[] gxSm = new float[n], gxLsm = new float[n];
            for (int r = 0; r < rows; r++) {
                double dot = 0, sum = 0;
                for (int c = 0; c < cols; c++) {
                    dot += gy[r * cols + c] * (double) sm[r * cols + c];
                    sum += gy[r * cols + c];
                }
                for (int c = 0; c < cols; c++) {
                    int i = r * cols + c;
                    gxSm[i] = (float) (sm[i] * (gy[i] - dot));
                    gxLsm[i] = (float) (gy[i] - Math.exp(lsm[i]) * sum);
                }
            }
            Storage g = upload(gy), y = upload(sm), ly = upload(lsm);
            backend.fused().softmaxBackward(y, g, out, rows, cols);
            GpuTests.assertClose(gxSm, download(out, n), 1e-5, "softmaxBackward " + rows + "x" + cols);
            backend.fused().logSoftmaxBackward(ly, g, out, rows, cols);
            GpuTests.assertClose(gxLsm, download(out, n), 1e-5, "logSoftmaxBackward " + rows + "x" + cols);
        }
    }
}
