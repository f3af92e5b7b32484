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
 *
 * <p>This class is the API; the longer rules live next to it, one concern per class: {@link ArrayViews} (reshape,
 * permute, broadcast, slices), {@link ArrayCopies} (copies, device moves, in-place writes), {@link BroadcastOps}
 * (binary ops between arrays), {@link AxisReductions}, {@link BatchedMatmul} and {@link ArrayJoins} (stack, concat).
 */
public final class NDArray implements AutoCloseable {

    // package-private: the tensor package's ArrayViews, ArrayCopies, BroadcastOps, AxisReductions, BatchedMatmul read them
    final SharedStorage shared;
    final int[] shape;
    final long[] strides;
    final long offset;
    final long size;
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

    // ---- views (the rules in ArrayViews) ----------------------------------------------------------------------

    /** A new view of the same storage. */
    NDArray view(int[] newShape, long[] newStrides, long newOffset) {
        checkOpen("view");
        return new NDArray(shared, newShape, newStrides, newOffset);
    }

    /** Same elements, new shape (one dimension may be -1). A view when contiguous, else a compact copy. */
    public NDArray reshape(int... newShape) { return ArrayViews.reshape(this, newShape); }

    /** Collapses axes {@code startAxis..} into one: (N, C, H, W).flatten(1) is (N, C*H*W). */
    public NDArray flatten(int startAxis) { return ArrayViews.flatten(this, startAxis); }

    /** Reorders axes: the result's axis i is this array's axis {@code axes[i]}. A view. */
    public NDArray permute(int... axes) { return ArrayViews.permute(this, axes); }

    /** Swaps two axes. A view. */
    public NDArray transpose(int axis1, int axis2) { return ArrayViews.transpose(this, axis1, axis2); }

    /** Swaps the last two axes (a matrix transpose; batched for more dimensions). A view. */
    public NDArray transpose() {
        if (shape.length < 2) throw new IllegalArgumentException("transpose: needs 2 or more dimensions, got " + Shapes.str(shape));
        return transpose(-2, -1);
    }

    /** NumPy broadcasting to {@code target} (stride 0 on stretched axes). A view. */
    public NDArray broadcastTo(int... target) { return ArrayViews.broadcastTo(this, target); }

    /** Elements {@code start, start+step, ..} below {@code end} along {@code axis}. A view. */
    public NDArray slice(int axis, int start, int end, int step) { return ArrayViews.slice(this, axis, start, end, step); }

    public NDArray slice(int axis, int start, int end) { return slice(axis, start, end, 1); }

    /** Index {@code i} along {@code axis}, that axis removed. A view. */
    public NDArray select(int axis, int index) { return ArrayViews.select(this, axis, index); }

    /** Inserts an axis of size 1 at {@code axis}. A view. */
    public NDArray unsqueeze(int axis) { return ArrayViews.unsqueeze(this, axis); }

    // ---- copies -----------------------------------------------------------------------------------------------

    /** This array if already compact (a new reference to it, to close like any other), else a compact copy. */
    public NDArray compact() {
        checkOpen("compact");
        if (isCompact()) return view(shape, strides, 0);
        return copy();
    }

    /** A new compact array with the same elements. */
    public NDArray copy() { return ArrayCopies.copy(this); }

    /** A compact copy on {@code target} (a new reference to this array when it is already there and compact). */
    public NDArray to(Device target) { return ArrayCopies.to(this, target); }

    /** The elements in row-major order, copied to the host. */
    public float[] toArray() { return ArrayCopies.toArray(this); }

    /** The only element of a one-element array. */
    public float item() { return ArrayCopies.item(this); }

    /** Copies {@code src} (broadcast to this shape, same device) into this view, in place. Returns this. */
    public NDArray assign(NDArray src) { return ArrayCopies.assign(this, src); }

    /** Sets every element of this view to {@code value}, in place. Returns this. */
    public NDArray fill(float value) { return ArrayCopies.fill(this, value); }

    /** {@code this += other} in place (other broadcast to this shape); this must be compact. Returns this. */
    public NDArray addInPlace(NDArray other) { return ArrayCopies.addInPlace(this, other); }

    // ---- elementwise ------------------------------------------------------------------------------------------

    public NDArray unary(UnaryOp op) {
        try (NDArray a = compact()) {
            NDArray out = empty(device(), shape);
            backend().unary(op, a.storage(), out.storage(), size);
            return out;
        }
    }

    /** {@code this op other} with NumPy broadcasting. */
    public NDArray binary(BinaryOp op, NDArray other) { return BroadcastOps.binary(this, op, other); }

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
     * of axes is one backend reduction; several blocks are reduced one at a time (see {@link AxisReductions}).
     */
    public NDArray reduce(ReduceOp op, boolean keepDims, int... axes) { return AxisReductions.reduce(this, op, keepDims, axes); }

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
     * axes. A transposed compact operand is passed to GEMM as transposed, not copied ({@link BatchedMatmul}).
     */
    public NDArray matmul(NDArray other) { return BatchedMatmul.matmul(this, other); }

    // ---- joining ----------------------------------------------------------------------------------------------

    /** Joins arrays of equal shape along a new axis. */
    public static NDArray stack(int axis, NDArray... arrays) { return ArrayJoins.stack(axis, arrays); }

    /** Joins arrays along an existing axis; the other dimensions must agree. */
    public static NDArray concat(int axis, NDArray... arrays) { return ArrayJoins.concat(axis, arrays); }

    // ---- lifetime and printing --------------------------------------------------------------------------------

    /** Drops this view's reference on the storage (freed with the last one). Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        shared.release();
    }

    void checkOpen(String op) {
        if (closed) throw new IllegalStateException(op + ": array of shape " + Shapes.str(shape) + " was already closed");
    }

    void requireSameDevice(NDArray other, String op) {
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
