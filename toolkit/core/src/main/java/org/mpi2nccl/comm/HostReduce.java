package org.mpi2nccl.comm;


/**
 * The arithmetic of a reduction on host arrays: {@code out[i] = a[i] op b[i]}. Plain loops over primitive
 * arrays. {@code AVG} adds here; {@link #divide} finishes it once per element.
 *
 * <p>The JIT (C2, JDK 17) turns a loop into SIMD instructions only when all three arrays are indexed alike
 * ({@code o[i] = a[i] + b[i]}): with different offsets it cannot rule out that {@code o} is {@code a} a few
 * elements behind, and runs one element at a time. So buffers at equal offsets (the scratch blocks
 * {@code ShmAllReduce} adds in) take that loop: it adds a vector register's worth of floats per instruction where
 * the offset loop adds one, which is most of the difference while the data sits in the first-level cache.
 */
public final class HostReduce {
    private HostReduce() {
    }

    /** {@code out = a op b}, element-wise over {@code n} elements; {@code out} may be {@code a} or {@code b}. */
    public static void apply(Reduction op, HostBuffer a, HostBuffer b, HostBuffer out) {
        int n = a.length();
        if (b.length() != n || out.length() != n || a.dataType() != b.dataType() || a.dataType() != out.dataType()) {
            throw new IllegalArgumentException("reduce: buffers differ: " + a + ", " + b + ", " + out);
        }
        int ao = a.offset(), bo = b.offset(), oo = out.offset();
        switch (a.dataType()) {
            case FLOAT32 -> floats(op, (float[]) a.array(), ao, (float[]) b.array(), bo, (float[]) out.array(), oo, n);
            case FLOAT64 -> doubles(op, (double[]) a.array(), ao, (double[]) b.array(), bo, (double[]) out.array(), oo, n);
            case INT32 -> ints(op, (int[]) a.array(), ao, (int[]) b.array(), bo, (int[]) out.array(), oo, n);
            case INT64 -> longs(op, (long[]) a.array(), ao, (long[]) b.array(), bo, (long[]) out.array(), oo, n);
            case INT8 -> bytes(op, (byte[]) a.array(), ao, (byte[]) b.array(), bo, (byte[]) out.array(), oo, n);
        }
    }

    /** Finishes {@code AVG}: divides every element by {@code ranks} (integer division for integer types). */
    public static void divide(HostBuffer x, int ranks) {
        int n = x.length(), o = x.offset();
        switch (x.dataType()) {
            case FLOAT32 -> {
                float[] v = (float[]) x.array();
                float d = ranks;
                for (int i = o; i < o + n; i++) {
                    v[i] /= d;
                }
            }
            case FLOAT64 -> {
                double[] v = (double[]) x.array();
                double d = ranks;
                for (int i = o; i < o + n; i++) {
                    v[i] /= d;
                }
            }
            case INT32 -> {
                int[] v = (int[]) x.array();
                for (int i = o; i < o + n; i++) {
                    v[i] /= ranks;
                }
            }
            case INT64 -> {
                long[] v = (long[]) x.array();
                for (int i = o; i < o + n; i++) {
                    v[i] /= ranks;
                }
            }
            case INT8 -> {
                byte[] v = (byte[]) x.array();
                for (int i = o; i < o + n; i++) {
                    v[i] = (byte) (v[i] / ranks);
                }
            }
        }
    }

