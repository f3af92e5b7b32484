// Reductions over the middle axis of a compact float32 array seen as [outer, r, inner] (Backend.reduce):
//   reduce_{sum,max,min}_rows_f32  inner == 1: one block per (outer, chunk) row segment, block-wide tree
//   reduce_{sum,max,min}_rows_warp_f32  inner == 1, many short rows: one warp per row
//   reduce_{sum,max,min}_cols_f32  inner  > 1: one thread per (outer, chunk, inner) output, coalesced along inner
// A large r is split into `chunks` segments of `chunk` elements so a full reduction keeps the whole GPU busy:
// the outputs are [outer, chunks, inner] partials that the Java side reduces again. No atomics: the same input
// always gives the same bits.
#include "common.cuh"

__device__ __forceinline__ float combine_sum(float a, float b) { return a + b; }
__device__ __forceinline__ float combine_max(float a, float b) { return java_max(a, b); }
__device__ __forceinline__ float combine_min(float a, float b) { return java_min(a, b); }
__device__ __forceinline__ float block_combine_sum(float v) { return block_sum(v); }
__device__ __forceinline__ float block_combine_max(float v) { return block_max(v); }
__device__ __forceinline__ float block_combine_min(float v) { return -block_max(-v); }

#define DEFINE_REDUCE(NAME, IDENTITY)                                                                   \
    extern "C" __global__ void reduce_##NAME##_rows_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                        long long outer, long long r, long long chunk,  \
                                                        long long chunks) {                             \
        for (long long row = blockIdx.x; row < outer * chunks; row += gridDim.x) {                      \
            const long long o = row / chunks, c = row % chunks;                                         \
            const long long begin = c * chunk, end = min(r, begin + chunk);                             \
            const float* src = in + o * r + begin;                                                      \
            const long long len = max(0LL, end - begin);                                                \
            float acc = IDENTITY;                                                                       \
            long long done = 0;                                                                         \
            if (((uintptr_t)src & 15u) == 0) {                /* float4 loads over the aligned part */  \
                const float4* src4 = reinterpret_cast<const float4*>(src);                              \
                for (long long k = threadIdx.x; k < (len >> 2); k += blockDim.x) {                      \
                    const float4 v = src4[k];                                                           \
                    acc = combine_##NAME(acc, combine_##NAME(combine_##NAME(v.x, v.y), combine_##NAME(v.z, v.w))); \
                }                                                                                       \
                done = (len >> 2) << 2;                                                                 \
            }                                                                                           \
            for (long long k = done + threadIdx.x; k < len; k += blockDim.x) acc = combine_##NAME(acc, src[k]); \
            acc = block_combine_##NAME(acc);                                                            \
            if (threadIdx.x == 0) out[row] = acc;                                                       \
        }                                                                                               \
    }                                                                                                   \
    /* one warp per row: for many short rows, no block-wide barriers */                                 \
    extern "C" __global__ void reduce_##NAME##_rows_warp_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                             long long rows, long long r) {             \
        WARP_PER_ROW_LOOP(row, rows) {                                                                  \
            const float* src = in + row * r;                                                            \
            float acc = IDENTITY;                                                                       \
            for (long long k = lane; k < r; k += 32) acc = combine_##NAME(acc, src[k]);                 \
            for (int o = 16; o > 0; o >>= 1) acc = combine_##NAME(acc, __shfl_xor_sync(0xffffffffu, acc, o)); \
            if (lane == 0) out[row] = acc;                                                              \
        }                                                                                               \
    }                                                                                                   \
    extern "C" __global__ void reduce_##NAME##_cols_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                        long long outer, long long r, long long inner,  \
                                                        long long chunk, long long chunks) {            \
        GRID_STRIDE_LOOP(idx, outer * chunks * inner) {                                                 \
            const long long i = idx % inner, c = (idx / inner) % chunks, o = idx / (inner * chunks);    \
            const long long begin = c * chunk, end = min(r, begin + chunk);                             \
            const float* src = in + o * r * inner + i;                                                  \
            float acc = IDENTITY;                                                                       \
            for (long long k = begin; k < end; ++k) acc = combine_##NAME(acc, src[k * inner]);          \
            out[idx] = acc;                                                                             \
        }                                                                                               \
    }

DEFINE_REDUCE(sum, 0.f)
DEFINE_REDUCE(max, -INFINITY)
DEFINE_REDUCE(min, INFINITY)

// Index (as float, the NDArray dtype) of the first maximum along the middle axis; one thread per output.
// Same rule as the CPU: element r replaces the best only when strictly greater.
extern "C" __global__ void argmax_f32(const float* __restrict__ in, float* __restrict__ out,
                                      long long outer, long long r, long long inner) {
    GRID_STRIDE_LOOP(idx, outer * inner) {
        const long long i = idx % inner, o = idx / inner;
        const float* src = in + o * r * inner + i;
        float best = src[0];
        long long at = 0;
        for (long long k = 1; k < r; ++k) {
            const float v = src[k * inner];
            if (v > best) { best = v; at = k; }
        }
        out[idx] = (float)at;
    }
}
