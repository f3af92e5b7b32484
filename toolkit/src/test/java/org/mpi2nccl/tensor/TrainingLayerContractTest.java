package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The {@link Backend} contract's fused training layers: batch norm (forward and backward), ReLU's backward,
 * softmax cross-entropy with its gradient and the epoch's batch metrics, each against a plain-Java reference in
 * double. Run for each backend through {@link BackendContractTest}'s subclasses.
 */
public abstract class TrainingLayerContractTest extends BackendContractFixture {

    // ---- fused training layers: batch norm and softmax cross-entropy, against plain-Java references in double ----

    @Test
    void batchNormForwardAndBackwardMatchReference() {
        // shapes of the lesson CNN's layers (scaled down), one with inner = 1 (a batch norm over features)
        int[][] cases = {{6, 4, 49}, {3, 5, 1}, {2, 3, 130}};
        for (int[] cs : cases) {
            int outer = cs[0], ch = cs[1], inner = cs[2], n = outer * ch * inner, m = outer * inner;
            float eps = 1e-5f, momentum = 0.1f;
            float[] x = randoms(n, -2, 3), gamma = randoms(ch, 0.5f, 1.5f), beta = randoms(ch, -1, 1), dy = randoms(n, -1, 1);
            float[] rm = randoms(ch, -1, 1), rv = randoms(ch, 0.5f, 2);
            double[] mean = new double[ch], var = new double[ch];
            for (int o = 0; o < outer; o++)
                for (int c = 0; c < ch; c++)
                    for (int i = 0; i < inner; i++) mean[c] += x[(o * ch + c) * inner + i] / (double) m;
            for (int o = 0; o < outer; o++)
                for (int c = 0; c < ch; c++)
                    for (int i = 0; i < inner; i++) {
                        double d = x[(o * ch + c) * inner + i] - mean[c];
                        var[c] += d * d / m;
                    }
            float[] eY = new float[n], eDx = new float[n], eMean = new float[ch], eInv = new float[ch], eRm = new float[ch], eRv = new float[ch];
            float[] eDg = new float[ch], eDb = new float[ch];
            double[] sg = new double[ch], sgx = new double[ch];
            for (int c = 0; c < ch; c++) {
                eMean[c] = (float) mean[c];
                eInv[c] = (float) (1 / Math.sqrt(var[c] + eps));
                eRm[c] = (float) ((1 - momentum) * rm[c] + momentum * mean[c]);
                eRv[c] = (float) ((1 - momentum) * rv[c] + momentum * var[c] * m / (m - 1));
            }
            for (int o = 0; o < outer; o++)
                for (int c = 0; c < ch; c++)
                    for (int i = 0; i < inner; i++) {
                        int at = (o * ch + c) * inner + i;
                        double xhat = (x[at] - mean[c]) / Math.sqrt(var[c] + eps);
                        eY[at] = (float) (gamma[c] * xhat + beta[c]);
                        sg[c] += dy[at];
                        sgx[c] += dy[at] * xhat;
                    }
            for (int o = 0; o < outer; o++)
                for (int c = 0; c < ch; c++)
                    for (int i = 0; i < inner; i++) {
                        int at = (o * ch + c) * inner + i;
                        double inv = 1 / Math.sqrt(var[c] + eps), xhat = (x[at] - mean[c]) * inv;
                        eDx[at] = (float) (gamma[c] * inv / m * (m * dy[at] - sg[c] - xhat * sgx[c]));
                    }
            for (int c = 0; c < ch; c++) { eDb[c] = (float) sg[c]; eDg[c] = (float) sgx[c]; }
            String what = " (" + outer + ", " + ch + ", " + inner + ")";
            Storage sx = upload(x), sgam = upload(gamma), sbeta = upload(beta), y = alloc(n), sm = alloc(ch), si = alloc(ch);
            Storage srm = upload(rm), srv = upload(rv);
            backend.batchNormForward(sx, sgam, sbeta, y, sm, si, srm, srv, outer, ch, inner, eps, momentum);
            assertClose(eY, download(y, n), 1e-4, "batchNormForward y" + what);
            assertClose(eMean, download(sm, ch), 1e-5, "batchNormForward saved mean" + what);
            assertClose(eInv, download(si, ch), 1e-4, "batchNormForward saved 1/std" + what);
            assertClose(eRm, download(srm, ch), 1e-5, "batchNormForward running mean" + what);
            assertClose(eRv, download(srv, ch), 1e-4, "batchNormForward running variance (unbiased)" + what);
            float[] rmAfter = download(srm, ch);
            backend.batchNormForward(sx, sgam, sbeta, y, sm, si, null, null, outer, ch, inner, eps, momentum);  // no running update
            assertClose(eY, download(y, n), 1e-4, "batchNormForward y without running averages" + what);
            assertClose(rmAfter, download(srm, ch), 0, "running mean untouched without running averages" + what);
            Storage dx = alloc(n), dg = alloc(ch), db = alloc(ch);
            backend.batchNormBackward(upload(dy), sx, sm, si, sgam, dx, dg, db, outer, ch, inner);
            assertClose(eDb, download(db, ch), 1e-4, "batchNormBackward dbeta" + what);
            assertClose(eDg, download(dg, ch), 1e-4, "batchNormBackward dgamma" + what);
            assertClose(eDx, download(dx, n), 1e-3, "batchNormBackward dx" + what);
            backend.fill(dg, 0, ch, 0f);
            backend.batchNormBackward(upload(dy), sx, sm, si, sgam, null, dg, db, outer, ch, inner);   // parameter gradients only
            assertClose(eDg, download(dg, ch), 1e-4, "batchNormBackward dgamma without dx" + what);
        }
    }