    private static void floats(Reduction op, float[] a, int ao, float[] b, int bo, float[] o, int oo, int n) {
        if (ao == oo && bo == oo) {
            int end = oo + n;
            switch (op) {
                case SUM, AVG -> { for (int i = oo; i < end; i++) o[i] = a[i] + b[i]; }
                case PROD -> { for (int i = oo; i < end; i++) o[i] = a[i] * b[i]; }
                case MAX -> { for (int i = oo; i < end; i++) o[i] = Math.max(a[i], b[i]); }
                case MIN -> { for (int i = oo; i < end; i++) o[i] = Math.min(a[i], b[i]); }
            }
            return;
        }
        switch (op) {
            case SUM, AVG -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] + b[bo + i]; }
            case PROD -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] * b[bo + i]; }
            case MAX -> { for (int i = 0; i < n; i++) o[oo + i] = Math.max(a[ao + i], b[bo + i]); }
            case MIN -> { for (int i = 0; i < n; i++) o[oo + i] = Math.min(a[ao + i], b[bo + i]); }
        }
    }

    private static void doubles(Reduction op, double[] a, int ao, double[] b, int bo, double[] o, int oo, int n) {
        if (ao == oo && bo == oo) {
            int end = oo + n;
            switch (op) {
                case SUM, AVG -> { for (int i = oo; i < end; i++) o[i] = a[i] + b[i]; }
                case PROD -> { for (int i = oo; i < end; i++) o[i] = a[i] * b[i]; }
                case MAX -> { for (int i = oo; i < end; i++) o[i] = Math.max(a[i], b[i]); }
                case MIN -> { for (int i = oo; i < end; i++) o[i] = Math.min(a[i], b[i]); }
            }
            return;
        }
        switch (op) {
            case SUM, AVG -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] + b[bo + i]; }
            case PROD -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] * b[bo + i]; }
            case MAX -> { for (int i = 0; i < n; i++) o[oo + i] = Math.max(a[ao + i], b[bo + i]); }
            case MIN -> { for (int i = 0; i < n; i++) o[oo + i] = Math.min(a[ao + i], b[bo + i]); }
        }
    }

    private static void ints(Reduction op, int[] a, int ao, int[] b, int bo, int[] o, int oo, int n) {
        if (ao == oo && bo == oo) {
            int end = oo + n;
            switch (op) {
                case SUM, AVG -> { for (int i = oo; i < end; i++) o[i] = a[i] + b[i]; }
                case PROD -> { for (int i = oo; i < end; i++) o[i] = a[i] * b[i]; }
                case MAX -> { for (int i = oo; i < end; i++) o[i] = Math.max(a[i], b[i]); }
                case MIN -> { for (int i = oo; i < end; i++) o[i] = Math.min(a[i], b[i]); }
            }
            return;
        }
        switch (op) {
            case SUM, AVG -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] + b[bo + i]; }
            case PROD -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] * b[bo + i]; }
            case MAX -> { for (int i = 0; i < n; i++) o[oo + i] = Math.max(a[ao + i], b[bo + i]); }
            case MIN -> { for (int i = 0; i < n; i++) o[oo + i] = Math.min(a[ao + i], b[bo + i]); }
        }
    }

    private static void longs(Reduction op, long[] a, int ao, long[] b, int bo, long[] o, int oo, int n) {
        if (ao == oo && bo == oo) {
            int end = oo + n;
            switch (op) {
                case SUM, AVG -> { for (int i = oo; i < end; i++) o[i] = a[i] + b[i]; }
                case PROD -> { for (int i = oo; i < end; i++) o[i] = a[i] * b[i]; }
                case MAX -> { for (int i = oo; i < end; i++) o[i] = Math.max(a[i], b[i]); }
                case MIN -> { for (int i = oo; i < end; i++) o[i] = Math.min(a[i], b[i]); }
            }
            return;
        }
        switch (op) {
            case SUM, AVG -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] + b[bo + i]; }
            case PROD -> { for (int i = 0; i < n; i++) o[oo + i] = a[ao + i] * b[bo + i]; }
            case MAX -> { for (int i = 0; i < n; i++) o[oo + i] = Math.max(a[ao + i], b[bo + i]); }
            case MIN -> { for (int i = 0; i < n; i++) o[oo + i] = Math.min(a[ao + i], b[bo + i]); }
        }
    }

    private static void bytes(Reduction op, byte[] a, int ao, byte[] b, int bo, byte[] o, int oo, int n) {
        if (ao == oo && bo == oo) {
            int end = oo + n;
            switch (op) {
                case SUM, AVG -> { for (int i = oo; i < end; i++) o[i] = (byte) (a[i] + b[i]); }
                case PROD -> { for (int i = oo; i < end; i++) o[i] = (byte) (a[i] * b[i]); }
                case MAX -> { for (int i = oo; i < end; i++) o[i] = (byte) Math.max(a[i], b[i]); }
                case MIN -> { for (int i = oo; i < end; i++) o[i] = (byte) Math.min(a[i], b[i]); }
            }
            return;
        }
        switch (op) {
            case SUM, AVG -> { for (int i = 0; i < n; i++) o[oo + i] = (byte) (a[ao + i] + b[bo + i]); }
            case PROD -> { for (int i = 0; i < n; i++) o[oo + i] = (byte) (a[ao + i] * b[bo + i]); }
            case MAX -> { for (int i = 0; i < n; i++) o[oo + i] = (byte) Math.max(a[ao + i], b[bo + i]); }
            case MIN -> { for (int i = 0; i < n; i++) o[oo + i] = (byte) Math.min(a[ao + i], b[bo + i]); }
        }
    }
}
