package org.mpi2nccl.cuda;

/**
 * Which kernel runs a strided copy (compact(), a permute, a broadcast, a slice assignment) on the GPU. The
 * layouts come simplified ({@link org.mpi2nccl.tensor.Shapes#coalesce}: no extent-1 axes, jointly contiguous
 * neighbours merged). When the source is contiguous along one axis and the destination along another (a
 * transpose, a permute that moves the last axis), the copy is a batch of 2-D planes done tile by tile through
 * shared memory by the {@code copy_transpose_64x64_f32} kernel: both sides are then read and written in whole memory sectors,
 * where {@code copy_strided_f32} would touch one 32-byte sector per element on one side. Otherwise
 * {@code copy_strided_f32} it is, one thread per element.
 */
final class StridedCopyPlan {
    private StridedCopyPlan() {}

    /** Planes thinner than this stay with the per-element kernel (most of a tile's threads would idle). */
    static final long MIN_PLANE_SIDE = 8;

    /** The kernel's tile: {@code TILE} along the source's contiguous axis and along the destination's. */
    static final long TILE = 64;

    /** The arguments of the copy_transpose kernel: the batch axes as layouts, the plane's extents and strides. */
    record Transpose(Layout batchIn, Layout batchOut, long np, long nq, long spIn, long sqIn, long spOut, long sqOut) {
        /** Tiles the copy has (the launch's block count before the cap). */
        long tiles() {
            return batchIn.size() * ((np + TILE - 1) / TILE) * ((nq + TILE - 1) / TILE);
        }
    }

    /**
     * The tiled transpose for a copy of coalesced layouts {@code from} -> {@code to}, or null when the
     * per-element kernel is the right one: the source has no unit-stride axis (a broadcast), both are
     * contiguous along the same axis (already coalesced on both sides), or the plane is thinner than
     * {@value #MIN_PLANE_SIDE}.
     */
    static Transpose transpose(Layout from, Layout to) {
        int nd = from.shape().length;
        int p = lastUnitStride(from), q = lastUnitStride(to);
        if (nd < 2 || p < 0 || q < 0 || p == q) return null;
        long[] shape = from.shape();
        if (shape[p] < MIN_PLANE_SIDE || shape[q] < MIN_PLANE_SIDE) return null;
        long[] batchShape = new long[nd - 2], batchIn = new long[nd - 2], batchOut = new long[nd - 2];
        for (int d = 0, b = 0; d < nd; d++) {
            if (d == p || d == q) continue;
            batchShape[b] = shape[d];
            batchIn[b] = from.strides()[d];
            batchOut[b] = to.strides()[d];
            b++;
        }
        return new Transpose(new Layout(batchShape, batchIn, from.offset()), new Layout(batchShape, batchOut, to.offset()),
                shape[p], shape[q], from.strides()[p], from.strides()[q], to.strides()[p], to.strides()[q]);
    }

    private static int lastUnitStride(Layout l) {
        for (int d = l.shape().length - 1; d >= 0; d--) {
            if (l.strides()[d] == 1) return d;
        }
        return -1;
    }
}
