package org.mpi2nccl.tensor;

import java.util.Arrays;

/**
 * An n-dimensional float32 array on one {@link Device}: a {@link Storage} seen through a shape, strides and an
 * offset (all in elements). Reshape (of contiguous arrays), permute/transpose, slicing and broadcasting are views
 * that share the storage and copy nothing; {@link #compact()} makes the row-major copy the backend's
 * primitives need. Arithmetic broadcasts like NumPy and returns new arrays; nothing here changes an array
 * except the explicitly named in-place methods ({@link #assign}, {@link #fill}, {@link #addInPlace}).
 *
 * <p>Lifetime: every view holds a reference on the shared storage; {@link #close()} drops it and the last
 * close frees the memory. Inside an {@link ArrayScope} arrays are closed for you.
 */
public final class NDArray implements AutoCloseable {

    private final SharedStorage shared;
    private final int[] shape;
    private final long[] strides;
    private final long offset;
    private final long size;
    private boolean closed;
    ArrayScope scope;

    private NDArray(SharedStorage shared, int[] shape, long[] strides, long offset) {
        this.shared = shared;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
        this.size = Shapes.size(shape);
        shared.retain();
        ArrayScope.register(this);
    }

    // ---- creation --------------------------------------------------------------------------------------------

    /** A new compact array with unspecified contents. */
    public static NDArray empty(Device device, int... shape) {
        int[] s = shape.clone();
        Shapes.checkShape(s, "empty");
        Storage storage = device.backend().allocate(Shapes.size(s));
        return new NDArray(new SharedStorage(storage), s, Shapes.rowMajorStrides(s), 0);
    }

    /**
     * A compact array over a storage the caller made, which it owns from now on (closing the array's last view
     * closes it). For storages a backend hands out directly, such as a CUDA view of a larger buffer: data-parallel
     * training makes each parameter's gradient such a view of one flat gradient bucket.
     */
    public static NDArray onStorage(Storage storage, int... shape) {
        int[] s = shape.clone();
        Shapes.checkShape(s, "onStorage");
        if (storage.size() != Shapes.size(s)) {
            throw new IllegalArgumentException("onStorage: a storage of " + storage.size() + " elements cannot hold shape "
                    + Shapes.str(s) + " (" + Shapes.size(s) + " elements)");
        }
        return new NDArray(new SharedStorage(storage), s, Shapes.rowMajorStrides(s), 0);
    }

    public static NDArray full(Device device, float value, int... shape) {
        NDArray a = empty(device, shape);
        a.backend().fill(a.storage(), 0, a.size, value);
        return a;
    }

    public static NDArray zeros(Device device, int... shape) { return full(device, 0f, shape); }

    public static NDArray ones(Device device, int... shape) { return full(device, 1f, shape); }

    public static NDArray scalar(Device device, float value) { return full(device, value); }

    /** A CPU array holding a copy of {@code data} with this shape. */
    public static NDArray of(float[] data, int... shape) { return of(Device.cpu(), data, shape); }

    /** An array on {@code device} holding a copy of {@code data} with this shape. */
    public static NDArray of(Device device, float[] data, int... shape) {
        if (shape.length == 0 && data.length != 1) shape = new int[] {data.length};
        if (Shapes.size(shape) != data.length)
            throw new IllegalArgumentException("of: " + data.length + " values do not fill shape " + Shapes.str(shape));
        NDArray a = empty(device, shape);
        a.backend().copyFromHost(data, 0, a.storage(), 0, data.length);
        return a;
    }

    /** Uniform in [low, high) from {@code rng}. */
    public static NDArray uniform(Device device, Rng rng, float low, float high, int... shape) {
        NDArray a = empty(device, shape);
        a.backend().fillUniform(a.storage(), a.size, low, high, rng.seed(), rng.advance(a.size));
        return a;
    }

