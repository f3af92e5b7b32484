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
    float x_picked, z_picked;    // x[pick], z[pick], kept apart: indexing by pick would put the arrays in local memory
};

// The window's four inputs, loaded apart from their use so that a thread can have several windows' loads in flight
// (grid_stride_batched, block_stride_batched): one at a time left these kernels at half the memory's speed.
struct Quad {
    float x[4];
};

__device__ __forceinline__ Quad load_quad(const float* __restrict__ plane, long long w, long long oy, long long ox) {
    const float* p = plane + (2 * oy) * w + 2 * ox;
    return Quad{{p[0], p[1], p[w], p[w + 1]}};
}

__device__ __forceinline__ Window window_of(const Quad& in, float mu, float k, float b) {
    Window v;
    float best = 0.f;
    v.pick = 0;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        v.x[q] = in.x[q];
        v.z[q] = (v.x[q] - mu) * k + b;
        const float r = v.z[q] > 0.f ? v.z[q] : 0.f;     // relu_f32's value (elementwise.cu)
        if (q == 0 || r > best) {
            best = r;
            v.pick = q;
            v.x_picked = v.x[q];
            v.z_picked = v.z[q];
        }
    }
    return v;
}

// out[n, c, oy, ox] = max over the window of relu(bn(x)): one output per item.
extern "C" __global__ void bn_relu_pool_forward_f32(const float* __restrict__ x, const float* __restrict__ mean,
                                                    const float* __restrict__ invstd, const float* __restrict__ gamma,
                                                    const float* __restrict__ beta, float* __restrict__ out,
                                                    long long n, long long c, long long h, long long w) {
    const long long oh = h / 2, ow = w / 2;
    grid_stride_batched<LOADS_IN_FLIGHT>(
        n * c * oh * ow,
        [=](long long idx) {
            const PlanePosition at = plane_position(idx, oh, ow);
            return load_quad(x + at.plane * h * w, w, at.row, at.col);
        },
        [=](long long idx, const Quad& in) {
            // the channel found again rather than carried from the load: the batched loads keep only values alive
            const long long ch = channel_of(idx, oh * ow, c);
            const Window v = window_of(in, mean[ch], invstd[ch] * gamma[ch], beta[ch]);
            const float z = v.z_picked;
            out[idx] = z > 0.f ? z : 0.f;
        });
}

// The gradient reaching the batch norm's output at the window's picked position: dy through the pooling, times
// the ReLU's mask (as maxpool2d_backward then relu_backward compute it); every other position gets none.
__device__ __forceinline__ float picked_grad(const Window& v, float dy) {
    return dy * (v.z_picked > 0.f ? 1.f : 0.f);
}

// A window's inputs and the gradient reaching its pooled output.
struct QuadGrad {
    Quad quad;
    float dy;
};

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
        block_stride_batched<LOADS_IN_FLIGHT>(
            span,
            [=](long long t) {
                const long long to = div_nonneg(t, windows), win = t - to * windows, plane = (o0 + to) * c + ch;
                const long long oy = div_nonneg(win, ow);
                return QuadGrad{load_quad(x + plane * h * w, w, oy, win - oy * ow), dy[plane * windows + win]};
            },
            [&](long long, const QuadGrad& in) {
                const Window v = window_of(in.quad, mu, k, b);
                const float g = picked_grad(v, in.dy);
                sg += g;
                sgx += (double)(g * ((v.x_picked - mu) * inv));
            });
        double total_g = 0.0, total_gx = 0.0;
        if (channel_slice_done(sg, sgx, partial, arrivals, ch, s, slices, &total_g, &total_gx) && threadIdx.x == 0) {
            dbeta[ch] = (float)total_g;
            dgamma[ch] = (float)total_gx;
        }
    }
}

// dx = gamma * invstd / m * (m * g - dbeta - xhat * dgamma) at all four positions of each window (g zero but at the
// picked one), as batchnorm_input_grad: one window per item.
extern "C" __global__ void bn_relu_pool_input_grad_f32(const float* __restrict__ dy, const float* __restrict__ x,
                                                       const float* __restrict__ mean, const float* __restrict__ invstd,
                                                       const float* __restrict__ gamma, const float* __restrict__ beta,
                                                       const float* __restrict__ dgamma, const float* __restrict__ dbeta,
                                                       float* __restrict__ dx, long long n, long long c, long long h,
                                                       long long w) {
    const long long oh = h / 2, ow = w / 2;
    const float m = (float)(n * h * w);
    grid_stride_batched<LOADS_IN_FLIGHT>(
        n * c * oh * ow,
        [=](long long idx) {
            const PlanePosition at = plane_position(idx, oh, ow);
            return QuadGrad{load_quad(x + at.plane * h * w, w, at.row, at.col), dy[idx]};
        },
        [=](long long idx, const QuadGrad& in) {
            const PlanePosition at = plane_position(idx, oh, ow);     // found again, as in the forward kernel
            const long long ch = mod_nonneg(at.plane, c);
            const float mu = mean[ch], inv = invstd[ch];
            const Window v = window_of(in.quad, mu, inv * gamma[ch], beta[ch]);
            const float picked = picked_grad(v, in.dy);
            float* d = dx + at.plane * h * w + (2 * at.row) * w + 2 * at.col;
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const float g = q == v.pick ? picked : 0.f;
                const float xhat = (v.x[q] - mu) * inv;
                d[(q >> 1) * w + (q & 1)] = gamma[ch] * inv / m * (m * g - dbeta[ch] - xhat * dgamma[ch]);
            }
        });
}
