package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Shapes;

/**
 * The host side of strided copies, without a GPU: which copies become tiled transposes, and that the
 * transpose's arguments (batch layouts, plane extents and strides) name the same elements as the given
 * layouts. A copy is replayed on float arrays the way the copy_transpose_* kernels walk it (batch, p, q; the kernel's
 * own tiling is checked by native/cpu-check) and compared with a plain element-by-element copy.
 */
class StridedCopyPlanTest {
    private final Random random = new Random(11);

    /** The plain copy: element i (row-major over shape) of src seen through `from` goes to `to`. */
    private static void reference(float[] src, Layout from, float[] dst, Layout to) {
        long n = from.size();
        for (long i = 0; i < n; i++) dst[(int) offset(to, i)] = src[(int) offset(from, i)];
    }

    private static long offset(Layout l, long i) {
        long off = l.offset();
        for (int d = l.shape().length - 1; d >= 0; d--) {
            off += (i % l.shape()[d]) * l.strides()[d];
            i /= l.shape()[d];
        }
        return off;
    }

    /** The copy as the copy_transpose_* kernels do it: every (batch, p, q). */
    private static void replay(float[] src, float[] dst, StridedCopyPlan.Transpose t) {
        for (long b = 0; b < t.batchIn().size(); b++) {
            long bi = offset(t.batchIn(), b), bo = offset(t.batchOut(), b);
            for (long p = 0; p < t.np(); p++) {
                for (long q = 0; q < t.nq(); q++) {
                    dst[(int) (bo + p * t.spOut() + q * t.sqOut())] = src[(int) (bi + p * t.spIn() + q * t.sqIn())];
                }
            }
        }
    }

    /** A permuted (and possibly sliced) view of a compact source copied into a compact destination. */
    private void checkPermute(int[] sourceShape, int[] axes, int sliceAxis) {
        int nd = sourceShape.length;
        long[] srcStrides = new long[nd];
        long s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            srcStrides[d] = s;
            s *= sourceShape[d];
        }
        int srcSize = (int) s;
        long srcOffset = 0;
        int[] viewShape = sourceShape.clone();
        if (sliceAxis >= 0 && viewShape[sliceAxis] > 2) {      // drop the first element along one axis
            srcOffset += srcStrides[sliceAxis];
            viewShape[sliceAxis] -= 1;
        }
        int[] shape = new int[nd];
        long[] from = new long[nd];
        for (int d = 0; d < nd; d++) {
            shape[d] = viewShape[axes[d]];
            from[d] = srcStrides[axes[d]];
        }
        long[] to = new long[nd];
        long t = 1;
        for (int d = nd - 1; d >= 0; d--) {
            to[d] = t;
            t *= shape[d];
        }
        long dstOffset = 3;
        float[] src = new float[srcSize];
        for (int i = 0; i < src.length; i++) src[i] = i;
        float[] want = new float[(int) (dstOffset + t)], got = new float[want.length];
        Arrays.fill(want, -1);
        Arrays.fill(got, -1);
        long[] longShape = Arrays.stream(shape).asLongStream().toArray();
        reference(src, new Layout(longShape, from, srcOffset), want, new Layout(longShape, to, dstOffset));

