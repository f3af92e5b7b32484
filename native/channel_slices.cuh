// The per-channel reductions of batch norm (batchnorm.cu) and of the fused batch norm - ReLU - pooling block
// (bn_relu_pool.cu): a channel's sums split over blocks, and the last block to arrive finishing the channel.
#pragma once
#include "common.cuh"

// The per-channel sums of batchnorm_forward_stats, batchnorm_grad_sums and bn_relu_pool_grad_sums are split over
// `slices` blocks per channel (a range of the batch each), so that a layer of 32 channels keeps more than 32 SMs
// busy. Each block writes its partial sums (double) to partial[(ch * slices + s) * 2 + 0/1]; the last block of a
// channel to arrive (an atomic count in arrivals[ch], which that block resets to 0 for the next launch) adds the
// partials in slice order (deterministic) and finishes the channel. partial holds c * slices * 2 doubles, arrivals
// c zeros.
__device__ __forceinline__ bool channel_slice_done(double a, double b, double* partial, unsigned int* arrivals,
                                                   long long ch, long long s, long long slices, double* out_a,
                                                   double* out_b) {
    __shared__ bool last;
    a = block_sum_double(a);
    b = block_sum_double(b);
    if (threadIdx.x == 0) {
        partial[(ch * slices + s) * 2] = a;
        partial[(ch * slices + s) * 2 + 1] = b;
        __threadfence();
        last = atomicAdd(&arrivals[ch], 1u) == (unsigned int)(slices - 1);
        if (last) {
            double ta = 0.0, tb = 0.0;
            for (long long j = 0; j < slices; ++j) {
                ta += __ldcg(&partial[(ch * slices + j) * 2]);
                tb += __ldcg(&partial[(ch * slices + j) * 2 + 1]);
            }
            arrivals[ch] = 0;
            *out_a = ta;
            *out_b = tb;
        }
    }
    __syncthreads();
    const bool done = last;
    __syncthreads();                       // `last` is written again by the next work item
    return done;
}

