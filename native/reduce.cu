// Reductions over the middle axis of a compact float32 array seen as [outer, r, inner] (Backend.reduce):
//   reduce_{sum,max,min}_rows_f32       inner == 1: a block per (row, part); `parts` blocks share a long row
//   reduce_{sum,max,min}_rows_warp_f32  inner == 1, many short rows: one warp per row, no block barriers
//   reduce_{sum,max,min}_cols_f32       inner  > 1: a block per (outer, chunk of r, 32 or 128 columns)
//   reduce_{sum,max,min}_rows_last_f32  inner == 1, rows shared by `parts` blocks, finished in the same launch
//   reduce_{sum,max,min}_cols_last_f32  inner  > 1, the column split finished in the same launch
// The Java side (org.mpi2nccl.cuda.CudaReductions) splits a long axis into parts/chunks when there are too few
// outputs to keep the GPU busy: the outputs are then [outer, parts, inner] partials that a second launch
// reduces. Every thread keeps LOADS_IN_FLIGHT float4 loads in flight (a reduction is a pure read stream).
// The one-pass kernels count finished blocks with an atomic, but every combination still happens in an order
// fixed by the shape and the launch: the same input on the same GPU always gives the same bits.
#include "common.cuh"

struct SumOp {
    static __device__ __forceinline__ float identity() { return 0.f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
};
struct MaxOp {
    static __device__ __forceinline__ float identity() { return -INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return java_max(a, b); }
};
struct MinOp {
    static __device__ __forceinline__ float identity() { return INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return java_min(a, b); }
};

template <class Op>
__device__ __forceinline__ float combine4(float acc, float4 v) {
    return Op::combine(acc, Op::combine(Op::combine(v.x, v.y), Op::combine(v.z, v.w)));
}

template <class Op>
__device__ __forceinline__ float warp_reduce(float v) {
    for (int o = 16; o > 0; o >>= 1) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Thread 0 gets the block's result (blockDim.x a multiple of 32, at most 1024).
template <class Op>
__device__ __forceinline__ float block_reduce(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_reduce<Op>(v);
    __syncthreads();                       // partial[] may still be read by the previous row
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = (threadIdx.x < warps) ? partial[threadIdx.x] : Op::identity();
    if (warp == 0) v = warp_reduce<Op>(v);
    return v;
}

// Thread t's share (of `width` threads) of part `part` (of `parts`) of a row of r floats. The row is read as
// a head of up to 3 floats (to the first 16-byte boundary), a body of float4s and a tail of up to 3 floats.
// Body float4 j belongs to part (j / width) % parts, thread j % width: the parts interleave, so at any time
// all the blocks of a row read one contiguous stretch of it. Head and tail go to part 0.
template <class Op>
__device__ __forceinline__ float row_share(const float* row, long long r, long long part, long long parts, int t,
                                           int width) {
    const long long misaligned = (long long)(((uintptr_t)row >> 2) & 3);   // floats past a 16-byte boundary
    const long long head = min((4 - misaligned) & 3, r);
    float acc = Op::identity();
    if (part == 0 && t < head) acc = Op::combine(acc, row[t]);
    const long long n4 = (r - head) >> 2;
    const float4* body = reinterpret_cast<const float4*>(row + head);
    const long long step = (long long)width * parts;
    for (long long j = part * width + t; j < n4; j += LOADS_IN_FLIGHT * step) {
        float4 v[LOADS_IN_FLIGHT];
#pragma unroll
        for (int u = 0; u < LOADS_IN_FLIGHT; ++u)
            if (j + u * step < n4) v[u] = body[j + u * step];
#pragma unroll
        for (int u = 0; u < LOADS_IN_FLIGHT; ++u)
            if (j + u * step < n4) acc = combine4<Op>(acc, v[u]);
    }
    const long long tail = head + (n4 << 2);
    if (part == 0 && t < r - tail) acc = Op::combine(acc, row[tail + t]);
    return acc;
}

// out[o * parts + c] = the reduction of part c of row o (parts == 1: the row's result).
template <class Op>
__device__ __forceinline__ void reduce_rows(const float* in, float* out, long long outer, long long r, long long parts) {
    for (long long item = blockIdx.x; item < outer * parts; item += gridDim.x) {
        const long long o = item / parts, c = item - o * parts;
        float acc = row_share<Op>(in + o * r, r, c, parts, threadIdx.x, blockDim.x);
        acc = block_reduce<Op>(acc);
        if (threadIdx.x == 0) out[item] = acc;
    }
}

// The same split in ONE launch ("last block finishes"): each block stores its part's result in partials[item]
// as reduce_rows does, then counts itself in counters[o]; the block that brings a row's count to `parts` (the
// last of that row's blocks to finish) combines the row's partials in index order, writes out[o] and sets the
// count back to 0 for the next launch. No block waits for another, the second launch (and its gap) is gone,
// and the result does not depend on which block finished last: the same input gives the same bits.
// counters[0 .. outer) must be 0 on entry (the Java side keeps them in a zeroed per-context buffer).
template <class Op>
__device__ __forceinline__ void reduce_rows_last(const float* in, float* out, long long outer, long long r, long long parts,
                                                 float* partials, unsigned int* counters) {
    __shared__ int last;
    for (long long item = blockIdx.x; item < outer * parts; item += gridDim.x) {
        const long long o = item / parts, c = item - o * parts;
        float acc = row_share<Op>(in + o * r, r, c, parts, threadIdx.x, blockDim.x);
        acc = block_reduce<Op>(acc);
        if (threadIdx.x == 0) {
            partials[item] = acc;
            __threadfence();                   // the partial is visible GPU-wide before the count says so
            last = atomicAdd(&counters[o], 1u) == (unsigned int)(parts - 1);
        }
        __syncthreads();
        if (last) {
            __threadfence();
            float v = Op::identity();
            for (long long k = threadIdx.x; k < parts; k += blockDim.x)
                v = Op::combine(v, __ldcg(partials + o * parts + k));   // from L2: other SMs wrote them
            v = block_reduce<Op>(v);
            if (threadIdx.x == 0) {
                out[o] = v;
                counters[o] = 0;
            }
        }
        __syncthreads();                       // `last` is rewritten by the next item
    }
}

template <class Op>
__device__ __forceinline__ void reduce_rows_warp(const float* in, float* out, long long rows, long long r) {
    WARP_PER_ROW_LOOP(row, rows) {
        float acc = row_share<Op>(in + row * r, r, 0, 1, lane, 32);
        acc = warp_reduce<Op>(acc);
        if (lane == 0) out[row] = acc;
    }
}

// Columns: a block takes a tile of (outer o, chunk c of the r axis, 32*V adjacent columns); lane l of each warp
// owns columns l*V .. l*V+V-1 of the tile (V = 4: one float4 when inner % 4 == 0 and the input is aligned), and
// warp w the rows begin + w, begin + w + warps, ... of the chunk, each reading whole rows of the tile with
// LOADS_IN_FLIGHT rows in flight per thread. The warps' column results are combined in warp order through shared memory: on
// return, lane l of warp 0 holds the tile's V results in total[] (the other threads hold nothing useful).
#define COLS_MAX_WARPS 8                 // warps of a block that take rows (blocks of up to 256 threads use all)
template <class Op, int V>
__device__ __forceinline__ void cols_tile(const float* in, long long o, long long r, long long inner, long long col,
                                          long long begin, long long end, float* shared, float (&total)[V]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = min((int)(blockDim.x >> 5), COLS_MAX_WARPS);
    float acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = Op::identity();
    if (col < inner && warp < warps) {
        const float* src = in + o * r * inner + col;
        const long long step = warps;
        for (long long k = begin + warp; k < end; k += LOADS_IN_FLIGHT * step) {
            float v[LOADS_IN_FLIGHT][V];
#pragma unroll
            for (int u = 0; u < LOADS_IN_FLIGHT; ++u) {
                if (k + u * step < end) {
                    if constexpr (V == 4) {
                        const float4 x = *reinterpret_cast<const float4*>(src + (k + u * step) * inner);
                        v[u][0] = x.x; v[u][1] = x.y; v[u][2] = x.z; v[u][3] = x.w;
                    } else {
                        v[u][0] = src[(k + u * step) * inner];
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < LOADS_IN_FLIGHT; ++u)
                if (k + u * step < end) {
#pragma unroll
                    for (int e = 0; e < V; ++e) acc[e] = Op::combine(acc[e], v[u][e]);
                }
        }
    }
    if (warp < warps) {
#pragma unroll
        for (int e = 0; e < V; ++e) shared[warp * 32 * V + lane * V + e] = acc[e];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
            float t = shared[lane * V + e];
            for (int w = 1; w < warps; ++w) t = Op::combine(t, shared[w * 32 * V + lane * V + e]);
            total[e] = t;
        }
    }
    __syncthreads();                       // shared[] is refilled by the next tile
}

// out is [outer, chunks, inner]: chunk c of the r axis is rows c*chunk .. (c+1)*chunk-1.
template <class Op, int V>
__device__ __forceinline__ void reduce_cols(const float* in, float* out, long long outer, long long r, long long inner,
                                            long long chunk, long long chunks, float* shared) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long width = 32LL * V, col_tiles = (inner + width - 1) / width;
    for (long long t = blockIdx.x; t < outer * chunks * col_tiles; t += gridDim.x) {
        const long long ct = t % col_tiles, oc = t / col_tiles, c = oc % chunks, o = oc / chunks;
        const long long col = ct * width + (long long)lane * V;
        float total[V];
        cols_tile<Op, V>(in, o, r, inner, col, c * chunk, min(r, c * chunk + chunk), shared, total);
        if (warp == 0 && col < inner) {
#pragma unroll
            for (int e = 0; e < V; ++e) out[(o * chunks + c) * inner + col + e] = total[e];
        }
    }
}

// The same split in ONE launch (as reduce_rows_last for rows): the block of chunk c of a column tile stores its V
// results per lane in partials[(o * chunks + c) * inner + col ..], then counts itself in counters[o * col_tiles + ct];
// the block that brings the count to `chunks` combines the tile's partials in chunk order, writes out[o * inner + col ..]
// (out is [outer, inner]: the final result) and sets the count back to 0. No second launch and no buffer to allocate;
// the result does not depend on which block finished last. With chunks == 1 a block writes out directly.
// counters[0 .. outer * col_tiles) must be 0 on entry when chunks > 1.
template <class Op, int V>
__device__ __forceinline__ void reduce_cols_last(const float* in, float* out, long long outer, long long r, long long inner,
                                                 long long chunk, long long chunks, float* partials,
                                                 unsigned int* counters, float* shared) {
    __shared__ int last;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long width = 32LL * V, col_tiles = (inner + width - 1) / width;
    for (long long t = blockIdx.x; t < outer * chunks * col_tiles; t += gridDim.x) {
        const long long ct = t % col_tiles, oc = t / col_tiles, c = oc % chunks, o = oc / chunks;
        const long long col = ct * width + (long long)lane * V;
        float total[V];
        cols_tile<Op, V>(in, o, r, inner, col, c * chunk, min(r, c * chunk + chunk), shared, total);
        const bool writes = warp == 0 && col < inner;
        if (chunks == 1) {
            if (writes) {
#pragma unroll
                for (int e = 0; e < V; ++e) out[o * inner + col + e] = total[e];
            }
            continue;
        }
        if (writes) {
#pragma unroll
            for (int e = 0; e < V; ++e) partials[(o * chunks + c) * inner + col + e] = total[e];
            __threadfence();                   // this lane's partials are visible GPU-wide before the count says so
        }
        __syncthreads();
        if (threadIdx.x == 0) last = atomicAdd(&counters[o * col_tiles + ct], 1u) == (unsigned int)(chunks - 1);
        __syncthreads();
        if (last) {
            __threadfence();
            if (writes) {
#pragma unroll
                for (int e = 0; e < V; ++e) {
                    float v = Op::identity();
                    for (long long k = 0; k < chunks; ++k)
                        v = Op::combine(v, __ldcg(partials + (o * chunks + k) * inner + col + e));   // other SMs wrote them
                    out[o * inner + col + e] = v;
                }
            }
            if (threadIdx.x == 0) counters[o * col_tiles + ct] = 0;
        }
        __syncthreads();                       // `last` is rewritten by the next tile
    }
}

template <class Op>
__device__ __forceinline__ void reduce_cols_any(const float* in, float* out, long long outer, long long r,
                                                long long inner, long long chunk, long long chunks) {
    __shared__ float shared[COLS_MAX_WARPS * 32 * 4];
    if ((inner & 3) == 0 && aligned16(in)) reduce_cols<Op, 4>(in, out, outer, r, inner, chunk, chunks, shared);
    else reduce_cols<Op, 1>(in, out, outer, r, inner, chunk, chunks, shared);
}

template <class Op>
__device__ __forceinline__ void reduce_cols_last_any(const float* in, float* out, long long outer, long long r, long long inner,
                                                     long long chunk, long long chunks, float* partials, unsigned int* counters) {
    __shared__ float shared[COLS_MAX_WARPS * 32 * 4];
    if ((inner & 3) == 0 && aligned16(in)) reduce_cols_last<Op, 4>(in, out, outer, r, inner, chunk, chunks, partials, counters, shared);
    else reduce_cols_last<Op, 1>(in, out, outer, r, inner, chunk, chunks, partials, counters, shared);
}

#define DEFINE_REDUCE(NAME, OP)                                                                         \
    extern "C" __global__ void reduce_##NAME##_rows_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                        long long outer, long long r, long long parts) { \
        reduce_rows<OP>(in, out, outer, r, parts);                                                      \
    }                                                                                                   \
    extern "C" __global__ void reduce_##NAME##_rows_warp_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                             long long rows, long long r) {             \
        reduce_rows_warp<OP>(in, out, rows, r);                                                         \
    }                                                                                                   \
    extern "C" __global__ void reduce_##NAME##_cols_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                        long long outer, long long r, long long inner,  \
                                                        long long chunk, long long chunks) {            \
        reduce_cols_any<OP>(in, out, outer, r, inner, chunk, chunks);                                   \
    }                                                                                                   \
    extern "C" __global__ void reduce_##NAME##_rows_last_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                             long long outer, long long r, long long parts, \
                                                             float* partials, unsigned int* counters) { \
        reduce_rows_last<OP>(in, out, outer, r, parts, partials, counters);            \
    }                                                                                                   \
    extern "C" __global__ void reduce_##NAME##_cols_last_f32(const float* __restrict__ in, float* __restrict__ out, \
                                                             long long outer, long long r, long long inner, \
                                                             long long chunk, long long chunks,         \
                                                             float* partials, unsigned int* counters) { \
        reduce_cols_last_any<OP>(in, out, outer, r, inner, chunk, chunks, partials, counters); \
    }

DEFINE_REDUCE(sum, SumOp)
DEFINE_REDUCE(max, MaxOp)
DEFINE_REDUCE(min, MinOp)

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
