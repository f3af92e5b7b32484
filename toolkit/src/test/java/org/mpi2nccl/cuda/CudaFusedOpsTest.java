package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Storage;

/** The fused kernels beyond the contract (softmax family, cross-entropy, batch norm) against plain-Java references. */
@Tag("gpu")
class CudaFusedOpsTest {
    private static CudaBackend backend;
    private final List<Storage> allocated = new ArrayList<>();
    private final Random random = new Random(99);

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
        backend = CudaBackend.open(0);
    }

    @AfterEach
    void free() {
        allocated.forEach(Storage::close);
        allocated.clear();
    }

    private Storage upload(float[] v) {
        Storage s = backend.allocate(v.length);
        allocated.add(s);
        backend.copyFromHost(v, 0, s, 0, v.length);
        return s;
    }

    private Storage alloc(long n) {
        Storage s = backend.allocate(n);
        allocated.add(s);
        return s;
    }

    private float[] download(Storage s, int n) {
        float[] v = new float[n];
        backend.copyToHost(s, 0, v, 0, n);
        return v;
    }

    private float[] randoms(int n, float lo, float hi) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = lo + (hi - lo) * random.nextFloat();
        return v;
    }

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

    @Test
    void crossEntropyAndItsGradientMatchReference() {
        int rows = 129, cols = 10, n = rows * cols;
        float[] x = randoms(n, -5, 5), labels = new float[rows];
        for (int r = 0; r < rows; r++) labels[r] = random.nextInt(cols);
        labels[5] = 10;                        // not a class: NaN loss and NaN gradient row, no out-of-bounds read
        double[] lse = logSumExp(x, rows, cols);
        float[] loss = new float[rows], grad = new float[n];
        float scale = 1f / rows;
        for (int r = 0; r < rows; r++) {
            boolean ok = r != 5;
            loss[r] = ok ? (float) (lse[r] - x[r * cols + (int) labels[r]]) : Float.NaN;
            for (int c = 0; c < cols; c++) {
                double p = Math.exp(x[r * cols + c] - lse[r]);
                grad[r * cols + c] = ok ? (float) (scale * (p - (c == (int) labels[r] ? 1 : 0))) : Float.NaN;
            }
        }
        Storage sx = upload(x), sl = upload(labels), sloss = alloc(rows), sg = alloc(n);
        backend.fused().crossEntropy(sx, sl, sloss, rows, cols);
        GpuTests.assertClose(loss, download(sloss, rows), 1e-5, "cross-entropy per row");
        backend.fused().crossEntropyBackward(sx, sl, sg, rows, cols, scale);
        GpuTests.assertClose(grad, download(sg, n), 1e-5, "cross-entropy gradient");
    }

    @Test
    void batchNormForwardBackwardAndRunningStatsMatchReference() {
        int n = 16, c = 6, hw = 49, size = n * c * hw;
        float eps = 1e-5f, momentum = 0.1f;
        float[] x = randoms(size, -2, 3), gamma = randoms(c, 0.5f, 1.5f), beta = randoms(c, -1, 1), gy = randoms(size, -1, 1);
        float[] mean = new float[c], var = new float[c], y = new float[size], dgamma = new float[c], dbeta = new float[c], dx = new float[size];
        float[] runMean = randoms(c, -0.1f, 0.1f), runVar = randoms(c, 0.9f, 1.1f), runMean2 = new float[c], runVar2 = new float[c];
        int m = n * hw;
        for (int ch = 0; ch < c; ch++) {
            double s = 0;
            for (int b = 0; b < n; b++) for (int p = 0; p < hw; p++) s += x[(b * c + ch) * hw + p];
            double mu = s / m, q = 0;
            for (int b = 0; b < n; b++) for (int p = 0; p < hw; p++) q += Math.pow(x[(b * c + ch) * hw + p] - mu, 2);
            double v = q / m, inv = 1 / Math.sqrt(v + eps);
            mean[ch] = (float) mu;
            var[ch] = (float) v;
            runMean2[ch] = (1 - momentum) * runMean[ch] + momentum * (float) mu;
            runVar2[ch] = (1 - momentum) * runVar[ch] + momentum * (float) (q / (m - 1));
            double sg = 0, sgx = 0;
            for (int b = 0; b < n; b++)
                for (int p = 0; p < hw; p++) {
                    int i = (b * c + ch) * hw + p;
                    double xhat = (x[i] - mu) * inv;
                    y[i] = (float) (gamma[ch] * xhat + beta[ch]);
                    sg += gy[i];
                    sgx += gy[i] * xhat;
                }
            dbeta[ch] = (float) sg;
            dgamma[ch] = (float) sgx;
            for (int b = 0; b < n; b++)
                for (int p = 0; p < hw; p++) {
                    int i = (b * c + ch) * hw + p;
                    double xhat = (x[i] - mu) * inv;
                    dx[i] = (float) (gamma[ch] * inv / m * (m * gy[i] - sg - xhat * sgx));
                }
        }
        Storage sx = upload(x), sm = alloc(c), sv = alloc(c), sgam = upload(gamma), sbet = upload(beta), sy = alloc(size);
        Storage sgy = upload(gy), sdg = alloc(c), sdb = alloc(c), sdx = alloc(size), srm = upload(runMean), srv = upload(runVar);
        backend.fused().batchNormStats(sx, sm, sv, n, c, hw);
        GpuTests.assertClose(mean, download(sm, c), 1e-4, "batch mean");
        GpuTests.assertClose(var, download(sv, c), 1e-4, "batch variance");
        backend.fused().batchNormApply(sx, sm, sv, sgam, sbet, sy, n, c, hw, eps);
        GpuTests.assertClose(y, download(sy, size), 1e-4, "batch norm output");
        backend.fused().batchNormRunningUpdate(srm, srv, sm, sv, c, m, momentum);
        GpuTests.assertClose(runMean2, download(srm, c), 1e-5, "running mean");
        GpuTests.assertClose(runVar2, download(srv, c), 1e-5, "running variance (unbiased)");
        backend.fused().batchNormBackward(sgy, sx, sm, sv, sgam, sdg, sdb, sdx, n, c, hw, eps);
        GpuTests.assertClose(dbeta, download(sdb, c), 1e-4, "dbeta");
        GpuTests.assertClose(dgamma, download(sdg, c), 1e-4, "dgamma");
        GpuTests.assertClose(dx, download(sdx, size), 1e-4, "dx");
        assertTrue(allocated.size() > 10);
    }
}
