package org.mpi2nccl.tensor.cpu;

/**
 * Batch normalization and softmax cross-entropy for training, each way in one pass per channel or row (the
 * Backend contract's batchNormForward/Backward and softmaxCrossEntropy/Backward). Statistics and the loss sum
 * accumulate in double.
 */
final class TrainingLayerKernels {
    private TrainingLayerKernels() {}

    static void batchNormForward(float[] x, float[] gamma, float[] beta, float[] y, float[] saveMean, float[] saveInvStd,
                                 float[] runningMean, float[] runningVar, int outer, int channels, int inner,
                                 float eps, float momentum) {
        long m = (long) outer * inner;
        Parallel.range(channels, m * 3, (from, to) -> {
            for (int c = from; c < to; c++) {
                channelStatistics(x, c, saveMean, saveInvStd, runningMean, runningVar, outer, channels, inner, eps, momentum);
                float mu = saveMean[c], k = saveInvStd[c] * gamma[c], shift = beta[c];
                for (int o = 0; o < outer; o++) {
                    int base = (o * channels + c) * inner;
                    for (int i = 0; i < inner; i++) y[base + i] = (x[base + i] - mu) * k + shift;
                }
            }
        });
    }

    /**
     * Channel {@code c}'s mean and 1 / sqrt(var + eps) (biased variance, sums in double) into {@code saveMean} and
     * {@code saveInvStd}, and its running averages updated when {@code runningMean} is not null.
     */
    static void channelStatistics(float[] x, int c, float[] saveMean, float[] saveInvStd, float[] runningMean,
                                  float[] runningVar, int outer, int channels, int inner, float eps, float momentum) {
        long m = (long) outer * inner;
        double s = 0, q = 0;
        for (int o = 0; o < outer; o++) {
            int base = (o * channels + c) * inner;
            for (int i = 0; i < inner; i++) {
                double v = x[base + i];
                s += v;
                q += v * v;
            }
        }
        double mean = s / m, var = Math.max(0, q / m - mean * mean);
        float mu = (float) mean;
        saveMean[c] = mu;
        saveInvStd[c] = (float) (1 / Math.sqrt(var + eps));
        if (runningMean != null) {
            runningMean[c] = (1 - momentum) * runningMean[c] + momentum * mu;
            runningVar[c] = (1 - momentum) * runningVar[c] + momentum * (float) (var * m / (m - 1));
        }
    }

    static void batchNormBackward(float[] dy, float[] x, float[] mean, float[] invStd, float[] gamma, float[] dx,
                                  float[] dgamma, float[] dbeta, int outer, int channels, int inner) {
        long m = (long) outer * inner;
        Parallel.range(channels, m * 4, (from, to) -> {
            for (int c = from; c < to; c++) {
                float mu = mean[c], inv = invStd[c];
                double sg = 0, sgx = 0;
                for (int o = 0; o < outer; o++) {
                    int base = (o * channels + c) * inner;
                    for (int i = 0; i < inner; i++) {
                        float g = dy[base + i];
                        sg += g;
                        sgx += g * ((x[base + i] - mu) * inv);
                    }
                }
                dbeta[c] = (float) sg;
                dgamma[c] = (float) sgx;
                if (dx == null) continue;
                float fm = m, k = gamma[c] * inv / fm, db = dbeta[c], dg = dgamma[c];
                for (int o = 0; o < outer; o++) {
                    int base = (o * channels + c) * inner;
                    for (int i = 0; i < inner; i++) {
                        float xhat = (x[base + i] - mu) * inv;
                        dx[base + i] = k * (fm * dy[base + i] - db - xhat * dg);
                    }
                }
            }
        });
    }

    /** Every label is a class index in [0, classes), or an IllegalArgumentException naming the first that is not. */
    static void checkLabels(String op, float[] labels, int rows, int classes) {
        for (int r = 0; r < rows; r++) {
            float v = labels[r];
            int c = (int) v;
            if (c != v || c < 0 || c >= classes)
                throw new IllegalArgumentException(op + ": label " + v + " at position " + r + " is not a class in [0, " + classes + ")");
        }
    }

    static float crossEntropyMean(float[] logits, float[] labels, int rows, int classes) {
        checkLabels("softmaxCrossEntropy", labels, rows, classes);
        double sum = 0;
        for (int r = 0; r < rows; r++) sum += logSumExp(logits, r * classes, classes) - logits[r * classes + (int) labels[r]];
        return (float) (sum / rows);
    }

    static void crossEntropyBackward(float[] logits, float[] labels, float upstream, float[] grad, int rows, int classes) {
        checkLabels("softmaxCrossEntropyBackward", labels, rows, classes);
        float scale = upstream / rows;
        Parallel.range(rows, classes * 4L, (from, to) -> {
            for (int r = from; r < to; r++) {
                int base = r * classes, label = (int) labels[r];
                float lse = logSumExp(logits, base, classes);
                for (int c = 0; c < classes; c++) {
                    float p = (float) Math.exp(logits[base + c] - lse);
                    grad[base + c] = scale * (p - (c == label ? 1f : 0f));
                }
            }
        });
    }

    /** Rows whose first maximum (ReduceOp.ARGMAX's rule: a later value wins only when greater) is at their label. */
    static int hits(float[] logits, float[] labels, int rows, int classes) {
        int hits = 0;
        for (int r = 0; r < rows; r++) {
            int base = r * classes, arg = 0;
            float best = logits[base];
            for (int c = 1; c < classes; c++) {
                if (logits[base + c] > best) {
                    best = logits[base + c];
                    arg = c;
                }
            }
            if (arg == labels[r]) hits++;
        }
        return hits;
    }

    /** log(sum(exp(row))), shifted by the row's maximum (a NaN in the row gives NaN). */
    private static float logSumExp(float[] a, int base, int n) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) max = Math.max(max, a[base + i]);
        if (Float.isInfinite(max)) return max;
        double s = 0;
        for (int i = 0; i < n; i++) s += Math.exp(a[base + i] - max);
        return (float) (max + Math.log(s));
    }
}
