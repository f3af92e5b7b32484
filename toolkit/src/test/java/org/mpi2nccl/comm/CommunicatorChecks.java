package org.mpi2nccl.comm;

import java.util.Random;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The same checks for any communicator, run inside a rank (by the thread tests and by the MPJ rank
 * programs): every collective and reduction, odd sizes and sizes not divisible by the rank count, in place
 * and out of place, send/recv, barrier and split. Returns a list of failures (empty = all good).
 */
public final class CommunicatorChecks {
    private CommunicatorChecks() {
    }

    public static List<String> runAll(Communicator c) {
        List<String> bad = new ArrayList<>();
        int p = c.size(), r = c.rank();
        for (int n : new int[] {1, 7, 1000, 4099}) {
            for (Reduction op : Reduction.values()) {
                int[] x = input(r, n);
                int[] y = new int[n];
                c.allReduce(HostBuffer.of(x), HostBuffer.of(y), op);
                expect(bad, "allReduce " + op + " n=" + n, reference(op, p, n), y);
                c.allReduce(HostBuffer.of(x), op);
                expect(bad, "allReduce in place " + op + " n=" + n, reference(op, p, n), x);
            }
            // floats: within rounding of the sequential sum, and identical on all ranks (checked by the caller)
            float[] f = new float[n];
            for (int i = 0; i < n; i++) {
                f[i] = (r + 1) * 0.1f + i;
            }
            c.allReduce(HostBuffer.of(f), Reduction.SUM);
            for (int i = 0; i < n; i++) {
                double ref = 0;
                for (int q = 0; q < p; q++) {
                    ref += (q + 1) * 0.1f + i;
                }
                if (Math.abs(f[i] - ref) > 1e-5 * Math.max(1, Math.abs(ref))) {
                    bad.add("allReduce float n=" + n + " element " + i + ": " + f[i] + " vs " + ref);
                    break;
                }
            }
            for (int root = 0; root < p; root++) {
                long[] b = new long[n];
                if (r == root) {
                    for (int i = 0; i < n; i++) {
                        b[i] = 7L * i + root;
                    }
                }
                c.broadcast(HostBuffer.of(b), root);
                long[] want = new long[n];
                for (int i = 0; i < n; i++) {
                    want[i] = 7L * i + root;
                }
                expect(bad, "broadcast root " + root + " n=" + n, want, b);
                int[] mine = input(r, n);
                int[] red = new int[n];
                c.reduce(HostBuffer.of(mine), r == root ? HostBuffer.of(red) : null, Reduction.MAX, root);
                if (r == root) {
                    expect(bad, "reduce max root " + root + " n=" + n, reference(Reduction.MAX, p, n), red);
                }
            }
            double[] part = new double[n];
            for (int i = 0; i < n; i++) {
                part[i] = r * 1000.0 + i;
            }
            double[] all = new double[p * n];
            c.allGather(HostBuffer.of(part), HostBuffer.of(all));
            double[] wantAll = new double[p * n];
            for (int q = 0; q < p; q++) {
                for (int i = 0; i < n; i++) {
                    wantAll[q * n + i] = q * 1000.0 + i;
                }
            }
            expect(bad, "allGather n=" + n, wantAll, all);
            double[] inPlace = new double[p * n];
            System.arraycopy(part, 0, inPlace, r * n, n);
            HostBuffer ip = HostBuffer.of(inPlace);
            c.allGather(ip.slice((long) r * n, n), ip);
            expect(bad, "allGather in place n=" + n, wantAll, inPlace);

            int[] contrib = new int[p * n];
            for (int i = 0; i < p * n; i++) {
                contrib[i] = r + 3 * i;
            }
            int[] block = new int[n];
            c.reduceScatter(HostBuffer.of(contrib), HostBuffer.of(block), Reduction.SUM);
            int[] wantBlock = new int[n];
            for (int i = 0; i < n; i++) {
                wantBlock[i] = p * 3 * (r * n + i) + p * (p - 1) / 2;
            }
            expect(bad, "reduceScatter n=" + n, wantBlock, block);
            HostBuffer rs = HostBuffer.of(contrib);
            c.reduceScatter(rs, rs.slice((long) r * n, n), Reduction.SUM);
            expect(bad, "reduceScatter in place n=" + n, wantBlock, Arrays.copyOfRange(contrib, r * n, r * n + n));
        }
        // buffers that start inside larger arrays (offsets), with the elements around them left untouched
        for (int n : new int[] {1, 1001}) {
            int[] big = new int[n + 5];
            System.arraycopy(input(r, n), 0, big, 3, n);
            int[] outBig = new int[n + 7];
            c.allReduce(HostBuffer.of(big).slice(3, n), HostBuffer.of(outBig).slice(5, n), Reduction.SUM);
            expect(bad, "allReduce at offsets n=" + n, reference(Reduction.SUM, p, n), Arrays.copyOfRange(outBig, 5, 5 + n));
            expect(bad, "allReduce at offsets leaves the rest n=" + n, new int[5], Arrays.copyOfRange(outBig, 0, 5));
            int[] redBig = new int[n + 2];
            c.reduce(HostBuffer.of(big).slice(3, n), r == 0 ? HostBuffer.of(redBig).slice(2, n) : null, Reduction.MAX, 0);
            if (r == 0) {
                expect(bad, "reduce at offsets n=" + n, reference(Reduction.MAX, p, n), Arrays.copyOfRange(redBig, 2, 2 + n));
            }
            int[] gathered = new int[p * n + 4];
            c.allGather(HostBuffer.of(big).slice(3, n), HostBuffer.of(gathered).slice(4, (long) p * n));
            for (int q = 0; q < p; q++) {
                expect(bad, "allGather at offsets n=" + n + " block " + q, input(q, n),
                        Arrays.copyOfRange(gathered, 4 + q * n, 4 + (q + 1) * n));
            }
            int[] contrib = new int[p * n + 3];
            for (int i = 0; i < p * n; i++) {
                contrib[3 + i] = r + 3 * i;
            }
            int[] block = new int[n + 6];
            c.reduceScatter(HostBuffer.of(contrib).slice(3, (long) p * n), HostBuffer.of(block).slice(6, n), Reduction.SUM);
            int[] want = new int[n];
            for (int i = 0; i < n; i++) {
                want[i] = p * 3 * (r * n + i) + p * (p - 1) / 2;
            }
            expect(bad, "reduceScatter at offsets n=" + n, want, Arrays.copyOfRange(block, 6, 6 + n));
        }
        if (p > 1) {
            int right = (r + 1) % p, left = (r + p - 1) % p;
            float[] out = {r, 2f * r};
            float[] in = new float[2];
            if (r % 2 == 0) {
                c.send(HostBuffer.of(out), right);
                c.recv(HostBuffer.of(in), left);
            } else {
                c.recv(HostBuffer.of(in), left);
                c.send(HostBuffer.of(out), right);
            }
            expect(bad, "send/recv", new float[] {left, 2f * left}, in);
        }
        c.barrier();
        Communicator sub = c.split(r % 2, -r);
        if (sub == null) {
            bad.add("split returned null for a real color");
        } else {
            int[] v = {r};
            sub.allReduce(HostBuffer.of(v), Reduction.SUM);
            int want = 0;
            for (int q = r % 2; q < p; q += 2) {
                want += q;
            }
            if (v[0] != want) {
                bad.add("split allReduce: " + v[0] + " vs " + want);
            }
            int expectedSize = (p + 1 - r % 2) / 2;
            if (sub.size() != expectedSize) {
                bad.add("split size " + sub.size() + " vs " + expectedSize);
            }
            sub.close();
        }
        Communicator none = c.split(r == 0 ? 3 : Communicator.NO_COLOR, 0);
        if ((none == null) != (r != 0)) {
            bad.add("split with NO_COLOR: got " + none);
        }
        return bad;
    }

