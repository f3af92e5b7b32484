package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Backend} contract as tests: every primitive against a plain-Java reference computed here, on
 * fresh random inputs. A backend's test class extends this and names its device, e.g.
 * <pre>{@code
 * @Tag("gpu")
 * class CudaBackendContractTest extends BackendContractTest {
 *     protected Device device() { return Device.cuda(0); }
 *     @BeforeAll static void gpu() { ... assumeTrue(gpuPresent, "no GPU: skipped"); }
 * }
 * }</pre>
 * Tolerances are the contract's: 1e-5 relative for elementwise, 1e-4 for reductions and GEMM.
 */
public abstract class BackendContractTest {

    /** The device whose backend is under test. */
    protected abstract Device device();

    protected Backend backend;
    private final List<Storage> allocated = new ArrayList<>();
    private final Random random = new Random(1234);

    /** The backend under test: the device's, unless a subclass wraps it. */
    protected Backend backendUnderTest() { return device().backend(); }

    @BeforeEach
    void openBackend() { backend = backendUnderTest(); }

    @AfterEach
    void freeAll() {
        for (Storage s : allocated) s.close();
        allocated.clear();
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    protected Storage upload(float[] v) {
        Storage s = backend.allocate(v.length);
        allocated.add(s);
        backend.copyFromHost(v, 0, s, 0, v.length);
        return s;
    }

    protected Storage alloc(long n) {
        Storage s = backend.allocate(n);
        allocated.add(s);
        return s;
    }

    protected float[] download(Storage s, int n) {
        float[] v = new float[n];
        backend.copyToHost(s, 0, v, 0, n);
        return v;
    }

    protected float[] randoms(int n, float low, float high) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = low + (high - low) * random.nextFloat();
        return v;
    }

