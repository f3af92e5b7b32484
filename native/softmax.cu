// Row-wise softmax family over the last axis of a compact [rows, cols] float32 array. One warp per row:
// classification heads have few columns (10 for Fashion-MNIST), so a block per row would idle most threads.
// Every row is shifted by its maximum first, so large logits do not overflow expf.
#include "common.cuh"

__device__ __forceinline__ float row_max(const float* x, long long cols, int lane) {
    float m = -INFINITY;
    for (long long c = lane; c < cols; c += 32) m = java_max(m, x[c]);
    return warp_max(m);
}
__device__ __forceinline__ float row_sum_exp(const float* x, long long cols, int lane, float m) {
    float s = 0.f;
    for (long long c = lane; c < cols; c += 32) s += expf(x[c] - m);
    return warp_sum(s);
}

extern "C" __global__ void softmax_f32(const float* __restrict__ in, float* __restrict__ out,
                                       long long rows, long long cols) {
    WARP_PER_ROW_LOOP(row, rows) {
        const float* x = in + row * cols;
        const float m = row_max(x, cols, lane);
        const float inv = 1.f / row_sum_exp(x, cols, lane, m);
        for (long long c = lane; c < cols; c += 32) out[row * cols + c] = expf(x[c] - m) * inv;
    }
}

extern "C" __global__ void log_softmax_f32(const float* __restrict__ in, float* __restrict__ out,
                                           long long rows, long long cols) {
    WARP_PER_ROW_LOOP(row, rows) {
        const float* x = in + row * cols;
        const float m = row_max(x, cols, lane);
        const float lse = m + logf(row_sum_exp(x, cols, lane, m));
        for (long long c = lane; c < cols; c += 32) out[row * cols + c] = x[c] - lse;
    }
}

// out[row] = log(sum(exp(x[row, :]))), computed stably.
extern "C" __global__ void logsumexp_rows_f32(const float* __restrict__ in, float* __restrict__ out,
                                              long long rows, long long cols) {
    WARP_PER_ROW_LOOP(row, rows) {
        const float* x = in + row * cols;
        const float m = row_max(x, cols, lane);
        const float lse = (m == -INFINITY) ? -INFINITY : m + logf(row_sum_exp(x, cols, lane, m));
        if (lane == 0) out[row] = lse;
    }
}

// y = softmax(x); gx = y * (gy - sum(gy * y))
extern "C" __global__ void softmax_backward_f32(const float* __restrict__ y, const float* __restrict__ gy,
                                                float* __restrict__ gx, long long rows, long long cols) {
    WARP_PER_ROW_LOOP(row, rows) {
        const long long base = row * cols;
        float dot = 0.f;
        for (long long c = lane; c < cols; c += 32) dot += gy[base + c] * y[base + c];
        dot = warp_sum(dot);
        for (long long c = lane; c < cols; c += 32) gx[base + c] = y[base + c] * (gy[base + c] - dot);
    }
}

// y = log_softmax(x); gx = gy - exp(y) * sum(gy)
extern "C" __global__ void log_softmax_backward_f32(const float* __restrict__ y, const float* __restrict__ gy,
                                                    float* __restrict__ gx, long long rows, long long cols) {
    WARP_PER_ROW_LOOP(row, rows) {
        const long long base = row * cols;
        float s = 0.f;
        for (long long c = lane; c < cols; c += 32) s += gy[base + c];
        s = warp_sum(s);
        for (long long c = lane; c < cols; c += 32) gx[base + c] = gy[base + c] - expf(y[base + c]) * s;
    }
}