    @Test
    void batchNormReluPoolEqualsTheThreeLayersOneAfterTheOther() {
        // the lesson CNN's blocks scaled down; values on a coarse grid, so that windows tie and the ReLU cuts some off
        int[][] cases = {{3, 4, 6, 8}, {2, 3, 2, 2}, {5, 2, 14, 10}};
        for (int[] cs : cases) {
            int n = cs[0], c = cs[1], h = cs[2], w = cs[3], size = n * c * h * w, pooled = size / 4;
            float[] x = randoms(size, -2, 3), gamma = randoms(c, 0.5f, 1.5f), beta = randoms(c, -1, 1), dy = randoms(pooled, -1, 1);
            for (int i = 0; i < size; i++) x[i] = Math.round(x[i] * 2) / 2f;
            ConvGeometry pool = new ConvGeometry(n, c, h, w, 2, 2, 2, 0);
            String what = " (" + n + ", " + c + ", " + h + ", " + w + ")";
            // the three layers
            Storage sx = upload(x), sg = upload(gamma), sb = upload(beta), sdy = upload(dy);
            Storage rm = upload(new float[c]), rv = upload(ones(c)), m = alloc(c), inv = alloc(c), z = alloc(size), r = alloc(size);
            Storage out = alloc(pooled), gr = alloc(size), dx = alloc(size), dg = alloc(c), db = alloc(c);
            backend.batchNormForward(sx, sg, sb, z, m, inv, rm, rv, n, c, (long) h * w, 1e-5f, 0.1f);
            backend.unary(UnaryOp.RELU, z, r, size);
            backend.maxPool2d(r, out, pool);
            backend.maxPool2dBackward(r, sdy, gr, pool);
            backend.reluBackward(z, gr, gr, size);
            backend.batchNormBackward(gr, sx, m, inv, sg, dx, dg, db, n, c, (long) h * w);
            // the block
            Storage rm2 = upload(new float[c]), rv2 = upload(ones(c)), m2 = alloc(c), inv2 = alloc(c), out2 = alloc(pooled);
            Storage dx2 = alloc(size), dg2 = alloc(c), db2 = alloc(c);
            backend.batchNormReluPoolForward(sx, sg, sb, out2, m2, inv2, rm2, rv2, n, c, h, w, 1e-5f, 0.1f);
            backend.batchNormReluPoolBackward(sdy, sx, m2, inv2, sg, sb, dx2, dg2, db2, n, c, h, w);
            assertClose(download(out, pooled), download(out2, pooled), 1e-6, "batchNormReluPoolForward out" + what);
            assertClose(download(m, c), download(m2, c), 0, "batchNormReluPoolForward saved mean" + what);
            assertClose(download(inv, c), download(inv2, c), 0, "batchNormReluPoolForward saved 1/std" + what);
            assertClose(download(rv, c), download(rv2, c), 0, "batchNormReluPoolForward running variance" + what);
            assertClose(download(db, c), download(db2, c), 1e-5, "batchNormReluPoolBackward dbeta" + what);
            assertClose(download(dg, c), download(dg2, c), 1e-5, "batchNormReluPoolBackward dgamma" + what);
            assertClose(download(dx, size), download(dx2, size), 1e-4, "batchNormReluPoolBackward dx" + what);
        }
    }

    @Test
    void batchNormReluPoolRefusesAnOddHeightSayingWhatToDo() {
        Storage x = alloc(2 * 3 * 4), p = upload(ones(2)), out = alloc(8), m = alloc(2), i = alloc(2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.batchNormReluPoolForward(x, p, p, out, m, i, null, null, 1, 2, 3, 4, 1e-5f, 0.1f));
        assertTrue(e.getMessage().contains("even height and width") && e.getMessage().contains("(1, 2, 3, 4)")
                && e.getMessage().contains("three layers one by one"), e.getMessage());
    }