    /** Rank r's input: deterministic pseudo-random ints (exact under any summation order). */
    public static int[] input(int rank, int n) {
        Random rnd = new Random(1000L * rank + n);
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(2001) - 1000;
        }
        return a;
    }

    public static int[] reference(Reduction op, int size, int n) {
        int[] acc = input(0, n).clone();
        for (int r = 1; r < size; r++) {
            int[] x = input(r, n);
            for (int i = 0; i < n; i++) {
                acc[i] = switch (op) {
                    case SUM, AVG -> acc[i] + x[i];
                    case PROD -> acc[i] * x[i];
                    case MAX -> Math.max(acc[i], x[i]);
                    case MIN -> Math.min(acc[i], x[i]);
                };
            }
        }
        if (op == Reduction.AVG) {
            for (int i = 0; i < n; i++) {
                acc[i] /= size;
            }
        }
        return acc;
    }

    private static void expect(List<String> bad, String what, Object want, Object got) {
        if (!java.util.Objects.deepEquals(want, got)) {
            bad.add(what + ": " + head(want) + " vs " + head(got));
        }
    }

    private static String head(Object a) {
        if (a instanceof int[] x) {
            return Arrays.toString(Arrays.copyOf(x, Math.min(x.length, 6)));
        } else if (a instanceof long[] x) {
            return Arrays.toString(Arrays.copyOf(x, Math.min(x.length, 6)));
        } else if (a instanceof float[] x) {
            return Arrays.toString(Arrays.copyOf(x, Math.min(x.length, 6)));
        } else if (a instanceof double[] x) {
            return Arrays.toString(Arrays.copyOf(x, Math.min(x.length, 6)));
        }
        return String.valueOf(a);
    }
}
