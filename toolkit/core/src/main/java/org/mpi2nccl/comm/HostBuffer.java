package org.mpi2nccl.comm;

import java.util.Arrays;
import java.util.Objects;

/**
 * A slice {@code [offset, offset + count)} of a Java primitive array: what MPI (MPJ Express) sends and
 * receives. Created with {@link #of(float[])} and friends; {@link #slice} shares the array.
 */
public final class HostBuffer extends BufferView {
    private final Object array;
    private final int offset;
    private final int count;

    private HostBuffer(Object array, int offset, int count) {
        super(DataType.ofArray(Objects.requireNonNull(array, "array")));
        this.array = array;
        int length = java.lang.reflect.Array.getLength(array);
        if (offset < 0 || count < 0 || (long) offset + count > length) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + ((long) offset + count)
                    + ") does not fit in an array of " + length + " elements");
        }
        this.offset = offset;
        this.count = count;
    }

    /** A buffer over any primitive array: byte[], int[], long[], float[] or double[]. */
    public static HostBuffer wrap(Object array) {
        return new HostBuffer(array, 0, java.lang.reflect.Array.getLength(array));
    }

    public static HostBuffer wrap(Object array, int offset, int count) {
        return new HostBuffer(array, offset, count);
    }

    public static HostBuffer of(float[] a) {
        return new HostBuffer(a, 0, a.length);
    }

    public static HostBuffer of(double[] a) {
        return new HostBuffer(a, 0, a.length);
    }

    public static HostBuffer of(int[] a) {
        return new HostBuffer(a, 0, a.length);
    }

    public static HostBuffer of(long[] a) {
        return new HostBuffer(a, 0, a.length);
    }

    public static HostBuffer of(byte[] a) {
        return new HostBuffer(a, 0, a.length);
    }

    /** A new zero-filled buffer. */
    public static HostBuffer allocate(DataType type, long count) {
        if (count < 0 || count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a host buffer holds at most " + (Integer.MAX_VALUE - 8)
                    + " elements (a Java array); asked for " + count);
        }
        int n = (int) count;
        Object a = switch (type) {
            case INT8 -> new byte[n];
            case INT32 -> new int[n];
            case INT64 -> new long[n];
            case FLOAT32 -> new float[n];
            case FLOAT64 -> new double[n];
        };
        return new HostBuffer(a, 0, n);
    }

    /** The backing array (shared, not copied). */
    public Object array() {
        return array;
    }

    /** Index of element 0 of this buffer in {@link #array()}. */
    public int offset() {
        return offset;
    }

    /** {@link #count()} as an int (host buffers are Java arrays). */
    public int length() {
        return count;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public boolean onDevice() {
        return false;
    }

    @Override
    public HostBuffer slice(long offset, long count) {
        checkSlice(offset, count, "a buffer");
        return new HostBuffer(array, this.offset + (int) offset, (int) count);
    }

    @Override
    long startByte() {
        return (long) offset * type.bytes();
    }

    @Override
    boolean sameSpace(BufferView other) {
        return other instanceof HostBuffer h && h.array == array;
    }

    /** Copies all elements into {@code dst} (same type and length); overlapping slices are handled. */
    public void copyTo(HostBuffer dst) {
        if (dst.type != type || dst.count != count) {
            throw new IllegalArgumentException("cannot copy " + describe() + " into " + dst.describe());
        }
        System.arraycopy(array, offset, dst.array, dst.offset, count);
    }

    /** A new array holding a copy of this slice. */
    public HostBuffer copy() {
        HostBuffer c = allocate(type, count);
        copyTo(c);
        return c;
    }

    /** Element {@code i} as a double (for checks and printing; exact for every int32 and float value). */
    public double getDouble(int i) {
        int k = offset + Objects.checkIndex(i, count);
        return switch (type) {
            case INT8 -> ((byte[]) array)[k];
            case INT32 -> ((int[]) array)[k];
            case INT64 -> ((long[]) array)[k];
            case FLOAT32 -> ((float[]) array)[k];
            case FLOAT64 -> ((double[]) array)[k];
        };
    }

    /** Sets element {@code i}, converting from double (rounding to the element type). */
    public void setDouble(int i, double v) {
        int k = offset + Objects.checkIndex(i, count);
        switch (type) {
            case INT8 -> ((byte[]) array)[k] = (byte) v;
            case INT32 -> ((int[]) array)[k] = (int) v;
            case INT64 -> ((long[]) array)[k] = (long) v;
            case FLOAT32 -> ((float[]) array)[k] = (float) v;
            case FLOAT64 -> ((double[]) array)[k] = v;
        }
    }

    /** Sets every element to {@code v}. */
    public void fill(double v) {
        switch (type) {
            case INT8 -> Arrays.fill((byte[]) array, offset, offset + count, (byte) v);
            case INT32 -> Arrays.fill((int[]) array, offset, offset + count, (int) v);
            case INT64 -> Arrays.fill((long[]) array, offset, offset + count, (long) v);
            case FLOAT32 -> Arrays.fill((float[]) array, offset, offset + count, (float) v);
            case FLOAT64 -> Arrays.fill((double[]) array, offset, offset + count, v);
        }
    }

    String describe() {
        return count + " x " + type.label();
    }

    @Override
    public String toString() {
        return "HostBuffer[" + describe() + (offset == 0 ? "" : " at " + offset) + "]";
    }
}
