// Batch normalization over NCHW float32 (per channel c, statistics over N*H*W = M values).
#include "common.cuh"

// y = gamma * (x - mean) / sqrt(var + eps) + beta, from given statistics (evaluation mode's running ones). No
// layer launches it now (the training layers below normalize with 1/sqrt(var + eps) kept from the statistics):
// LaunchCostBench times it as its 10-argument launch.
extern "C" __global__ void batchnorm_apply_f32(const float* __restrict__ x, const float* __restrict__ mean,
                                               const float* __restrict__ var, const float* __restrict__ gamma,
                                               const float* __restrict__ beta, float* __restrict__ y,
                                               long long n, long long c, long long hw, float eps) {
    GRID_STRIDE_LOOP(idx, n * c * hw) {
        const long long ch = channel_of(idx, hw, c);
        y[idx] = gamma[ch] * (x[idx] - mean[ch]) * rsqrtf(var[ch] + eps) + beta[ch];
    }
}

// ---- Backend.batchNormForward / batchNormBackward: the training step's batch norm in four launches -------------
// (statistics + running averages, normalize; per-channel gradient sums, input gradient). The statistics kernel
// keeps mean and 1/sqrt(var + eps) for backward, so backward needs neither the normalized activations nor eps.

#include "channel_slices.cuh"    // channel_slice_done: the per-channel sums split over blocks

// Mean and biased variance in double (one pass: E[x^2] - E[x]^2 cancels badly in float), save_mean/save_invstd
// for backward, and the running averages updated in place (unbiased variance, PyTorch's convention);
// running_mean null: no update. Threads walk (o, i) with i fastest: contiguous reads, several in flight per thread.
extern "C" __global__ void batchnorm_forward_stats_f32(const float* __restrict__ x, float* __restrict__ save_mean,
                                                       float* __restrict__ save_invstd, float* running_mean,
                                                       float* running_var, long long n, long long c, long long hw,
                                                       float eps, float momentum, double* partial,
                                                       unsigned int* arrivals, long long slices) {
    const long long m = n * hw;
    for (long long item = blockIdx.x; item < c * slices; item += gridDim.x) {
        const long long ch = item / slices, s = item % slices;
        const long long o0 = s * n / slices, span = ((s + 1) * n / slices - o0) * hw;
        double sum = 0.0, sq = 0.0;
        block_stride_batched<LOADS_IN_FLIGHT>(
            span,
            [=](long long k) {
                const long long ko = div_nonneg(k, hw);
                return x[((o0 + ko) * c + ch) * hw + (k - ko * hw)];
            },
            [&](long long, float xv) {
                const double v = xv;
                sum += v;
                sq += v * v;
            });
        double total = 0.0, total_sq = 0.0;
        if (channel_slice_done(sum, sq, partial, arrivals, ch, s, slices, &total, &total_sq) && threadIdx.x == 0) {
            const double mean = total / (double)m;
            double var = total_sq / (double)m - mean * mean;
            if (var < 0.0) var = 0.0;
            save_mean[ch] = (float)mean;
            save_invstd[ch] = (float)(1.0 / sqrt(var + (double)eps));
            if (running_mean != nullptr) {
                const float unbiased = (float)(var * (double)m / (double)(m - 1));
                running_mean[ch] = (1.f - momentum) * running_mean[ch] + momentum * (float)mean;
                running_var[ch] = (1.f - momentum) * running_var[ch] + momentum * unbiased;
            }
        }
    }
}

// y = (x - mean) * invstd * gamma + beta
extern "C" __global__ void batchnorm_forward_apply_f32(const float* __restrict__ x, const float* __restrict__ mean,
                                                       const float* __restrict__ invstd, const float* __restrict__ gamma,
                                                       const float* __restrict__ beta, float* __restrict__ y,
                                                       long long n, long long c, long long hw) {
    GRID_STRIDE_LOOP(idx, n * c * hw) {
        const long long ch = channel_of(idx, hw, c);
        const float k = invstd[ch] * gamma[ch];
        y[idx] = (x[idx] - mean[ch]) * k + beta[ch];
    }
}

// dbeta = sum(gy), dgamma = sum(gy * xhat) per channel, xhat = (x - mean) * invstd (sums in double; sliced as above).
extern "C" __global__ void batchnorm_grad_sums_f32(const float* __restrict__ gy, const float* __restrict__ x,
                                                   const float* __restrict__ mean, const float* __restrict__ invstd,
                                                   float* __restrict__ dgamma, float* __restrict__ dbeta,
                                                   long long n, long long c, long long hw, double* partial,
                                                   unsigned int* arrivals, long long slices) {
    for (long long item = blockIdx.x; item < c * slices; item += gridDim.x) {
        const long long ch = item / slices, s = item % slices;
        const long long o0 = s * n / slices, span = ((s + 1) * n / slices - o0) * hw;
        const float mu = mean[ch], inv = invstd[ch];
        double sg = 0.0, sgx = 0.0;
        block_stride_batched<LOADS_IN_FLIGHT>(
            span,
            [=](long long k) {
                const long long ko = div_nonneg(k, hw), at = ((o0 + ko) * c + ch) * hw + (k - ko * hw);
                return make_float2(gy[at], x[at]);
            },
            [&](long long, float2 gx) {
                sg += gx.x;
                sgx += (double)(gx.x * ((gx.y - mu) * inv));
            });
        double total_g = 0.0, total_gx = 0.0;
        if (channel_slice_done(sg, sgx, partial, arrivals, ch, s, slices, &total_g, &total_gx) && threadIdx.x == 0) {
            dbeta[ch] = (float)total_g;
            dgamma[ch] = (float)total_gx;
        }
    }
}

// dx = gamma * invstd / m * (m * gy - dbeta - xhat * dgamma)   (training mode: the statistics depend on x)
extern "C" __global__ void batchnorm_input_grad_f32(const float* __restrict__ gy, const float* __restrict__ x,
                                                    const float* __restrict__ mean, const float* __restrict__ invstd,
                                                    const float* __restrict__ gamma, const float* __restrict__ dgamma,
                                                    const float* __restrict__ dbeta, float* __restrict__ dx,
                                                    long long n, long long c, long long hw) {
    const float m = (float)(n * hw);
    GRID_STRIDE_LOOP(idx, n * c * hw) {
        const long long ch = channel_of(idx, hw, c);
        const float inv = invstd[ch];
        const float xhat = (x[idx] - mean[ch]) * inv;
        dx[idx] = gamma[ch] * inv / m * (m * gy[idx] - dbeta[ch] - xhat * dgamma[ch]);
    }
}