        long[][] st = new long[2][];
        long[] merged = Arrays.stream(Shapes.coalesce(shape, new long[][] {from, to}, st)).asLongStream().toArray();
        Layout a = new Layout(merged, st[0], srcOffset), b = new Layout(merged, st[1], dstOffset);
        StridedCopyPlan.Transpose plan = StridedCopyPlan.transpose(a, b);
        String what = Arrays.toString(sourceShape) + " permuted " + Arrays.toString(axes) + " slice " + sliceAxis;
        if (plan == null) {
            reference(src, a, got, b);
        } else {
            assertEquals(1, plan.spIn(), what + ": read along the source's contiguous axis");
            assertEquals(1, plan.sqOut(), what + ": written along the destination's contiguous axis");
            replay(src, got, plan);
        }
        assertArrayEquals(want, got, what + (plan == null ? " (per-element)" : " (tiled: " + plan + ")"));
    }

    @Test
    void randomPermutesAndSlicesCopyTheSameElements() {
        int tiled = 0;
        for (int trial = 0; trial < 400; trial++) {
            int nd = 2 + random.nextInt(3);
            int[] shape = new int[nd];
            for (int d = 0; d < nd; d++) shape[d] = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
            int[] axes = java.util.stream.IntStream.range(0, nd).toArray();
            for (int i = nd - 1; i > 0; i--) {
                int j = random.nextInt(i + 1), x = axes[i];
                axes[i] = axes[j];
                axes[j] = x;
            }
            checkPermute(shape, axes, random.nextInt(nd + 1) - 1);
        }
        // shapes that surely take the tiled path
        checkPermute(new int[] {300, 200}, new int[] {1, 0}, -1);
        checkPermute(new int[] {3, 70, 130}, new int[] {0, 2, 1}, -1);
        checkPermute(new int[] {4, 5, 60, 70}, new int[] {0, 3, 1, 2}, -1);
        checkPermute(new int[] {9, 33, 65}, new int[] {2, 0, 1}, 1);
        for (int[][] c : new int[][][] {{{300, 200}, {1, 0}}, {{3, 70, 130}, {0, 2, 1}}, {{4, 5, 60, 70}, {0, 3, 1, 2}}}) {
            if (planFor(c[0], c[1]) != null) tiled++;
        }
        assertEquals(3, tiled, "transposes and last-axis permutes take the tiled kernel");
    }

    private static StridedCopyPlan.Transpose planFor(int[] sourceShape, int[] axes) {
        Layout src = Layout.contiguous(Arrays.stream(sourceShape).asLongStream().toArray());
        int nd = axes.length;
        int[] shape = new int[nd];
        long[] from = new long[nd];
        for (int d = 0; d < nd; d++) {
            shape[d] = sourceShape[axes[d]];
            from[d] = src.strides()[axes[d]];
        }
        long[] to = Layout.contiguous(Arrays.stream(shape).asLongStream().toArray()).strides();
        long[][] st = new long[2][];
        long[] merged = Arrays.stream(Shapes.coalesce(shape, new long[][] {from, to}, st)).asLongStream().toArray();
        return StridedCopyPlan.transpose(new Layout(merged, st[0], 0), new Layout(merged, st[1], 0));
    }

    @Test
    void whichCopiesAreTiled() {
        StridedCopyPlan.Transpose t = planFor(new int[] {8192, 8192}, new int[] {1, 0});
        assertNotNull(t, "the benchmark's transpose");
        assertEquals(0, t.batchIn().shape().length);
        assertEquals(8192L * 8192 / (64 * 64), t.tiles());
        assertEquals(4, planFor(new int[] {100, 65}, new int[] {1, 0}).tiles(),
                "partial tiles count: p (65) and q (100) need 2 tiles of 64 each");
        StridedCopyPlan.Transpose nchw = planFor(new int[] {16, 3, 32, 32}, new int[] {0, 2, 3, 1});
        assertNull(nchw, "NCHW -> NHWC with 3 channels: a plane 3 wide stays per-element");
        StridedCopyPlan.Transpose nhwc = planFor(new int[] {16, 64, 32, 32}, new int[] {0, 2, 3, 1});
        assertNotNull(nhwc, "NCHW -> NHWC with 64 channels");
        assertArrayEquals(new long[] {16}, nhwc.batchIn().shape());
        assertEquals(1024, nhwc.np(), "H and W merged into one axis");
        assertEquals(64, nhwc.nq());
        assertNull(planFor(new int[] {50, 60, 70}, new int[] {1, 0, 2}), "the last axis stays: contiguous on both sides");
        Layout broadcast = new Layout(new long[] {100, 100}, new long[] {0, 1}, 0);
        assertNull(StridedCopyPlan.transpose(broadcast, Layout.contiguous(100, 100)), "a broadcast row: per-element");
    }
}
