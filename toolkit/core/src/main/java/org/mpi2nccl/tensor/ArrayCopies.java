package org.mpi2nccl.tensor;

/**
 * Copies of an {@link NDArray} and the writes into one: a compact copy, a move to another device, the elements
 * copied to the host, and the in-place {@code assign}, {@code fill} and {@code addInPlace}. A strided copy merges
 * adjacent contiguous axes first, so most copies are one backend call over long runs.
 */
final class ArrayCopies {
    private ArrayCopies() {}

    static NDArray copy(NDArray x) {
        x.checkOpen("copy");
        NDArray out = NDArray.empty(x.device(), x.shape);
        stridedCopy(x, out);
        return out;
    }

    static NDArray to(NDArray x, Device target) {
        if (target.equals(x.device())) return x.compact();
        try (NDArray c = x.compact()) {
            float[] host = c.toArray();
            return NDArray.of(target, host, x.shape);
        }
    }

    static float[] toArray(NDArray x) {
        x.checkOpen("toArray");
        float[] host = new float[(int) x.size];
        if (x.isContiguous()) {
            x.backend().copyToHost(x.storage(), x.offset, host, 0, (int) x.size);
        } else {
            try (NDArray c = x.copy()) {
                x.backend().copyToHost(c.storage(), 0, host, 0, (int) x.size);
            }
        }
        return host;
    }

    static float item(NDArray x) {
        if (x.size != 1)
            throw new IllegalArgumentException("item: array of shape " + Shapes.str(x.shape) + " has " + x.size + " elements, not 1");
        float[] v = new float[1];
        x.backend().copyToHost(x.storage(), x.offset, v, 0, 1);
        return v[0];
    }

    static NDArray assign(NDArray dst, NDArray src) {
        dst.checkOpen("assign");
        dst.requireSameDevice(src, "assign");
        if (src.shared == dst.shared && src != dst) {
            try (NDArray tmp = src.copy()) {
                return assign(dst, tmp);
            }
        }
        try (NDArray b = src.broadcastTo(Shapes.broadcastTarget(src.shape, dst.shape, "assign"))) {
            stridedCopy(b, dst);
        }
        return dst;
    }

    /** dst = src elementwise (same shape, same device), with adjacent contiguous axes merged first. */
    private static void stridedCopy(NDArray src, NDArray dst) {
        long[][] st = new long[2][];
        int[] s = Shapes.coalesce(src.shape, new long[][] {src.strides, dst.strides}, st);
        src.backend().copyStrided(src.storage(), src.offset, st[0], dst.storage(), dst.offset, st[1], s);
    }

    static NDArray fill(NDArray x, float value) {
        x.checkOpen("fill");
        if (x.isContiguous()) x.backend().fill(x.storage(), x.offset, x.size, value);
        else x.backend().fillStrided(x.storage(), x.offset, x.strides, x.shape, value);
        return x;
    }

    static NDArray addInPlace(NDArray x, NDArray other) {
        if (!x.isCompact())
            throw new IllegalStateException("addInPlace: needs a compact array, got a view of shape " + Shapes.str(x.shape));
        x.requireSameDevice(other, "addInPlace");
        try (NDArray b = other.broadcastTo(Shapes.broadcastTarget(other.shape, x.shape, "addInPlace")); NDArray bc = b.compact()) {
            x.backend().binary(BinaryOp.ADD, x.storage(), bc.storage(), x.storage(), x.size);
        }
        return x;
    }
}