    /** Normal with this mean and standard deviation, from {@code rng}. */
    public static NDArray normal(Device device, Rng rng, float mean, float std, int... shape) {
        NDArray a = empty(device, shape);
        a.backend().fillNormal(a.storage(), a.size, mean, std, rng.seed(), rng.advance(a.size));
        return a;
    }

    /** 0, 1, ..., n-1. */
    public static NDArray arange(Device device, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i;
        return of(device, v, n);
    }

    // ---- what it is -------------------------------------------------------------------------------------------

    public int[] shape() { return shape.clone(); }

    public int shape(int axis) { return shape[Shapes.axis(axis, shape.length, "shape")]; }

    public int ndim() { return shape.length; }

    public long size() { return size; }

    public long[] strides() { return strides.clone(); }

    public long offset() { return offset; }

    public Device device() { return shared.storage.backend().device(); }

    public Backend backend() { return shared.storage.backend(); }

    /** The storage under this view (shared with other views). For backends and communication code. */
    public Storage storage() {
        checkOpen("storage");
        return shared.storage;
    }

    /** Row-major strides (dimensions of size 1 may have any stride), any offset. */
    public boolean isContiguous() {
        long expected = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expected) return false;
            expected *= shape[i];
        }
        return true;
    }

    /** Contiguous and starting at element 0 of its storage: what the backend's primitives take. */
    public boolean isCompact() { return offset == 0 && isContiguous(); }

    public boolean isClosed() { return closed; }

    // ---- views ------------------------------------------------------------------------------------------------

    private NDArray view(int[] newShape, long[] newStrides, long newOffset) {
        checkOpen("view");
        return new NDArray(shared, newShape, newStrides, newOffset);
    }

    /** Same elements, new shape (one dimension may be -1). A view when contiguous, else a compact copy. */
    public NDArray reshape(int... newShape) {
        int[] s = newShape.clone();
        int unknown = -1;
        long known = 1;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == -1) {
                if (unknown >= 0) throw new IllegalArgumentException("reshape: only one -1 allowed in " + Shapes.str(newShape));
                unknown = i;
            } else {
                known *= s[i];
            }
        }
        if (unknown >= 0) {
            if (known == 0 || size % known != 0)
                throw new IllegalArgumentException("reshape: cannot reshape " + Shapes.str(shape) + " into " + Shapes.str(newShape));
            s[unknown] = (int) (size / known);
        }
        Shapes.checkShape(s, "reshape");
        if (Shapes.size(s) != size)
            throw new IllegalArgumentException("reshape: cannot reshape " + Shapes.str(shape) + " (" + size
                    + " elements) into " + Shapes.str(newShape) + " (" + Shapes.size(s) + " elements)");
        if (isContiguous()) return view(s, Shapes.rowMajorStrides(s), offset);
        try (NDArray c = compact()) {
            return c.view(s, Shapes.rowMajorStrides(s), 0);
        }
    }

    /** Collapses axes {@code startAxis..} into one: (N, C, H, W).flatten(1) is (N, C*H*W). */
    public NDArray flatten(int startAxis) {
        int a = Shapes.axis(startAxis, Math.max(shape.length, 1), "flatten");
        int[] s = new int[a + 1];
        System.arraycopy(shape, 0, s, 0, a);
        long rest = 1;
        for (int i = a; i < shape.length; i++) rest *= shape[i];
        s[a] = (int) rest;
        return reshape(s);
    }

    /** Reorders axes: the result's axis i is this array's axis {@code axes[i]}. A view. */
    public NDArray permute(int... axes) {
        if (axes.length != shape.length)
            throw new IllegalArgumentException("permute: " + axes.length + " axes given for shape " + Shapes.str(shape));
        int[] s = new int[axes.length];
        long[] st = new long[axes.length];
        boolean[] seen = new boolean[axes.length];
        for (int i = 0; i < axes.length; i++) {
            int a = Shapes.axis(axes[i], shape.length, "permute");
            if (seen[a]) throw new IllegalArgumentException("permute: axis " + a + " given twice in " + Arrays.toString(axes));
            seen[a] = true;
            s[i] = shape[a];
            st[i] = strides[a];
        }
        return view(s, st, offset);
    }

    /** Swaps two axes. A view. */
    public NDArray transpose(int axis1, int axis2) {
        int[] p = new int[shape.length];
        for (int i = 0; i < p.length; i++) p[i] = i;
        int a = Shapes.axis(axis1, shape.length, "transpose"), b = Shapes.axis(axis2, shape.length, "transpose");
        p[a] = b;
        p[b] = a;
        return permute(p);
    }

    /** Swaps the last two axes (a matrix transpose; batched for more dimensions). A view. */
    public NDArray transpose() {
        if (shape.length < 2) throw new IllegalArgumentException("transpose: needs 2 or more dimensions, got " + Shapes.str(shape));
        return transpose(-2, -1);
    }

    /** NumPy broadcasting to {@code target} (stride 0 on stretched axes). A view. */
    public NDArray broadcastTo(int... target) {
        if (target.length < shape.length)
            throw new IllegalArgumentException("broadcastTo: cannot broadcast " + Shapes.str(shape) + " to " + Shapes.str(target));
        int lead = target.length - shape.length;
        long[] st = new long[target.length];
        for (int i = 0; i < target.length; i++) {
            if (i < lead) { st[i] = 0; continue; }
            int d = shape[i - lead];
            if (d == target[i]) st[i] = strides[i - lead];
            else if (d == 1) st[i] = 0;
            else throw new IllegalArgumentException("broadcastTo: cannot broadcast " + Shapes.str(shape) + " to " + Shapes.str(target));
        }
        return view(target.clone(), st, offset);
    }

    /** Elements {@code start, start+step, ..} below {@code end} along {@code axis}. A view. */
    public NDArray slice(int axis, int start, int end, int step) {
        int a = Shapes.axis(axis, shape.length, "slice");
        if (step < 1) throw new IllegalArgumentException("slice: step must be >= 1, got " + step);
        if (start < 0 || end > shape[a] || start > end)
            throw new IllegalArgumentException("slice: range [" + start + ", " + end + ") out of bounds for axis " + a
                    + " of shape " + Shapes.str(shape));
        int[] s = shape.clone();
        long[] st = strides.clone();
        s[a] = (end - start + step - 1) / step;
        st[a] = strides[a] * step;
        return view(s, st, offset + start * strides[a]);
    }

    public NDArray slice(int axis, int start, int end) { return slice(axis, start, end, 1); }

    /** Index {@code i} along {@code axis}, that axis removed. A view. */
    public NDArray select(int axis, int index) {
        int a = Shapes.axis(axis, shape.length, "select");
        if (index < 0 || index >= shape[a])
            throw new IllegalArgumentException("select: index " + index + " out of bounds for axis " + a + " of shape " + Shapes.str(shape));
        int[] s = new int[shape.length - 1];
        long[] st = new long[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (i == a) continue;
            s[j] = shape[i];
            st[j++] = strides[i];
        }
        return view(s, st, offset + index * strides[a]);
    }

    /** Inserts an axis of size 1 at {@code axis}. A view. */
    public NDArray unsqueeze(int axis) {
        int a = Shapes.axis(axis, shape.length + 1, "unsqueeze");
        int[] s = new int[shape.length + 1];
        long[] st = new long[shape.length + 1];
        for (int i = 0, j = 0; i < s.length; i++) {
            if (i == a) { s[i] = 1; st[i] = 0; continue; }
            s[i] = shape[j];
            st[i] = strides[j++];
        }
        return view(s, st, offset);
    }

    // ---- copies -----------------------------------------------------------------------------------------------

    /** This array if already compact (a new reference to it, to close like any other), else a compact copy. */
    public NDArray compact() {
        checkOpen("compact");
        if (isCompact()) return view(shape, strides, 0);
        return copy();
    }

    /** A new compact array with the same elements. */
    public NDArray copy() {
        checkOpen("copy");
        NDArray out = empty(device(), shape);
        stridedCopy(this, out);
        return out;
    }

    /** A compact copy on {@code target} (a new reference to this array when it is already there and compact). */
    public NDArray to(Device target) {
        if (target.equals(device())) return compact();
        try (NDArray c = compact()) {
            float[] host = c.toArray();
            return of(target, host, shape);
        }
    }

    /** The elements in row-major order, copied to the host. */
    public float[] toArray() {
        checkOpen("toArray");
        float[] host = new float[(int) size];
        if (isContiguous()) {
            backend().copyToHost(storage(), offset, host, 0, (int) size);
        } else {
            try (NDArray c = copy()) {
                backend().copyToHost(c.storage(), 0, host, 0, (int) size);
            }
        }
        return host;
    }

    /** The only element of a one-element array. */
    public float item() {
        if (size != 1) throw new IllegalArgumentException("item: array of shape " + Shapes.str(shape) + " has " + size + " elements, not 1");
        float[] v = new float[1];
        backend().copyToHost(storage(), offset, v, 0, 1);
        return v[0];
    }

    /** Copies {@code src} (broadcast to this shape, same device) into this view, in place. Returns this. */
    public NDArray assign(NDArray src) {
        checkOpen("assign");
        requireSameDevice(src, "assign");
        if (src.shared == shared && src != this) {
            try (NDArray tmp = src.copy()) {
                return assign(tmp);
            }
        }
        try (NDArray b = src.broadcastTo(Shapes.broadcastTarget(src.shape, shape, "assign"))) {
            stridedCopy(b, this);
        }
        return this;
    }

    /** dst = src elementwise (same shape, same device), with adjacent contiguous axes merged first. */
    private static void stridedCopy(NDArray src, NDArray dst) {
        long[][] st = new long[2][];
        int[] s = Shapes.coalesce(src.shape, new long[][] {src.strides, dst.strides}, st);
        src.backend().copyStrided(src.storage(), src.offset, st[0], dst.storage(), dst.offset, st[1], s);
    }

    /** Sets every element of this view to {@code value}, in place. Returns this. */
    public NDArray fill(float value) {
        checkOpen("fill");
        if (isContiguous()) backend().fill(storage(), offset, size, value);
        else backend().fillStrided(storage(), offset, strides, shape, value);
        return this;
    }

    /** {@code this += other} in place (other broadcast to this shape); this must be compact. Returns this. */
    public NDArray addInPlace(NDArray other) {
        if (!isCompact()) throw new IllegalStateException("addInPlace: needs a compact array, got a view of shape " + Shapes.str(shape));
        requireSameDevice(other, "addInPlace");
        try (NDArray b = other.broadcastTo(Shapes.broadcastTarget(other.shape, shape, "addInPlace")); NDArray bc = b.compact()) {
            backend().binary(BinaryOp.ADD, storage(), bc.storage(), storage(), size);
        }
        return this;
    }

    // ---- elementwise ------------------------------------------------------------------------------------------

    public NDArray unary(UnaryOp op) {
        try (NDArray a = compact()) {
            NDArray out = empty(device(), shape);
            backend().unary(op, a.storage(), out.storage(), size);
            return out;
        }
    }

    /** {@code this op other} with NumPy broadcasting. */
    public NDArray binary(BinaryOp op, NDArray other) {
        requireSameDevice(other, op.name().toLowerCase());
        int[] s = Shapes.broadcast(shape, other.shape, op.name().toLowerCase());
        NDArray viaChannels = channelBroadcast(op, other, s);
        if (viaChannels != null) return viaChannels;
        try (NDArray ab = broadcastTo(s); NDArray a = ab.compact();
             NDArray bb = other.broadcastTo(s); NDArray b = bb.compact()) {
            NDArray out = empty(device(), s);
            backend().binary(op, a.storage(), b.storage(), out.storage(), out.size);
            return out;
        }
    }

    /**
     * The broadcast cases {@link Backend#binaryBroadcast} does without expanding an operand: one side already
     * has the full shape {@code s}, the other's elements (compact) line up with one contiguous block of axes.
     * Returns null when the case does not apply.
     */
    private NDArray channelBroadcast(BinaryOp op, NDArray other, int[] s) {
        boolean thisFull = Arrays.equals(shape, s), otherFull = Arrays.equals(other.shape, s);
        if (thisFull == otherFull) return null;
        NDArray full = thisFull ? this : other, small = thisFull ? other : this;
        BinaryOp effective = thisFull ? op : swapped(op);
        if (effective == null || !small.isCompact()) return null;
        long[] bst;
        try (NDArray b = small.broadcastTo(s)) {
            bst = b.strides;
        }
        // the axes where the small operand varies must be one block [p, q], laid out row-major within it
        int p = -1, q = -1;
        for (int i = 0; i < s.length; i++) {
            if (bst[i] != 0 && s[i] != 1) {
                if (p < 0) p = i;
                else if (q != i - 1) return null;
                q = i;
            }
        }
        long outer = 1, channels = 1, inner = 1;
        if (p >= 0) {
            long expected = 1;
            for (int i = q; i >= p; i--) {
                if (s[i] != 1 && bst[i] != expected) return null;
                expected *= s[i];
            }
            for (int i = 0; i < p; i++) outer *= s[i];
            for (int i = p; i <= q; i++) channels *= s[i];
            for (int i = q + 1; i < s.length; i++) inner *= s[i];
        } else {
            for (int d : s) inner *= d;
        }
        try (NDArray a = full.compact()) {
            NDArray out = empty(device(), s);
            backend().binaryBroadcast(effective, a.storage(), small.storage(), out.storage(), outer, channels, inner);
            return out;
        }
    }

    /** The op with operands exchanged ({@code b op a} as {@code a op' b}), or null if there is none. */
    private static BinaryOp swapped(BinaryOp op) {
        return switch (op) {
            case ADD, MUL, MAXIMUM, MINIMUM, EQ, NE -> op;
            case SUB -> BinaryOp.RSUB;
            case RSUB -> BinaryOp.SUB;
            case DIV -> BinaryOp.RDIV;
            case RDIV -> BinaryOp.DIV;
            case GT -> BinaryOp.LT;
            case LT -> BinaryOp.GT;
            case GE -> BinaryOp.LE;
            case LE -> BinaryOp.GE;
            case POW -> null;
        };
    }

    /** {@code this op scalar}. */
    public NDArray binary(BinaryOp op, float scalar) {
        try (NDArray a = compact()) {
            NDArray out = empty(device(), shape);
            backend().binaryScalar(op, a.storage(), scalar, out.storage(), size);
            return out;
        }
    }

    public NDArray add(NDArray o) { return binary(BinaryOp.ADD, o); }
    public NDArray sub(NDArray o) { return binary(BinaryOp.SUB, o); }
    public NDArray mul(NDArray o) { return binary(BinaryOp.MUL, o); }
    public NDArray div(NDArray o) { return binary(BinaryOp.DIV, o); }
    public NDArray pow(NDArray o) { return binary(BinaryOp.POW, o); }
    public NDArray maximum(NDArray o) { return binary(BinaryOp.MAXIMUM, o); }
    public NDArray minimum(NDArray o) { return binary(BinaryOp.MINIMUM, o); }
    public NDArray eq(NDArray o) { return binary(BinaryOp.EQ, o); }
    public NDArray gt(NDArray o) { return binary(BinaryOp.GT, o); }
    public NDArray ge(NDArray o) { return binary(BinaryOp.GE, o); }
    public NDArray lt(NDArray o) { return binary(BinaryOp.LT, o); }

    public NDArray add(float s) { return binary(BinaryOp.ADD, s); }
    public NDArray sub(float s) { return binary(BinaryOp.SUB, s); }
    public NDArray mul(float s) { return binary(BinaryOp.MUL, s); }
    public NDArray div(float s) { return binary(BinaryOp.DIV, s); }
    public NDArray pow(float s) { return binary(BinaryOp.POW, s); }
    public NDArray maximum(float s) { return binary(BinaryOp.MAXIMUM, s); }
    public NDArray gt(float s) { return binary(BinaryOp.GT, s); }
    public NDArray ge(float s) { return binary(BinaryOp.GE, s); }
    public NDArray lt(float s) { return binary(BinaryOp.LT, s); }
    public NDArray eq(float s) { return binary(BinaryOp.EQ, s); }
    /** {@code s - this}. */
    public NDArray rsub(float s) { return binary(BinaryOp.RSUB, s); }
    /** {@code s / this}. */
    public NDArray rdiv(float s) { return binary(BinaryOp.RDIV, s); }

    public NDArray neg() { return unary(UnaryOp.NEG); }
    public NDArray abs() { return unary(UnaryOp.ABS); }
    public NDArray exp() { return unary(UnaryOp.EXP); }
    public NDArray log() { return unary(UnaryOp.LOG); }
    public NDArray sqrt() { return unary(UnaryOp.SQRT); }
    public NDArray tanh() { return unary(UnaryOp.TANH); }
    public NDArray relu() { return unary(UnaryOp.RELU); }
    public NDArray sigmoid() { return unary(UnaryOp.SIGMOID); }
    public NDArray square() { return unary(UnaryOp.SQUARE); }

    // ---- reductions -------------------------------------------------------------------------------------------

    /**
     * Reduces over {@code axes} (none = all). {@code keepDims} keeps them as size-1 axes. A contiguous block
     * of axes is one backend reduction of the (outer, reduced, inner) array; several blocks (e.g. axes 0, 2, 3
     * of NCHW) are reduced one block at a time, so nothing is permuted or copied.
     */
    public NDArray reduce(ReduceOp op, boolean keepDims, int... axes) {
        String name = op.name().toLowerCase();
        int[] ax = Shapes.axes(axes, shape.length, name);
        boolean[] reduced = new boolean[shape.length];
        for (int a : ax) reduced[a] = true;
        for (int a : ax)
            if (shape[a] == 0) throw new IllegalArgumentException(name + ": cannot reduce over empty axis " + a + " of " + Shapes.str(shape));
        int[] outShape = new int[keepDims ? shape.length : shape.length - ax.length];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (keepDims) outShape[i] = reduced[i] ? 1 : shape[i];
            else if (!reduced[i]) outShape[j++] = shape[i];
        }
        if (ax.length == 0) return op == ReduceOp.ARGMAX ? zeros(device(), shape) : copy(); // a 0-d array
        if (op == ReduceOp.ARGMAX && ax.length != 1)
            throw new IllegalArgumentException("argmax: reduces over exactly one axis, got " + Arrays.toString(axes));
        boolean block = ax[ax.length - 1] - ax[0] == ax.length - 1;
        if (!block) {
            // several blocks of axes, e.g. (0, 2, 3) of NCHW: reduce the last block in place of a permuted copy
            int start = ax.length - 1;
            while (start > 0 && ax[start - 1] == ax[start] - 1) start--;
            int[] last = Arrays.copyOfRange(ax, start, ax.length), rest = Arrays.copyOfRange(ax, 0, start);
            try (NDArray partial = reduce(op, true, last)) {
                NDArray kept = partial.reduce(op, true, rest);
                if (keepDims) return kept;
                try (kept) {
                    return kept.reshape(outShape);
                }
            }
        }
        // the reduced axes are one contiguous block: (outer, reduced, inner) of the compact array
        NDArray src = compact();
        long outer = 1, red = 1, inner = 1;
        for (int i = 0; i < ax[0]; i++) outer *= shape[i];
        for (int a : ax) red *= shape[a];
        for (int i = ax[ax.length - 1] + 1; i < shape.length; i++) inner *= shape[i];
        try (src) {
            NDArray out = empty(device(), outShape);
            backend().reduce(op, src.storage(), out.storage(), outer, red, inner);
            return out;
        }
    }

    public NDArray sum(int... axes) { return reduce(ReduceOp.SUM, false, axes); }
    public NDArray sumKeepDims(int... axes) { return reduce(ReduceOp.SUM, true, axes); }
    public NDArray max(int... axes) { return reduce(ReduceOp.MAX, false, axes); }
    public NDArray maxKeepDims(int... axes) { return reduce(ReduceOp.MAX, true, axes); }
    public NDArray min(int... axes) { return reduce(ReduceOp.MIN, false, axes); }
    /** Index of the first maximum along {@code axis}, as floats. */
    public NDArray argmax(int axis) { return reduce(ReduceOp.ARGMAX, false, axis); }

    public NDArray mean(int... axes) {
        long count = 1;
        for (int a : Shapes.axes(axes, shape.length, "mean")) count *= shape[a];
        try (NDArray s = sum(axes)) {
            return s.mul(1f / count);
        }
    }

    // ---- linear algebra ---------------------------------------------------------------------------------------

    /**
     * Matrix product over the last two axes, NumPy's matmul: (m, k) @ (k, n), or batched with broadcast batch
     * axes. A transposed compact operand is passed to GEMM as transposed, not copied.
     */
    public NDArray matmul(NDArray other) {
        requireSameDevice(other, "matmul");
        if (shape.length < 2 || other.shape.length < 2)
            throw new IllegalArgumentException("matmul: needs 2 or more dimensions, got " + Shapes.str(shape) + " and " + Shapes.str(other.shape));
        int m = shape[shape.length - 2], k = shape[shape.length - 1];
        int k2 = other.shape[other.shape.length - 2], n = other.shape[other.shape.length - 1];
        if (k != k2)
            throw new IllegalArgumentException("matmul: shapes " + Shapes.str(shape) + " and " + Shapes.str(other.shape)
                    + " do not match (inner dimensions " + k + " vs " + k2 + ")");
        int[] batchA = Arrays.copyOf(shape, shape.length - 2), batchB = Arrays.copyOf(other.shape, other.shape.length - 2);
        int[] batchShape = Shapes.broadcast(batchA, batchB, "matmul");
        int batch = (int) Shapes.size(batchShape);
        int[] outShape = Arrays.copyOf(batchShape, batchShape.length + 2);
        outShape[batchShape.length] = m;
        outShape[batchShape.length + 1] = n;
        try (GemmOperand a = GemmOperand.of(this, batchShape); GemmOperand b = GemmOperand.of(other, batchShape)) {
            NDArray out = empty(device(), outShape);
            backend().matmul(a.array.storage(), b.array.storage(), out.storage(), batch, m, n, k,
                    a.transposed, b.transposed, a.batchStride, b.batchStride);
            return out;
        }
    }

    /** A matmul operand as GEMM wants it: compact, maybe transposed, batch stride 0 when shared by the batch. */
    private static final class GemmOperand implements AutoCloseable {
        final NDArray array;
        final boolean transposed;
        final long batchStride;

        private GemmOperand(NDArray array, boolean transposed, long batchStride) {
            this.array = array;
            this.transposed = transposed;
            this.batchStride = batchStride;
        }

        static GemmOperand of(NDArray x, int[] batchShape) {
            int nd = x.shape.length;
            int rows = x.shape[nd - 2], cols = x.shape[nd - 1];
            long matrix = (long) rows * cols;
            boolean sharedByBatch = Shapes.size(Arrays.copyOf(x.shape, nd - 2)) == 1;
            if (sharedByBatch) {
                // one matrix for the whole batch: plain, or a transposed view of a compact matrix
                int[] s2 = {rows, cols};
                try (NDArray m2 = x.reshapeView2d()) {
                    if (m2 != null) {
                        if (m2.isCompact()) return new GemmOperand(m2.compact(), false, 0);
                        if (m2.offset == 0 && m2.strides[0] == 1 && m2.strides[1] == rows)
                            return new GemmOperand(m2.view(new int[] {cols, rows}, new long[] {rows, 1}, 0), true, 0);
                    }
                }
                try (NDArray r = x.reshape(s2)) {
                    return new GemmOperand(r.compact(), false, 0);
                }
            }
            int[] full = Arrays.copyOf(batchShape, batchShape.length + 2);
            full[batchShape.length] = rows;
            full[batchShape.length + 1] = cols;
            try (NDArray b = x.broadcastTo(full)) {
                return new GemmOperand(b.compact(), false, matrix);
            }
        }

        @Override
        public void close() { array.close(); }
    }

    /** The last two axes as a 2-d view when every leading axis has size 1, else null. */
    private NDArray reshapeView2d() {
        int nd = shape.length;
        for (int i = 0; i < nd - 2; i++) if (shape[i] != 1) return null;
        return view(new int[] {shape[nd - 2], shape[nd - 1]}, new long[] {strides[nd - 2], strides[nd - 1]}, offset);
    }

    // ---- joining ----------------------------------------------------------------------------------------------

    /** Joins arrays of equal shape along a new axis. */
    public static NDArray stack(int axis, NDArray... arrays) {
        if (arrays.length == 0) throw new IllegalArgumentException("stack: no arrays given");
        int[] s0 = arrays[0].shape;
        for (NDArray a : arrays)
            if (!Arrays.equals(a.shape, s0))
                throw new IllegalArgumentException("stack: shapes " + Shapes.str(s0) + " and " + Shapes.str(a.shape) + " differ");
        int ax = Shapes.axis(axis, s0.length + 1, "stack");
        int[] s = new int[s0.length + 1];
        for (int i = 0, j = 0; i < s.length; i++) s[i] = i == ax ? arrays.length : s0[j++];
        NDArray out = empty(arrays[0].device(), s);
        for (int i = 0; i < arrays.length; i++) {
            try (NDArray dst = out.select(ax, i)) {
                dst.assign(arrays[i]);
            }
        }
        return out;
    }

    /** Joins arrays along an existing axis; the other dimensions must agree. */
    public static NDArray concat(int axis, NDArray... arrays) {
        if (arrays.length == 0) throw new IllegalArgumentException("concat: no arrays given");
        int[] s0 = arrays[0].shape;
        int ax = Shapes.axis(axis, s0.length, "concat");
        int total = 0;
        for (NDArray a : arrays) {
            boolean ok = a.shape.length == s0.length;
            for (int i = 0; ok && i < s0.length; i++) ok = i == ax || a.shape[i] == s0[i];
            if (!ok)
                throw new IllegalArgumentException("concat: shapes " + Shapes.str(s0) + " and " + Shapes.str(a.shape)
                        + " differ outside axis " + ax);
            total += a.shape[ax];
        }
        int[] s = s0.clone();
        s[ax] = total;
        NDArray out = empty(arrays[0].device(), s);
        int at = 0;
        for (NDArray a : arrays) {
            try (NDArray dst = out.slice(ax, at, at + a.shape[ax])) {
                dst.assign(a);
            }
            at += a.shape[ax];
        }
        return out;
    }

    // ---- lifetime and printing --------------------------------------------------------------------------------

    /** Drops this view's reference on the storage (freed with the last one). Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        shared.release();
    }

    private void checkOpen(String op) {
        if (closed) throw new IllegalStateException(op + ": array of shape " + Shapes.str(shape) + " was already closed");
    }

    private void requireSameDevice(NDArray other, String op) {
        checkOpen(op);
        other.checkOpen(op);
        if (!device().equals(other.device()))
            throw new IllegalArgumentException(op + ": arrays on different devices (" + device() + " and " + other.device()
                    + "); move one with to(device)");
    }

    @Override
    public String toString() {
        if (closed) return "NDArray" + Shapes.str(shape) + " [closed]";
        StringBuilder b = new StringBuilder("NDArray").append(Shapes.str(shape)).append(" on ").append(device());
        if (size <= 64) b.append(' ').append(Arrays.toString(toArray()));
        return b.toString();
    }
}
