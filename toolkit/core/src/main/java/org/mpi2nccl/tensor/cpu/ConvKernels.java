package org.mpi2nccl.tensor.cpu;

import org.mpi2nccl.tensor.ConvGeometry;

/** im2col/col2im and max-pooling over NCHW arrays, parallel over samples (or sample-channel planes). */
final class ConvKernels {
    private ConvKernels() {}

    static void im2col(float[] x, float[] cols, ConvGeometry g) {
        int c = g.c(), h = g.h(), w = g.w(), kh = g.kh(), kw = g.kw(), st = g.stride(), pad = g.pad();
        int oh = g.outH(), ow = g.outW(), rows = g.colRows(), ncols = oh * ow;
        Parallel.range(g.n(), (long) rows * ncols, (from, to) -> {
            for (int s = from; s < to; s++) {
                int xBase = s * c * h * w, cBase = s * rows * ncols;
                for (int ch = 0; ch < c; ch++) {
                    for (int i = 0; i < kh; i++) {
                        for (int j = 0; j < kw; j++) {
                            int row = cBase + ((ch * kh + i) * kw + j) * ncols;
                            for (int oy = 0; oy < oh; oy++) {
                                int y = oy * st - pad + i;
                                int dst = row + oy * ow;
                                if (y < 0 || y >= h) {
                                    java.util.Arrays.fill(cols, dst, dst + ow, 0f);
                                    continue;
                                }
                                int src = xBase + (ch * h + y) * w;
                                for (int ox = 0; ox < ow; ox++) {
                                    int xx = ox * st - pad + j;
                                    cols[dst + ox] = xx >= 0 && xx < w ? x[src + xx] : 0f;
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    static void col2im(float[] cols, float[] dx, ConvGeometry g) {
        int c = g.c(), h = g.h(), w = g.w(), kh = g.kh(), kw = g.kw(), st = g.stride(), pad = g.pad();
        int oh = g.outH(), ow = g.outW(), rows = g.colRows(), ncols = oh * ow;
        Parallel.range(g.n(), (long) rows * ncols, (from, to) -> {
            for (int s = from; s < to; s++) {
                int xBase = s * c * h * w, cBase = s * rows * ncols;
                java.util.Arrays.fill(dx, xBase, xBase + c * h * w, 0f);
                for (int ch = 0; ch < c; ch++) {
                    for (int i = 0; i < kh; i++) {
                        for (int j = 0; j < kw; j++) {
                            int row = cBase + ((ch * kh + i) * kw + j) * ncols;
                            for (int oy = 0; oy < oh; oy++) {
                                int y = oy * st - pad + i;
                                if (y < 0 || y >= h) continue;
                                int dst = xBase + (ch * h + y) * w, src = row + oy * ow;
                                for (int ox = 0; ox < ow; ox++) {
                                    int xx = ox * st - pad + j;
                                    if (xx >= 0 && xx < w) dx[dst + xx] += cols[src + ox];
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    /** The common 2x2 window, stride 2, no padding, on even sizes: four loads and three compares per output. */
    private static boolean isPlain2x2(ConvGeometry g) {
        return g.kh() == 2 && g.kw() == 2 && g.stride() == 2 && g.pad() == 0 && g.h() % 2 == 0 && g.w() % 2 == 0;
    }

    static void maxPool(float[] x, float[] out, ConvGeometry g) {
        if (isPlain2x2(g)) {
            int h = g.h(), w = g.w(), oh = h / 2, ow = w / 2;
            Parallel.range(g.n() * g.c(), (long) h * w, (from, to) -> {
                for (int p = from; p < to; p++) {
                    int xb = p * h * w, ob = p * oh * ow;
                    for (int oy = 0; oy < oh; oy++) {
                        int r0 = xb + 2 * oy * w, r1 = r0 + w, o = ob + oy * ow;
                        for (int ox = 0; ox < ow; ox++) {
                            int c = 2 * ox;
                            out[o + ox] = Math.max(Math.max(x[r0 + c], x[r0 + c + 1]), Math.max(x[r1 + c], x[r1 + c + 1]));
                        }
                    }
                }
            });
            return;
        }
        int h = g.h(), w = g.w(), kh = g.kh(), kw = g.kw(), st = g.stride(), pad = g.pad(), oh = g.outH(), ow = g.outW();
        Parallel.range(g.n() * g.c(), (long) oh * ow * kh * kw, (from, to) -> {
            for (int p = from; p < to; p++) {
                int xb = p * h * w, ob = p * oh * ow;
                for (int oy = 0; oy < oh; oy++) {
                    for (int ox = 0; ox < ow; ox++) {
                        out[ob + oy * ow + ox] = x[xb + argmax(x, xb, h, w, oy * st - pad, ox * st - pad, kh, kw)];
                    }
                }
            }
        });
    }

    static void maxPoolBackward(float[] x, float[] dy, float[] dx, ConvGeometry g) {
        if (isPlain2x2(g)) {
            int h = g.h(), w = g.w(), oh = h / 2, ow = w / 2;
            Parallel.range(g.n() * g.c(), (long) h * w, (from, to) -> {
                for (int p = from; p < to; p++) {
                    int xb = p * h * w, ob = p * oh * ow;
                    java.util.Arrays.fill(dx, xb, xb + h * w, 0f);
                    for (int oy = 0; oy < oh; oy++) {
                        int r0 = xb + 2 * oy * w, r1 = r0 + w, o = ob + oy * ow;
                        for (int ox = 0; ox < ow; ox++) {
                            // branch-free argmax, first of equals wins: within each row pair, then between rows
                            int c = 2 * ox;
                            float p0 = x[r0 + c], p1 = x[r0 + c + 1], p2 = x[r1 + c], p3 = x[r1 + c + 1];
                            int top = (int) Elementwise.greater(p1, p0), bottom = (int) Elementwise.greater(p3, p2);
                            int lower = (int) Elementwise.greater(Math.max(p2, p3), Math.max(p0, p1));
                            int col = top + lower * (bottom - top);
                            dx[r0 + c + col + lower * w] += dy[o + ox];
                        }
                    }
                }
            });
            return;
        }
        int h = g.h(), w = g.w(), kh = g.kh(), kw = g.kw(), st = g.stride(), pad = g.pad(), oh = g.outH(), ow = g.outW();
        Parallel.range(g.n() * g.c(), (long) oh * ow * kh * kw, (from, to) -> {
            for (int p = from; p < to; p++) {
                int xb = p * h * w, ob = p * oh * ow;
                java.util.Arrays.fill(dx, xb, xb + h * w, 0f);
                for (int oy = 0; oy < oh; oy++) {
                    for (int ox = 0; ox < ow; ox++) {
                        dx[xb + argmax(x, xb, h, w, oy * st - pad, ox * st - pad, kh, kw)] += dy[ob + oy * ow + ox];
                    }
                }
            }
        });
    }

    /** Offset within the plane of the first maximum of the window at (y0, x0), skipping padding. */
    private static int argmax(float[] x, int base, int h, int w, int y0, int x0, int kh, int kw) {
        int best = -1;
        float m = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < kh; i++) {
            int y = y0 + i;
            if (y < 0 || y >= h) continue;
            for (int j = 0; j < kw; j++) {
                int xx = x0 + j;
                if (xx < 0 || xx >= w) continue;
                float v = x[base + y * w + xx];
                if (best < 0 || v > m) { m = v; best = y * w + xx; }
            }
        }
        return best;
    }
}
