package org.mpi2nccl.tensor.cpu;

/**
 * Batch norm (training), ReLU and 2x2 max pooling with stride 2 as one block over NCHW (the Backend contract's
 * batchNormReluPoolForward/Backward), one channel at a time, window by window, as native/bn_relu_pool.cu does it
 * on a GPU: forward writes only the pooled map; backward recomputes each window's batch-norm values and the pooling's
 * choice from x. Height and width are even (checked by the caller).
 */
final class BatchNormReluPoolKernels {
    private BatchNormReluPoolKernels() {}

    static void forward(float[] x, float[] gamma, float[] beta, float[] out, float[] saveMean, float[] saveInvStd,
                        float[] runningMean, float[] runningVar, int n, int c, int h, int w, float eps, float momentum) {
        int oh = h / 2, ow = w / 2;
        Parallel.range(c, (long) n * h * w * 2, (from, to) -> {
            float[] z = new float[4];
            for (int ch = from; ch < to; ch++) {
                TrainingLayerKernels.channelStatistics(x, ch, saveMean, saveInvStd, runningMean, runningVar, n, c, h * w, eps, momentum);
                float mu = saveMean[ch], k = saveInvStd[ch] * gamma[ch], b = beta[ch];
                for (int o = 0; o < n; o++) {
                    int plane = (o * c + ch) * h * w, outPlane = (o * c + ch) * oh * ow;
                    for (int oy = 0; oy < oh; oy++) {
                        for (int ox = 0; ox < ow; ox++) {
                            float v = z[window(x, plane, w, oy, ox, mu, k, b, z)];
                            out[outPlane + oy * ow + ox] = v > 0f ? v : 0f;
                        }
                    }
                }
            }
        });
    }

    static void backward(float[] dy, float[] x, float[] mean, float[] invStd, float[] gamma, float[] beta, float[] dx,
                         float[] dgamma, float[] dbeta, int n, int c, int h, int w) {
        int oh = h / 2, ow = w / 2;
        float fm = (float) ((long) n * h * w);
        Parallel.range(c, (long) n * h * w * 4, (from, to) -> {
            float[] z = new float[4];
            for (int ch = from; ch < to; ch++) {
                float mu = mean[ch], inv = invStd[ch], k = inv * gamma[ch], b = beta[ch];
                double sg = 0, sgx = 0;
                // the sums: only the window's picked position has a gradient (dy through the pooling, if the ReLU let it)
                for (int o = 0; o < n; o++) {
                    int plane = (o * c + ch) * h * w, outPlane = (o * c + ch) * oh * ow;
                    for (int oy = 0; oy < oh; oy++) {
                        for (int ox = 0; ox < ow; ox++) {
                            int p = window(x, plane, w, oy, ox, mu, k, b, z);
                            float g = dy[outPlane + oy * ow + ox] * (z[p] > 0f ? 1f : 0f);
                            sg += g;
                            sgx += g * ((x[at(plane, w, oy, ox, p)] - mu) * inv);
                        }
                    }
                }
                dbeta[ch] = (float) sg;
                dgamma[ch] = (float) sgx;
                float scale = gamma[ch] * inv / fm, db = dbeta[ch], dg = dgamma[ch];
                for (int o = 0; o < n; o++) {
                    int plane = (o * c + ch) * h * w, outPlane = (o * c + ch) * oh * ow;
                    for (int oy = 0; oy < oh; oy++) {
                        for (int ox = 0; ox < ow; ox++) {
                            int p = window(x, plane, w, oy, ox, mu, k, b, z);
                            float picked = dy[outPlane + oy * ow + ox] * (z[p] > 0f ? 1f : 0f);
                            for (int q = 0; q < 4; q++) {
                                int i = at(plane, w, oy, ox, q);
                                float g = q == p ? picked : 0f, xhat = (x[i] - mu) * inv;
                                dx[i] = scale * (fm * g - db - xhat * dg);
                            }
                        }
                    }
                }
            }
        });
    }

    /** The index in x of window (oy, ox)'s position q: 0 top left, 1 top right, 2 bottom left, 3 bottom right. */
    private static int at(int plane, int w, int oy, int ox, int q) {
        return plane + (2 * oy + (q >> 1)) * w + 2 * ox + (q & 1);
    }

    /**
     * Fills z with the window's batch-norm values {@code (x - mu) * k + b} and returns the position the pooling picks:
     * the first largest ReLU output (maxPool2d's rule over the ReLU's output).
     */
    private static int window(float[] x, int plane, int w, int oy, int ox, float mu, float k, float b, float[] z) {
        int pick = 0;
        float best = 0f;
        for (int q = 0; q < 4; q++) {
            z[q] = (x[at(plane, w, oy, ox, q)] - mu) * k + b;
            float r = z[q] > 0f ? z[q] : 0f;
            if (q == 0 || r > best) {
                best = r;
                pick = q;
            }
        }
        return pick;
    }
}
