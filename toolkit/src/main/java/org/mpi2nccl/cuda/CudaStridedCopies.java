package org.mpi2nccl.cuda;

import java.util.Arrays;
import org.mpi2nccl.tensor.Shapes;
import org.mpi2nccl.tensor.Storage;

/**
 * Copies and fills of strided views for {@link CudaBackend}: a contiguous pair is one device-to-device copy, a
 * transpose is a tiled kernel ({@link StridedCopyPlan}), anything else one
 * element per thread over the views' {@link Layout}s, their axes merged where they can be first.
 */
final class CudaStridedCopies {
    private final CudaBackend backend;
    private final CudaContext context;

    CudaStridedCopies(CudaBackend backend, CudaContext context) {
        this.backend = backend;
        this.context = context;
    }

    void copyStrided(Storage src, long srcOffset, long[] srcStrides, Storage dst, long dstOffset, long[] dstStrides, int[] shape) {
        long s = address(src, "copyStrided"), d = address(dst, "copyStrided");
        Layout from = layout("copyStrided source", src, srcOffset, srcStrides, shape);
        Layout to = layout("copyStrided destination", dst, dstOffset, dstStrides, shape);
        long n = from.size();
        if (n == 0) return;
        if (isContiguous(from) && isContiguous(to)) {
            memory(dst, "copyStrided").copyFrom(memory(src, "copyStrided"), srcOffset * 4, dstOffset * 4, n * 4);
            return;
        }
        // fewer, longer axes: less index arithmetic per element, and a transpose shows as a 2-D plane
        long[][] st = new long[2][];
        long[] merged = longs(Shapes.coalesce(shape, new long[][] {srcStrides, dstStrides}, st));
        Layout a = new Layout(merged, st[0], srcOffset), b = new Layout(merged, st[1], dstOffset);
        StridedCopyPlan.Transpose t = StridedCopyPlan.transpose(a, b);
        if (t != null) {
            context.launch(Kernel.COPY_TRANSPOSE_64X64, t.tiles(), KernelArgs.of().ptr(s).layout(t.batchIn()).ptr(d).layout(t.batchOut())
                    .i64(t.np()).i64(t.nq()).i64(t.spIn()).i64(t.sqIn()).i64(t.spOut()).i64(t.sqOut()));
        } else {
            context.launch(Kernel.COPY_STRIDED, n, KernelArgs.of().ptr(s).layout(a).ptr(d).layout(b).i64(n));
        }
    }

    void fillStrided(Storage dst, long offset, long[] strides, int[] shape, float value) {
        long d = address(dst, "fillStrided");
        Layout to = layout("fillStrided", dst, offset, strides, shape);
        long n = to.size();
        if (n == 0) return;
        long[][] st = new long[1][];
        long[] merged = longs(Shapes.coalesce(shape, new long[][] {strides}, st));
        context.launch(Kernel.FILL_STRIDED, n, KernelArgs.of().ptr(d).layout(new Layout(merged, st[0], offset)).f32(value).i64(n));
    }

    private long address(Storage s, String op) {
        return backend.address(s, op);
    }

    private DeviceMemory memory(Storage s, String op) {
        return backend.memory(s, op);
    }

    private static Layout layout(String op, Storage s, long offset, long[] strides, int[] shape) {
        if (strides.length != shape.length) {
            throw new IllegalArgumentException(op + ": " + strides.length + " strides for shape " + Arrays.toString(shape));
        }
        Layout l;
        try {
            l = new Layout(longs(shape), strides, offset);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(op + ": " + e.getMessage(), e);
        }
        long[] range = l.offsetRange();
        if (range[1] >= range[0] && (range[0] < 0 || range[1] >= s.size())) {
            throw new IllegalArgumentException(op + ": the view " + l + " reaches elements [" + range[0] + ", " + range[1]
                    + "] outside a storage of " + s.size() + " elements");
        }
        return l;
    }

    private static long[] longs(int[] v) {
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) out[i] = v[i];
        return out;
    }

    private static boolean isContiguous(Layout l) {
        long expected = 1;
        for (int d = l.shape().length - 1; d >= 0; d--) {
            if (l.shape()[d] != 1 && l.strides()[d] != expected) return false;
            expected *= l.shape()[d];
        }
        return true;
    }
}