    private static float[] ones(int n) {
        float[] v = new float[n];
        java.util.Arrays.fill(v, 1f);
        return v;
    }

    @Test
    void reluBackwardPassesTheGradientWhereTheInputIsPositive() {
        int n = 3001;
        float[] x = randoms(n, -1, 1), dy = randoms(n, -2, 2), expected = new float[n];
        x[5] = 0f;
        x[6] = Float.NaN;
        dy[7] = Float.POSITIVE_INFINITY;
        x[7] = -1f;
        for (int i = 0; i < n; i++) expected[i] = dy[i] * (x[i] > 0f ? 1f : 0f);
        Storage sx = upload(x), sg = upload(dy), dx = alloc(n);
        backend.reluBackward(sx, sg, dx, n);
        assertClose(expected, download(dx, n), 0, "reluBackward");
        backend.reluBackward(sx, sg, sg, n);                         // in place
        assertClose(expected, download(sg, n), 0, "reluBackward in place");
    }

    @Test
    void batchNormNeedsTwoValuesPerChannel() {
        Storage x = upload(new float[] {1, 2}), p = upload(new float[] {1, 1}), y = alloc(2), m = alloc(2), i = alloc(2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.batchNormForward(x, p, p, y, m, i, null, null, 1, 2, 1, 1e-5f, 0.1f));
        assertTrue(e.getMessage().contains("more than one value per channel"), e.getMessage());
    }

    @Test
    void softmaxCrossEntropyAndItsGradientMatchReference() {
        int[][] cases = {{128, 10}, {3, 1}, {33, 40}, {1, 5}};
        for (int[] cs : cases) {
            int rows = cs[0], classes = cs[1];
            float[] logits = randoms(rows * classes, -4, 4), labels = new float[rows];
            if (rows > 2) logits[classes] = 60f;      // a large logit: the shift by the maximum matters
            for (int r = 0; r < rows; r++) labels[r] = random.nextInt(classes);
            double sum = 0;
            float upstream = 0.75f;
            float[] eGrad = new float[rows * classes];
            for (int r = 0; r < rows; r++) {
                double max = Double.NEGATIVE_INFINITY, z = 0;
                for (int c = 0; c < classes; c++) max = Math.max(max, logits[r * classes + c]);
                for (int c = 0; c < classes; c++) z += Math.exp(logits[r * classes + c] - max);
                double lse = max + Math.log(z);
                sum += lse - logits[r * classes + (int) labels[r]];
                for (int c = 0; c < classes; c++)
                    eGrad[r * classes + c] = (float) (upstream / rows * (Math.exp(logits[r * classes + c] - lse) - (c == labels[r] ? 1 : 0)));
            }
            String what = " (" + rows + " x " + classes + ")";
            Storage sl = upload(logits), sy = upload(labels), loss = alloc(1), grad = alloc(rows * classes);
            backend.softmaxCrossEntropy(sl, sy, loss, rows, classes);
            assertClose(new float[] {(float) (sum / rows)}, download(loss, 1), 1e-5, "softmaxCrossEntropy" + what);
            backend.softmaxCrossEntropyBackward(sl, sy, upload(new float[] {upstream}), grad, rows, classes);
            assertClose(eGrad, download(grad, rows * classes), 1e-5, "softmaxCrossEntropyBackward" + what);
        }
    }

    @Test
    void batchMetricsAddTheLossSumAndTheArgmaxHits() {
        int rows = 50, classes = 7;
        float[] logits = randoms(rows * classes, -2, 2), labels = new float[rows];
        for (int r = 0; r < rows; r++) labels[r] = random.nextInt(classes);
        logits[3 * classes + 2] = logits[3 * classes + 5] = 9f;          // a tie: the first column is the argmax
        labels[3] = 2;
        logits[4 * classes + 5] = 9f;
        labels[4] = 5;
        logits[6 * classes + 5] = 9f;
        labels[6] = 1;
        int hits = 0;
        for (int r = 0; r < rows; r++) {
            int arg = 0;
            for (int c = 1; c < classes; c++) if (logits[r * classes + c] > logits[r * classes + arg]) arg = c;
            if (arg == labels[r]) hits++;
        }
        Storage sums = upload(new float[] {1f, 2f}), sl = upload(logits), sy = upload(labels), loss = upload(new float[] {0.5f});
        backend.addBatchMetrics(sl, sy, loss, sums, rows, classes);
        backend.addBatchMetrics(sl, sy, loss, sums, rows, classes);
        assertClose(new float[] {1f + 2 * 0.5f * rows, 2f + 2 * hits}, download(sums, 2), 1e-6, "addBatchMetrics twice");
        assertTrue(hits >= 2 && hits < rows, "the case has hits and misses: " + hits);
    }
}
