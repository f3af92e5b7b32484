package org.mpi2nccl.comm;

/**
 * How a buffer is cut into one segment per rank for the ring: {@link #balanced} for all-reduce (any count,
 * the first {@code count % parts} segments one element longer), {@link #equal} for all-gather and
 * reduce-scatter (blocks of the same size).
 */
public final class Segments {
    private final int parts;
    private final int base;
    private final int extra;

    private Segments(int parts, int base, int extra) {
        this.parts = parts;
        this.base = base;
        this.extra = extra;
    }

    public static Segments balanced(int count, int parts) {
        return new Segments(parts, count / parts, count % parts);
    }

    public static Segments equal(int block, int parts) {
        return new Segments(parts, block, 0);
    }

    public int parts() {
        return parts;
    }

    public int offset(int i) {
        return i * base + Math.min(i, extra);
    }

    public int length(int i) {
        return base + (i < extra ? 1 : 0);
    }

    /** Segment {@code i} of {@code buffer}. */
    public HostBuffer of(HostBuffer buffer, int i) {
        return buffer.slice(offset(i), length(i));
    }
}
