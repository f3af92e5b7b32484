// Reductions over one axis of a compact float32 array seen as [outer, r, inner] (the axis to reduce is
// the middle one, so no transpose is needed for any axis). Two shapes of parallelism:
//   reduce_*_rows_f32  inner == 1: one block per (outer, chunk) row segment, a block-wide tree reduction
//   reduce_*_cols_f32  inner  > 1: one thread per (outer, chunk, inner) output, loads coalesced along inner
// A large r is split into `chunks` segments of `chunk` elements so that even a full reduction keeps the
// whole GPU busy: the outputs are [outer, chunks, inner] partials, and the Java side reduces those again
// (deterministic: no atomics, so the same input always gives the same bits).
#include "common.cuh"

extern "C" __global__ void reduce_sum_rows_f32(const float* __restrict__ in, float* __restrict__ out,
                                               long long outer, long long r, long long chunk,
                                               long long chunks, float scale) {
    for (long long row = blockIdx.x; row < outer * chunks; row += gridDim.x) {
        const long long o = row / chunks, c = row % chunks;
        const long long begin = c * chunk, end = min(r, begin + chunk);
        const float* src = in + o * r;
        float acc = 0.f;
        for (long long k = begin + threadIdx.x; k < end; k += blockDim.x) acc += src[k];
        acc = block_sum(acc);
        if (threadIdx.x == 0) out[row] = acc * scale;
    }
}

extern "C" __global__ void reduce_max_rows_f32(const float* __restrict__ in, float* __restrict__ out,
                                               long long outer, long long r, long long chunk,
                                               long long chunks) {
    for (long long row = blockIdx.x; row < outer * chunks; row += gridDim.x) {
        const long long o = row / chunks, c = row % chunks;
        const long long begin = c * chunk, end = min(r, begin + chunk);
        const float* src = in + o * r;
        float acc = -INFINITY;
        for (long long k = begin + threadIdx.x; k < end; k += blockDim.x) acc = java_max(acc, src[k]);
        acc = block_max(acc);
        if (threadIdx.x == 0) out[row] = acc;
    }
}

extern "C" __global__ void reduce_sum_cols_f32(const float* __restrict__ in, float* __restrict__ out,
                                               long long outer, long long r, long long inner,
                                               long long chunk, long long chunks, float scale) {
    GRID_STRIDE_LOOP(idx, outer * chunks * inner) {
        const long long i = idx % inner, c = (idx / inner) % chunks, o = idx / (inner * chunks);
        const long long begin = c * chunk, end = min(r, begin + chunk);
        const float* src = in + o * r * inner + i;
        float acc = 0.f;
        for (long long k = begin; k < end; ++k) acc += src[k * inner];
        out[idx] = acc * scale;
    }
}

extern "C" __global__ void reduce_max_cols_f32(const float* __restrict__ in, float* __restrict__ out,
                                               long long outer, long long r, long long inner,
                                               long long chunk, long long chunks) {
    GRID_STRIDE_LOOP(idx, outer * chunks * inner) {
        const long long i = idx % inner, c = (idx / inner) % chunks, o = idx / (inner * chunks);
        const long long begin = c * chunk, end = min(r, begin + chunk);
        const float* src = in + o * r * inner + i;
        float acc = -INFINITY;
        for (long long k = begin; k < end; ++k) acc = java_max(acc, src[k * inner]);
        out[idx] = acc;
    }
}

// Index (as float, the NDArray dtype) of the first maximum along the middle axis; one thread per output.
extern "C" __global__ void argmax_f32(const float* __restrict__ in, float* __restrict__ out,
                                      long long outer, long long r, long long inner) {
    GRID_STRIDE_LOOP(idx, outer * inner) {
        const long long i = idx % inner, o = idx / inner;
        const float* src = in + o * r * inner + i;
        float best = src[0];
        long long at = 0;
        for (long long k = 1; k < r; ++k) {
            const float v = src[k * inner];
            if (v > best || (v != v && best == best)) { best = v; at = k; }
        }
        out[idx] = (float)at;
    }
}
