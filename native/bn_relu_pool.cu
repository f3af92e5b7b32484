// Batch norm (training), ReLU and 2x2 max pooling with stride 2 as one layer over NCHW float32: the block that
// follows each convolution of the lessons' CNN. Composed, the three read and write the convolution's output (the
// step's largest arrays) about eleven times; here forward reads it once and writes only the pooled quarter, and
// backward reads it twice and writes the input gradient once. Nothing of the input's size is kept between the two:
// backward recomputes each window's normalized values and the pooling's choice from the input x.
// The statistics are batchnorm_forward_stats' (batchnorm.cu): they need the whole channel before anything else.
// H and W are even (every pixel is in exactly one window).
#include "channel_slices.cuh"

// One pooling window: its four inputs (top left, top right, bottom left, bottom right), their batch-norm values
// z = (x - mean) * (invstd * gamma) + beta, as batchnorm_forward_apply computes them, and the position the pooling
// picks: the first largest ReLU output, as maxpool2d's window_argmax picks over the ReLU's output.
struct Window {
    float x[4], z[4];
    int pick;
};

__device__ __forceinline__ Window load_window(const float* __restrict__ plane, long long w, long long oy, long long ox,
                                              float mu, float k, float b) {
    Window v;
    const float* p = plane + (2 * oy) * w + 2 * ox;
    v.x[0] = p[0];
    v.x[1] = p[1];
    v.x[2] = p[w];
    v.x[3] = p[w + 1];
    float best = 0.f;
    v.pick = 0;
    for (int q = 0; q < 4; ++q) {
        v.z[q] = (v.x[q] - mu) * k + b;
        const float r = v.z[q] > 0.f ? v.z[q] : 0.f;     // relu_f32's value (elementwise.cu)
        if (q == 0 || r > best) {
            best = r;
            v.pick = q;
        }
    }
    return v;
}

// out[n, c, oy, ox] = max over the window of relu(bn(x)): one thread per output.
extern "C" __global__ void bn_relu_pool_forward_f32(const float* __restrict__ x, const float* __restrict__ mean,
                                                    const float* __restrict__ invstd, const float* __restrict__ gamma,
                                                    const float* __restrict__ beta, float* __restrict__ out,
                                                    long long n, long long c, long long h, long long w) {
    const long long oh = h / 2, ow = w / 2;
    GRID_STRIDE_LOOP(idx, n * c * oh * ow) {
        const long long line = div_nonneg(idx, ow), ox = idx - line * ow, plane = div_nonneg(line, oh),
                        oy = line - plane * oh, ch = mod_nonneg(plane, c);
        const Window v = load_window(x + plane * h * w, w, oy, ox, mean[ch], invstd[ch] * gamma[ch], beta[ch]);
        const float z = v.z[v.pick];
        out[idx] = z > 0.f ? z : 0.f;
    }
}

// The gradient reaching the batch norm's output at the window's picked position: dy through the pooling, times
// the ReLU's mask (as maxpool2d_backward then relu_backward compute it); every other position gets none.
__device__ __forceinline__ float picked_grad(const Window& v, float dy) {
    return dy * (v.z[v.pick] > 0.f ? 1.f : 0.f);
}

// dbeta = sum of g, dgamma = sum of g * xhat per channel, g the gradient at the batch norm's output: only the
// picked position of each window adds anything. Sums in double, the channel split over slices of the batch.
extern "C" __global__ void bn_relu_pool_grad_sums_f32(const float* __restrict__ dy, const float* __restrict__ x,
                                                      const float* __restrict__ mean, const float* __restrict__ invstd,
                                                      const float* __restrict__ gamma, const float* __restrict__ beta,
                                                      float* __restrict__ dgamma, float* __restrict__ dbeta,
                                                      long long n, long long c, long long h, long long w,
                                                      double* partial, unsigned int* arrivals, long long slices) {
    const long long oh = h / 2, ow = w / 2, windows = oh * ow;
    for (long long item = blockIdx.x; item < c * slices; item += gridDim.x) {
        const long long ch = item / slices, s = item % slices;
        const long long o0 = s * n / slices, span = ((s + 1) * n / slices - o0) * windows;
        const float mu = mean[ch], inv = invstd[ch], k = inv * gamma[ch], b = beta[ch];
        double sg = 0.0, sgx = 0.0;
        for (long long t = threadIdx.x; t < span; t += blockDim.x) {
            const long long to = div_nonneg(t, windows), win = t - to * windows, plane = (o0 + to) * c + ch;
            const long long oy = div_nonneg(win, ow);
            const Window v = load_window(x + plane * h * w, w, oy, win - oy * ow, mu, k, b);
            const float g = picked_grad(v, dy[plane * windows + win]);
            sg += g;
            sgx += (double)(g * ((v.x[v.pick] - mu) * inv));
        }
        double total_g = 0.0, total_gx = 0.0;
        if (channel_slice_done(sg, sgx, partial, arrivals, ch, s, slices, &total_g, &total_gx) && threadIdx.x == 0) {
            dbeta[ch] = (float)total_g;
            dgamma[ch] = (float)total_gx;
        }
    }
}

// dx = gamma * invstd / m * (m * g - dbeta - xhat * dgamma) at all four positions of each window (g zero but at the
// picked one), as batchnorm_input_grad: one thread per window.
extern "C" __global__ void bn_relu_pool_input_grad_f32(const float* __restrict__ dy, const float* __restrict__ x,
                                                       const float* __restrict__ mean, const float* __restrict__ invstd,
                                                       const float* __restrict__ gamma, const float* __restrict__ beta,
                                                       const float* __restrict__ dgamma, const float* __restrict__ dbeta,
                                                       float* __restrict__ dx, long long n, long long c, long long h,
                                                       long long w) {
    const long long oh = h / 2, ow = w / 2;
    const float m = (float)(n * h * w);
    GRID_STRIDE_LOOP(idx, n * c * oh * ow) {
        const long long line = div_nonneg(idx, ow), ox = idx - line * ow, plane = div_nonneg(line, oh),
                        oy = line - plane * oh, ch = mod_nonneg(plane, c);
        const float mu = mean[ch], inv = invstd[ch];
        const Window v = load_window(x + plane * h * w, w, oy, ox, mu, inv * gamma[ch], beta[ch]);
        const float picked = picked_grad(v, dy[idx]);
        float* d = dx + plane * h * w + (2 * oy) * w + 2 * ox;
        for (int q = 0; q < 4; ++q) {
            const float g = q == v.pick ? picked : 0.f;
            const float xhat = (v.x[q] - mu) * inv;
            d[(q >> 1) * w + (q & 1)] = gamma[ch] * inv / m * (m * g - dbeta[ch] - xhat * dgamma[ch]);
        }
    }
}
