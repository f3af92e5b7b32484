package org.mpi2nccl.bench;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Reduction;

/**
 * What to measure, as nccl-tests' command line: sizes from {@code minBytes} to {@code maxBytes} multiplied by
 * {@code factor} each step ({@code -b -e -f}), {@code warmup} untimed and about {@code iters} timed calls per
 * size ({@code -w -n}; fewer for slow communicators, at least {@code minIters}, so that one size takes at most
 * about {@code secondsPerSize}), the element type and reduction, the root, and whether each result is checked
 * ({@code -c}).
 */
public record BenchSpec(Collective collective, DataType type, Reduction op, int root, long minBytes, long maxBytes,
                        double factor, int warmup, int iters, int minIters, double secondsPerSize, boolean inPlace,
                        boolean outOfPlace, boolean check) {

    public BenchSpec {
        if (collective == Collective.BARRIER || collective == Collective.SPLIT) {
            throw new IllegalArgumentException("bench: " + collective.label() + " moves no data; choose allReduce,"
                    + " broadcast, reduce, allGather, reduceScatter or sendRecv");
        }
        if (minBytes < 1 || maxBytes < minBytes) {
            throw new IllegalArgumentException("bench: sizes must satisfy 1 <= min <= max, got " + minBytes + ".." + maxBytes);
        }
        if (factor <= 1) {
            throw new IllegalArgumentException("bench: the size factor must be > 1, got " + factor);
        }
        if (warmup < 0 || iters < 1 || minIters < 1 || minIters > iters) {
            throw new IllegalArgumentException("bench: need warmup >= 0 and 1 <= minIters <= iters; got " + warmup
                    + ", " + minIters + ", " + iters);
        }
        if (!inPlace && !outOfPlace) {
            throw new IllegalArgumentException("bench: measure in place, out of place, or both");
        }
    }

    /** all-reduce of float32 sums, 8 B .. 64 MiB by 2, 5 warm-up and 20 timed calls, in and out of place, checked. */
    public static BenchSpec defaults() {
        return new BenchSpec(Collective.ALL_REDUCE, DataType.FLOAT32, Reduction.SUM, 0, 8, 64L << 20, 2, 5, 20, 3,
                5.0, true, true, true);
    }

    public BenchSpec collective(Collective c) {
        return new BenchSpec(c, type, op, root, minBytes, maxBytes, factor, warmup, iters, minIters, secondsPerSize, inPlace, outOfPlace, check);
    }

    public BenchSpec type(DataType t) {
        return new BenchSpec(collective, t, op, root, minBytes, maxBytes, factor, warmup, iters, minIters, secondsPerSize, inPlace, outOfPlace, check);
    }

    public BenchSpec op(Reduction r) {
        return new BenchSpec(collective, type, r, root, minBytes, maxBytes, factor, warmup, iters, minIters, secondsPerSize, inPlace, outOfPlace, check);
    }

    public BenchSpec root(int r) {
        return new BenchSpec(collective, type, op, r, minBytes, maxBytes, factor, warmup, iters, minIters, secondsPerSize, inPlace, outOfPlace, check);
    }

    public BenchSpec sizes(long min, long max, double f) {
        return new BenchSpec(collective, type, op, root, min, max, f, warmup, iters, minIters, secondsPerSize, inPlace, outOfPlace, check);
    }

    public BenchSpec iterations(int warm, int timed, int atLeast, double maxSecondsPerSize) {
        return new BenchSpec(collective, type, op, root, minBytes, maxBytes, factor, warm, timed, atLeast, maxSecondsPerSize, inPlace, outOfPlace, check);
    }

    public BenchSpec placements(boolean inPlaceToo, boolean outOfPlaceToo) {
        return new BenchSpec(collective, type, op, root, minBytes, maxBytes, factor, warmup, iters, minIters, secondsPerSize, inPlaceToo, outOfPlaceToo, check);
    }

    public BenchSpec check(boolean on) {
        return new BenchSpec(collective, type, op, root, minBytes, maxBytes, factor, warmup, iters, minIters, secondsPerSize, inPlace, outOfPlace, on);
    }

    /** The sizes in bytes: min, min*f, ... <= max (each rounded down to whole elements, at least one element). */
    public List<Long> sizes() {
        List<Long> out = new ArrayList<>();
        double s = minBytes;
        long last = -1;
        while (s <= maxBytes * (1 + 1e-9)) {
            long b = Math.max(type.bytes(), ((long) Math.floor(s) / type.bytes()) * type.bytes());
            if (b != last) {
                out.add(b);
                last = b;
            }
            s *= factor;
        }
        return out;
    }

    /** Parses "8", "64K", "16M", "1G" (binary multiples) into bytes. */
    public static long parseBytes(String s) {
        String t = s.trim().toUpperCase(java.util.Locale.ROOT).replace("IB", "").replace("B", "");
        long mult = 1;
        if (t.endsWith("K")) {
            mult = 1L << 10;
        } else if (t.endsWith("M")) {
            mult = 1L << 20;
        } else if (t.endsWith("G")) {
            mult = 1L << 30;
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            return (long) (Double.parseDouble(t) * mult);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + s + "' (use e.g. 8, 64K, 16M, 1G)");
        }
    }

    /** "8 B", "64 KiB", "1 GiB". */
    public static String formatBytes(long b) {
        if (b >= 1L << 30 && b % (1L << 30) == 0) {
            return (b >> 30) + " GiB";
        }
        if (b >= 1L << 20 && b % (1L << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b >= 1L << 10 && b % (1L << 10) == 0) {
            return (b >> 10) + " KiB";
        }
        return b + " B";
    }
}
