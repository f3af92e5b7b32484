// Per-channel primitives over compact (outer, channels, inner) float32 arrays (Backend.channelSums and
// channelAffine): batch norm's statistics and its normalize/scale/shift, each one pass over the data.
#include "common.cuh"

// sumA[c] = sum over (o, i) of a[o,c,i]; sumAB[c] = sum of a[o,c,i] * b[o,c,i] (b may be a: sums of squares).
// One block per channel, accumulating in double (the variance E[x^2] - E[x]^2 cancels badly in float);
// threads walk (o, i) with i fastest, so each warp reads contiguous memory.
extern "C" __global__ void channel_sums_f32(const float* __restrict__ a, const float* __restrict__ b,
                                            float* __restrict__ sum_a, float* __restrict__ sum_ab,
                                            long long outer, long long channels, long long inner) {
    const long long m = outer * inner;
    for (long long c = blockIdx.x; c < channels; c += gridDim.x) {
        double sa = 0.0, sab = 0.0;
        for (long long k = threadIdx.x; k < m; k += blockDim.x) {
            const long long at = ((k / inner) * channels + c) * inner + k % inner;
            const float x = a[at];
            sa += x;
            sab += (double)x * b[at];
        }
        sa = block_sum_double(sa);
        sab = block_sum_double(sab);
        if (threadIdx.x == 0) { sum_a[c] = (float)sa; sum_ab[c] = (float)sab; }
    }
}

// out[o,c,i] = a[o,c,i] * scale_a[c] + b[o,c,i] * scale_b[c] + shift[c]; b and scale_b null: no b term.
// out may be a or b (each element is read before it is written).
extern "C" __global__ void channel_affine_f32(const float* a, const float* __restrict__ scale_a, const float* b,
                                              const float* __restrict__ scale_b, const float* __restrict__ shift,
                                              float* out, long long outer, long long channels, long long inner) {
    GRID_STRIDE_LOOP(idx, outer * channels * inner) {
        const long long c = (idx / inner) % channels;
        float v = a[idx] * scale_a[c];
        if (b != nullptr) v += b[idx] * scale_b[c];
        out[idx] = v + shift[c];
    }
}