    protected static void assertClose(float[] expected, float[] actual, double rel, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i], a = actual[i];
            if (Double.isNaN(e) && Double.isNaN(a)) continue;
            double tol = rel * Math.max(1.0, Math.abs(e));
            if (!(Math.abs(e - a) <= tol))
                throw new AssertionError(what + ": element " + i + " expected " + e + " but was " + a + " (tolerance " + tol + ")");
        }
    }

    // ---- memory ---------------------------------------------------------------------------------------------

    @Test
    void copiesRoundTripWithOffsets() {
        float[] v = randoms(1000, -1, 1);
        Storage s = upload(v);
        assertArrayEquals(v, download(s, 1000));
        Storage t = alloc(1200);
        backend.fill(t, 0, 1200, 7f);
        backend.copy(s, 100, t, 150, 500);
        float[] back = download(t, 1200);
        for (int i = 0; i < 1200; i++) {
            float expected = i >= 150 && i < 650 ? v[i - 150 + 100] : 7f;
            assertEquals(expected, back[i], 0f, "element " + i);
        }
        float[] part = new float[10];
        backend.copyToHost(t, 150, part, 2, 8);
        for (int i = 0; i < 8; i++) assertEquals(v[100 + i], part[2 + i], 0f);
        backend.copyFromHost(new float[] {1, 2, 3}, 1, t, 5, 2);
        float[] after = download(t, 8);
        assertEquals(2f, after[5]);
        assertEquals(3f, after[6]);
        assertEquals(7f, after[7]);
    }

    @Test
    void liveElementsCountsAllocationsAndCloses() {
        long before = backend.liveElements();
        Storage s = backend.allocate(4096);
        assertEquals(before + 4096, backend.liveElements());
        s.close();
        s.close(); // idempotent
        assertTrue(s.isClosed());
        assertEquals(before, backend.liveElements());
    }

    @Test
    void outOfRangeAndClosedStoragesAreRejected() {
        Storage s = alloc(10);
        assertThrows(IllegalArgumentException.class, () -> backend.copyFromHost(new float[20], 0, s, 0, 20));
        assertThrows(IllegalArgumentException.class, () -> backend.fill(s, 5, 6, 0f));
        Storage t = backend.allocate(10);
        t.close();
        assertThrows(IllegalStateException.class, () -> backend.fill(t, 0, 10, 1f));
    }

    @Test
    void stridedCopyPermutesBroadcastsAndScatters() {
        // source (2, 3, 4) compact at offset 5; destination = its (4, 2, 3) permutation, compact
        float[] v = randoms(5 + 24, -1, 1);
        Storage src = upload(v);
        Storage dst = alloc(24);
        int[] shape = {4, 2, 3};
        backend.copyStrided(src, 5, new long[] {1, 12, 4}, dst, 0, new long[] {6, 3, 1}, shape);
        float[] got = download(dst, 24);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 2; b++)
                for (int c = 0; c < 3; c++)
                    assertEquals(v[5 + b * 12 + c * 4 + a], got[a * 6 + b * 3 + c], 0f);
        // broadcast a (3,) row over (2, 3) with stride 0, written into columns 1..3 of a (2, 5) destination
        Storage row = upload(new float[] {1, 2, 3});
        Storage wide = alloc(10);
        backend.fill(wide, 0, 10, -1f);
        backend.copyStrided(row, 0, new long[] {0, 1}, wide, 1, new long[] {5, 1}, new int[] {2, 3});
        assertArrayEquals(new float[] {-1, 1, 2, 3, -1, -1, 1, 2, 3, -1}, download(wide, 10));
        // a scalar (0-d) copy and a strided fill of every other element
        backend.copyStrided(row, 2, new long[0], wide, 0, new long[0], new int[0]);
        backend.fillStrided(wide, 5, new long[] {2}, new int[] {3}, 9f);
        assertArrayEquals(new float[] {3, 1, 2, 3, -1, 9, 1, 9, 3, 9}, download(wide, 10));
    }

    // ---- elementwise ----------------------------------------------------------------------------------------

    @Test
    void unaryOpsMatchReference() {
        int n = 3001;
        for (UnaryOp op : UnaryOp.values()) {
            boolean positive = op == UnaryOp.LOG || op == UnaryOp.SQRT || op == UnaryOp.RECIPROCAL;
            float[] a = randoms(n, positive ? 0.05f : -4f, 4f);
            Storage in = upload(a), out = alloc(n);
            backend.unary(op, in, out, n);
            float[] expected = new float[n];
            for (int i = 0; i < n; i++) expected[i] = op.apply(a[i]);
            assertClose(expected, download(out, n), 1e-5, "unary " + op);
        }
    }

    @Test
    void binaryOpsMatchReferenceIncludingInPlace() {
        int n = 2049;
        for (BinaryOp op : BinaryOp.values()) {
            boolean pow = op == BinaryOp.POW;
            float[] a = randoms(n, pow ? 0.1f : -3f, 3f), b = randoms(n, pow ? -2f : -3f, pow ? 2f : 3f);
            if (op == BinaryOp.DIV || op == BinaryOp.RDIV) { for (int i = 0; i < n; i++) { if (Math.abs(b[i]) < 0.1f) b[i] = 0.5f; if (Math.abs(a[i]) < 0.1f) a[i] = 0.5f; } }
            for (int i = 0; i < n; i += 7) b[i] = a[i]; // ties for the comparisons
            float[] expected = new float[n], expectedScalar = new float[n];
            float s = pow ? 1.5f : 0.75f;
            for (int i = 0; i < n; i++) {
                expected[i] = op.apply(a[i], b[i]);
                expectedScalar[i] = op.apply(a[i], s);
            }
            Storage sa = upload(a), sb = upload(b), out = alloc(n);
            backend.binary(op, sa, sb, out, n);
            assertClose(expected, download(out, n), 1e-5, "binary " + op);
            backend.binaryScalar(op, sa, s, out, n);
            assertClose(expectedScalar, download(out, n), 1e-5, "binaryScalar " + op);
            backend.binary(op, sa, sb, sa, n); // out aliases a
            assertClose(expected, download(sa, n), 1e-5, "in-place binary " + op);
        }
    }

    @Test
    void binaryBroadcastMatchesExpandedOperand() {
        int[][] cases = {{4, 3, 5}, {7, 10, 1}, {1, 6, 9}, {3, 1, 8}};
        for (int[] cse : cases) {
            int outer = cse[0], ch = cse[1], inner = cse[2], n = outer * ch * inner;
            for (BinaryOp op : new BinaryOp[] {BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV, BinaryOp.RSUB, BinaryOp.MAXIMUM, BinaryOp.GT}) {
                float[] a = randoms(n, -2, 2), b = randoms(ch, 0.5f, 2);
                float[] expected = new float[n];
                for (int o = 0; o < outer; o++)
                    for (int c = 0; c < ch; c++)
                        for (int i = 0; i < inner; i++) {
                            int at = (o * ch + c) * inner + i;
                            expected[at] = op.apply(a[at], b[c]);
                        }
                Storage sa = upload(a), out = alloc(n);
                backend.binaryBroadcast(op, sa, upload(b), out, outer, ch, inner);
                assertClose(expected, download(out, n), 1e-5, "binaryBroadcast " + op + " over (" + outer + ", " + ch + ", " + inner + ")");
            }
        }
    }

    @Test
    void channelSumsAndAffineMatchReference() {
        int outer = 5, ch = 3, inner = 37, n = outer * ch * inner;
        float[] a = randoms(n, -2, 2), b = randoms(n, -1, 1);
        float[] sa = randoms(ch, -1, 1), sb = randoms(ch, -1, 1), shift = randoms(ch, -1, 1);
        float[] eSum = new float[ch], eDot = new float[ch], eAff = new float[n], eAff1 = new float[n];
        double[] s1 = new double[ch], s2 = new double[ch];
        for (int o = 0; o < outer; o++)
            for (int c = 0; c < ch; c++)
                for (int i = 0; i < inner; i++) {
                    int at = (o * ch + c) * inner + i;
                    s1[c] += a[at];
                    s2[c] += (double) a[at] * b[at];
                    eAff[at] = a[at] * sa[c] + b[at] * sb[c] + shift[c];
                    eAff1[at] = a[at] * sa[c] + shift[c];
                }
        for (int c = 0; c < ch; c++) { eSum[c] = (float) s1[c]; eDot[c] = (float) s2[c]; }
        Storage da = upload(a), db = upload(b), sum = alloc(ch), dot = alloc(ch), out = alloc(n);
        backend.channelSums(da, db, sum, dot, outer, ch, inner);
        assertClose(eSum, download(sum, ch), 1e-4, "channelSums sum");
        assertClose(eDot, download(dot, ch), 1e-4, "channelSums dot");
        backend.channelAffine(da, upload(sa), db, upload(sb), upload(shift), out, outer, ch, inner);
        assertClose(eAff, download(out, n), 1e-5, "channelAffine with b");
        backend.channelAffine(da, upload(sa), null, null, upload(shift), da, outer, ch, inner); // in place
        assertClose(eAff1, download(da, n), 1e-5, "channelAffine without b, in place");
    }

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

    // ---- reductions -----------------------------------------------------------------------------------------

    @Test
    void reductionsOverTheMiddleAxisMatchReference() {
        int[][] cases = {{1, 1000, 1}, {7, 33, 1}, {5, 6, 7}, {1, 64, 300}, {300, 17, 2}, {3, 1, 4}};
        for (int[] cse : cases) {
            int outer = cse[0], red = cse[1], inner = cse[2];
            float[] a = randoms(outer * red * inner, -2, 2);
            Storage in = upload(a), out = alloc((long) outer * inner);
            for (ReduceOp op : ReduceOp.values()) {
                float[] expected = new float[outer * inner];
                for (int o = 0; o < outer; o++)
                    for (int i = 0; i < inner; i++) {
                        double sum = 0;
                        float best = Float.NaN;
                        int arg = 0;
                        for (int r = 0; r < red; r++) {
                            float v = a[(o * red + r) * inner + i];
                            sum += v;
                            boolean better = r == 0 || (op == ReduceOp.MIN ? v < best : v > best);
                            if (better) { best = v; arg = r; }
                        }
                        expected[o * inner + i] = switch (op) {
                            case SUM -> (float) sum;
                            case MAX, MIN -> best;
                            case ARGMAX -> arg;
                        };
                    }
                backend.reduce(op, in, out, outer, red, inner);
                assertClose(expected, download(out, outer * inner), 1e-4, op + " over (" + outer + ", " + red + ", " + inner + ")");
            }
        }
    }

    // ---- GEMM -----------------------------------------------------------------------------------------------

    @Test
    void matmulMatchesReferenceForEveryTransposeAndBatchStride() {
        int batch = 3, m = 17, n = 9, k = 23;
        for (boolean ta : new boolean[] {false, true})
            for (boolean tb : new boolean[] {false, true})
                for (boolean shareA : new boolean[] {false, true}) {
                    long strideA = shareA ? 0 : (long) m * k, strideB = (long) k * n;
                    float[] a = randoms((int) (shareA ? m * k : batch * m * k), -1, 1);
                    float[] b = randoms(batch * k * n, -1, 1);
                    float[] expected = new float[batch * m * n];
                    for (int t = 0; t < batch; t++)
                        for (int i = 0; i < m; i++)
                            for (int j = 0; j < n; j++) {
                                double s = 0;
                                for (int p = 0; p < k; p++) {
                                    float av = ta ? a[(int) (t * strideA) + p * m + i] : a[(int) (t * strideA) + i * k + p];
                                    float bv = tb ? b[(int) (t * strideB) + j * k + p] : b[(int) (t * strideB) + p * n + j];
                                    s += av * bv;
                                }
                                expected[(t * m + i) * n + j] = (float) s;
                            }
                    Storage out = alloc(batch * m * n);
                    backend.fill(out, 0, batch * m * n, 99f); // must be overwritten, not accumulated
                    backend.matmul(upload(a), upload(b), out, batch, m, n, k, ta, tb, strideA, strideB);
                    assertClose(expected, download(out, batch * m * n), 1e-4,
                            "matmul transA=" + ta + " transB=" + tb + " strideA=" + strideA);
                }
    }

    // ---- convolution and pooling ----------------------------------------------------------------------------

    @Test
    void im2colAndCol2imMatchReferenceAndAreAdjoint() {
        for (ConvGeometry g : new ConvGeometry[] {new ConvGeometry(2, 3, 7, 6, 3, 3, 1, 1),
                new ConvGeometry(3, 2, 8, 9, 3, 2, 2, 0), new ConvGeometry(1, 1, 5, 5, 5, 5, 1, 2)}) {
            int rows = g.colRows(), cols = g.colCols(), nCols = g.n() * rows * cols;
            float[] x = randoms((int) g.inputSize(), -1, 1);
            float[] expected = new float[nCols];
            for (int s = 0; s < g.n(); s++)
                for (int ch = 0; ch < g.c(); ch++)
                    for (int i = 0; i < g.kh(); i++)
                        for (int j = 0; j < g.kw(); j++)
                            for (int oy = 0; oy < g.outH(); oy++)
                                for (int ox = 0; ox < g.outW(); ox++) {
                                    int y = oy * g.stride() - g.pad() + i, xx = ox * g.stride() - g.pad() + j;
                                    float v = y < 0 || y >= g.h() || xx < 0 || xx >= g.w() ? 0f
                                            : x[((s * g.c() + ch) * g.h() + y) * g.w() + xx];
                                    expected[(s * rows + (ch * g.kh() + i) * g.kw() + j) * cols + oy * g.outW() + ox] = v;
                                }
            Storage cx = alloc(nCols);
            backend.im2col(upload(x), cx, g);
            assertClose(expected, download(cx, nCols), 0, "im2col " + g);
            // col2im is the adjoint: <im2col(x), c> == <x, col2im(c)>
            float[] c = randoms(nCols, -1, 1);
            Storage dx = alloc(g.inputSize());
            backend.fill(dx, 0, g.inputSize(), 5f); // must be overwritten
            backend.col2im(upload(c), dx, g);
            float[] back = download(dx, (int) g.inputSize());
            double lhs = 0, rhs = 0;
            for (int i = 0; i < nCols; i++) lhs += expected[i] * (double) c[i];
            for (int i = 0; i < x.length; i++) rhs += x[i] * (double) back[i];
            assertEquals(lhs, rhs, 1e-4 * Math.max(1, Math.abs(lhs)), "col2im adjoint " + g);
        }
    }

    @Test
    void maxPoolForwardAndBackwardMatchReference() {
        for (ConvGeometry g : new ConvGeometry[] {new ConvGeometry(2, 3, 8, 8, 2, 2, 2, 0),
                new ConvGeometry(1, 2, 7, 5, 3, 3, 2, 1)}) {
            float[] x = randoms((int) g.inputSize(), -1, 1);
            x[3] = x[2]; // a tie: the first in window order wins
            int outN = g.n() * g.c() * g.outH() * g.outW();
            float[] dy = randoms(outN, -1, 1);
            float[] expected = new float[outN], expectedDx = new float[x.length];
            for (int p = 0; p < g.n() * g.c(); p++)
                for (int oy = 0; oy < g.outH(); oy++)
                    for (int ox = 0; ox < g.outW(); ox++) {
                        int best = -1;
                        for (int i = 0; i < g.kh(); i++)
                            for (int j = 0; j < g.kw(); j++) {
                                int y = oy * g.stride() - g.pad() + i, xx = ox * g.stride() - g.pad() + j;
                                if (y < 0 || y >= g.h() || xx < 0 || xx >= g.w()) continue;
                                int at = p * g.h() * g.w() + y * g.w() + xx;
                                if (best < 0 || x[at] > x[best]) best = at;
                            }
                        int o = (p * g.outH() + oy) * g.outW() + ox;
                        expected[o] = x[best];
                        expectedDx[best] += dy[o];
                    }
            Storage sx = upload(x), out = alloc(outN), dx = alloc(x.length);
            backend.maxPool2d(sx, out, g);
            assertClose(expected, download(out, outN), 0, "maxPool2d " + g);
            backend.fill(dx, 0, x.length, 3f);
            backend.maxPool2dBackward(sx, upload(dy), dx, g);
            assertClose(expectedDx, download(dx, x.length), 1e-6, "maxPool2dBackward " + g);
        }
    }

    // ---- labels, random numbers, optimizers -----------------------------------------------------------------

    @Test
    void oneHotPutsOneAtEachLabel() {
        Storage labels = upload(new float[] {2, 0, 1, 2});
        Storage out = alloc(12);
        backend.fill(out, 0, 12, 4f);
        backend.oneHot(labels, out, 4, 3);
        assertArrayEquals(new float[] {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}, download(out, 12));
    }

    @Test
    void randomFillsAreTheCounterGeneratorOnEveryDevice() {
        int n = 5000;
        Storage u = alloc(n), z = alloc(n);
        backend.fillUniform(u, n, -2f, 3f, 42, 1000);
        backend.fillNormal(z, n, 0.5f, 2f, 42, 1000);
        float[] gu = download(u, n), gz = download(z, n);
        double mean = 0, var = 0;
        for (int i = 0; i < n; i++) {
            assertEquals(-2f + 5f * CounterRandom.uniform(42, 1000 + i), gu[i], 0f, "uniform element " + i);
            assertEquals(0.5f + 2f * CounterRandom.normal(42, 1000 + i), gz[i], 2e-6 * Math.max(1, Math.abs(gz[i])), "normal element " + i);
            mean += gz[i];
        }
        mean /= n;
        for (float v : gz) var += (v - mean) * (v - mean);
        var /= n;
        assertEquals(0.5, mean, 0.1, "normal mean");
        assertEquals(4.0, var, 0.3, "normal variance");
    }

    @Test
    void sgdStepsOnManyTensorsMatchOneStepEach() {
        int count = 19;                        // more than one GPU launch holds (16)
        Storage[] ps = new Storage[count], gs = new Storage[count], vs = new Storage[count], plain = new Storage[count];
        long[] sizes = new long[count];
        float[][] expectP = new float[count][], expectV = new float[count][], expectPlain = new float[count][];
        float lr = 0.05f, mom = 0.9f, wd = 0.001f;
        for (int t = 0; t < count; t++) {
            int n = t == 3 ? 5000 : 1 + 37 * t;
            sizes[t] = n;
            float[] p = randoms(n, -1, 1), g = randoms(n, -1, 1), v = randoms(n, -0.1f, 0.1f);
            ps[t] = upload(p);
            gs[t] = upload(g);
            vs[t] = upload(v);
            plain[t] = upload(p);
            expectP[t] = new float[n];
            expectV[t] = new float[n];
            expectPlain[t] = new float[n];
            for (int i = 0; i < n; i++) {
                float d = g[i] + wd * p[i];
                expectV[t][i] = mom * v[i] + d;
                expectP[t][i] = p[i] - lr * expectV[t][i];
                expectPlain[t][i] = p[i] - lr * g[i];
            }
        }
        backend.sgdSteps(ps, gs, vs, sizes, lr, mom, wd);
        backend.sgdSteps(plain, gs, null, sizes, lr, 0f, 0f);
        for (int t = 0; t < count; t++) {
            assertClose(expectP[t], download(ps[t], (int) sizes[t]), 1e-5, "sgdSteps param of tensor " + t);
            assertClose(expectV[t], download(vs[t], (int) sizes[t]), 1e-5, "sgdSteps velocity of tensor " + t);
            assertClose(expectPlain[t], download(plain[t], (int) sizes[t]), 1e-5, "sgdSteps without momentum, tensor " + t);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.sgdSteps(ps, gs, null, sizes, lr, mom, wd));
        assertTrue(e.getMessage().contains("velocit"), e.getMessage());
    }

    @Test
    void adamStepsOnManyTensorsMatchOneStepEach() {
        int count = 18;                        // more than one GPU launch holds (16)
        Storage[] ps = new Storage[count], gs = new Storage[count], ms = new Storage[count], vs = new Storage[count];
        Storage[] ps1 = new Storage[count], ms1 = new Storage[count], vs1 = new Storage[count];
        long[] sizes = new long[count];
        float lr = 0.01f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.01f;
        for (int t = 0; t < count; t++) {
            int n = t == 2 ? 4000 : 1 + 29 * t;
            sizes[t] = n;
            float[] p = randoms(n, -1, 1), g = randoms(n, -1, 1), m = randoms(n, -0.1f, 0.1f), v = randoms(n, 0f, 0.1f);
            ps[t] = upload(p); gs[t] = upload(g); ms[t] = upload(m); vs[t] = upload(v);
            ps1[t] = upload(p); ms1[t] = upload(m); vs1[t] = upload(v);
        }
        backend.adamSteps(ps, gs, ms, vs, sizes, lr, b1, b2, eps, wd, 3);
        for (int t = 0; t < count; t++) {
            backend.adamStep(ps1[t], gs[t], ms1[t], vs1[t], sizes[t], lr, b1, b2, eps, wd, 3);
            int n = (int) sizes[t];
            assertClose(download(ps1[t], n), download(ps[t], n), 1e-6, "adamSteps param of tensor " + t);
            assertClose(download(ms1[t], n), download(ms[t], n), 1e-6, "adamSteps m of tensor " + t);
            assertClose(download(vs1[t], n), download(vs[t], n), 1e-6, "adamSteps v of tensor " + t);
        }
    }

    @Test
    void sgdAndAdamStepsMatchPyTorchDefinitions() {
        int n = 1001;
        float[] p = randoms(n, -1, 1), g = randoms(n, -1, 1), v = randoms(n, -0.1f, 0.1f);
        float lr = 0.1f, mom = 0.9f, wd = 0.01f;
        Storage sp = upload(p), sg = upload(g), sv = upload(v);
        backend.sgdStep(sp, sg, sv, n, lr, mom, wd);
        float[] ep = new float[n], ev = new float[n];
        for (int i = 0; i < n; i++) {
            float d = g[i] + wd * p[i];
            ev[i] = mom * v[i] + d;
            ep[i] = p[i] - lr * ev[i];
        }
        assertClose(ep, download(sp, n), 1e-5, "sgd param");
        assertClose(ev, download(sv, n), 1e-5, "sgd velocity");
        Storage plain = upload(p);
        backend.sgdStep(plain, sg, null, n, lr, 0f, 0f);
        float[] e0 = new float[n];
        for (int i = 0; i < n; i++) e0[i] = p[i] - lr * g[i];
        assertClose(e0, download(plain, n), 1e-5, "sgd without momentum");

        float[] m = randoms(n, -0.1f, 0.1f), s2 = randoms(n, 0f, 0.1f);
        Storage ap = upload(p), am = upload(m), av = upload(s2);
        float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
        long step = 3;
        backend.adamStep(ap, sg, am, av, n, 1e-3f, b1, b2, eps, wd, step);
        float[] xp = new float[n], xm = new float[n], xv = new float[n];
        for (int i = 0; i < n; i++) {
            double d = g[i] + wd * p[i];
            xm[i] = (float) (b1 * m[i] + (1 - b1) * d);
            xv[i] = (float) (b2 * s2[i] + (1 - b2) * d * d);
            double mh = xm[i] / (1 - Math.pow(b1, step)), vh = xv[i] / (1 - Math.pow(b2, step));
            xp[i] = (float) (p[i] - 1e-3 * mh / (Math.sqrt(vh) + eps));
        }
        assertClose(xm, download(am, n), 1e-5, "adam m");
        assertClose(xv, download(av, n), 1e-5, "adam v");
        assertClose(xp, download(ap, n), 1e-5, "adam param");
    }

    // ---- NDArray on this device ------------------------------------------------------------------------------

    @Test
    void ndarrayViewsAndBroadcastingWorkOnThisDevice() {
        Device d = device();
        try (ArrayScope scope = ArrayScope.open()) {
            NDArray a = NDArray.of(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
            NDArray t = a.transpose();
            assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, t.toArray());
            NDArray row = NDArray.of(d, new float[] {10, 20, 30}, 3);
            assertArrayEquals(new float[] {11, 22, 33, 14, 25, 36}, a.add(row).toArray());
            assertArrayEquals(new float[] {5, 7, 9}, a.sum(0).toArray());
            assertArrayEquals(new float[] {3, 6}, a.max(1).toArray());
            assertArrayEquals(new float[] {14, 32, 32, 77}, a.matmul(t).toArray());
            assertArrayEquals(new float[] {2, 5}, a.slice(1, 1, 2).reshape(2).toArray());
            assertArrayEquals(a.toArray(), a.to(Device.cpu()).toArray());
            assertTrue(scope.tracked() > 0);
        }
    }
}
