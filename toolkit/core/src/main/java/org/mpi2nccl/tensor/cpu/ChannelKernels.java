package org.mpi2nccl.tensor.cpu;

/** Per-channel sums and affine maps over (outer, channels, inner) arrays: batch-norm in two passes each way. */
final class ChannelKernels {
    private ChannelKernels() {}

    static void sums(float[] a, float[] b, float[] sumA, float[] sumAB, int outer, int channels, int inner) {
        // parallel over channels: each channel's rows are visited by one thread, accumulated in double
        Parallel.range(channels, (long) outer * inner * 2, (from, to) -> {
            for (int c = from; c < to; c++) {
                double sa = 0, sab = 0;
                for (int o = 0; o < outer; o++) {
                    int base = (o * channels + c) * inner;
                    float fa0 = 0, fa1 = 0, fb0 = 0, fb1 = 0;
                    int i = 0;
                    for (; i + 1 < inner; i += 2) {
                        float x0 = a[base + i], x1 = a[base + i + 1];
                        fa0 += x0;
                        fa1 += x1;
                        fb0 += x0 * b[base + i];
                        fb1 += x1 * b[base + i + 1];
                    }
                    for (; i < inner; i++) {
                        fa0 += a[base + i];
                        fb0 += a[base + i] * b[base + i];
                    }
                    sa += (double) fa0 + fa1;
                    sab += (double) fb0 + fb1;
                }
                sumA[c] = (float) sa;
                sumAB[c] = (float) sab;
            }
        });
    }

    static void affine(float[] a, float[] sa, float[] b, float[] sb, float[] shift, float[] out, int outer, int channels, int inner) {
        Parallel.range(outer * channels, inner * 2L, (from, to) -> {
            for (int r = from; r < to; r++) {
                int c = r % channels, base = r * inner;
                float ka = sa[c], t = shift[c];
                if (b == null) {
                    for (int i = 0; i < inner; i++) out[base + i] = a[base + i] * ka + t;
                } else {
                    float kb = sb[c];
                    for (int i = 0; i < inner; i++) out[base + i] = a[base + i] * ka + b[base + i] * kb + t;
                }
            }
        });
    }
}
