package org.mpi2nccl.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Both loops of {@link HostReduce}: buffers at equal offsets (the vectorised shape) and at different offsets give
 * the same element-wise results, for every type and reduction, also when {@code out} is one of the inputs.
 */
class HostReduceTest {

    @Test
    void equalAndDifferentOffsetsAgreeElementByElement() {
        int n = 1037;
        for (DataType t : DataType.values()) {
            for (Reduction op : Reduction.values()) {
                for (int[] offsets : new int[][] {{0, 0, 0}, {4, 4, 4}, {1, 2, 3}, {3, 0, 3}}) {
                    HostBuffer a = filled(t, n, offsets[0], 1);
                    HostBuffer b = filled(t, n, offsets[1], 2);
                    HostBuffer out = offsets[2] == offsets[0] && offsets[2] == 3 ? a : HostBuffer.allocate(t, n + offsets[2]).slice(offsets[2], n);
                    double[] expected = new double[n];
                    for (int i = 0; i < n; i++) {
                        expected[i] = scalar(t, op, a.getDouble(i), b.getDouble(i));
                    }
                    HostReduce.apply(op, a, b, out);
                    for (int i = 0; i < n; i++) {
                        assertEquals(expected[i], out.getDouble(i), t + " " + op + " offsets " + java.util.Arrays.toString(offsets) + " at " + i);
                    }
                }
            }
        }
    }

    private static HostBuffer filled(DataType t, int n, int offset, int seed) {
        HostBuffer b = HostBuffer.allocate(t, n + offset).slice(offset, n);
        for (int i = 0; i < n; i++) {
            int v = (i * 7 + seed * 13) % 23 - 11;
            switch (t) {
                case INT8 -> ((byte[]) b.array())[offset + i] = (byte) v;
                case INT32 -> ((int[]) b.array())[offset + i] = v;
                case INT64 -> ((long[]) b.array())[offset + i] = v;
                case FLOAT32 -> ((float[]) b.array())[offset + i] = v * 0.75f;
                case FLOAT64 -> ((double[]) b.array())[offset + i] = v * 0.375;
            }
        }
        return b;
    }

    /** One element of {@code a op b} in the type's own arithmetic (AVG adds; the division comes later). */
    private static double scalar(DataType t, Reduction op, double a, double b) {
        double r = switch (op) {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
        };
        return switch (t) {
            case INT8 -> (byte) (long) r;
            case INT32 -> (int) (long) r;
            case INT64 -> (long) r;
            case FLOAT32 -> (float) r;
            case FLOAT64 -> r;
        };
    }
}
