package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * <p>This class holds memory, elementwise, reductions, GEMM, convolution, labels and random numbers; the fused
 * training layers ({@link TrainingLayerContractTest}) and optimizer steps ({@link OptimizerStepContractTest}) are
 * its superclasses, the shared helpers {@link BackendContractFixture}: a subclass runs every test of all of them.
 */
public abstract class BackendContractTest extends OptimizerStepContractTest {

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

    // ---- labels, random numbers -----------------------------------------------------------------------

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
