// Shared by every kernel file: the strided layout struct the Java side passes by value, the
// grid-stride loop, and block/warp reductions. Kernels are extern "C" so their PTX .entry names are
// exactly the names the Java enum org.mpi2nccl.cuda.Kernel lists (a CI test checks that).
#pragma once
#include <cstdint>
#include <cmath>

// A view of a float buffer: element (i0, ..., i{ndim-1}) lives at offset + sum(i_d * stride_d).
// All fields are 64-bit so the Java side can pass it as a plain long[2 + 2*MAX_DIMS] without padding.
#define MAX_DIMS 8
struct Layout {
    long long ndim;
    long long offset;
    long long shape[MAX_DIMS];
    long long stride[MAX_DIMS];
};

// The window of a 2-D convolution or pooling over an NCHW input (org.mpi2nccl.tensor.ConvGeometry, with
// the output size the Java side computed). All 64-bit: passed from Java as a long[12].
struct Window2d {
    long long n, c, h, w;        // input
    long long kh, kw;            // window
    long long sh, sw;            // stride
    long long ph, pw;            // padding
    long long oh, ow;            // output
};

// Offset of the linear (row-major over layout.shape) element index i.
__device__ __forceinline__ long long layout_offset(const Layout& L, long long i) {
    long long off = L.offset;
    for (int d = (int)L.ndim - 1; d >= 0; --d) {
        const long long s = L.shape[d];
        off += (i % s) * L.stride[d];
        i /= s;
    }
    return off;
}

// a / b and a % b for a, b >= 0, in 32-bit arithmetic where both fit. A 64-bit division costs several times a
// 32-bit one; a kernel that splits every element's index with them is bound by that arithmetic, not by memory.
__device__ __forceinline__ long long div_nonneg(long long a, long long b) {
    return (a <= 0xffffffffLL && b <= 0xffffffffLL) ? (long long)((unsigned)a / (unsigned)b) : a / b;
}
__device__ __forceinline__ long long mod_nonneg(long long a, long long b) { return a - div_nonneg(a, b) * b; }

// Element idx of a stack of rows x cols planes (an NCHW array: plane = sample * C + channel), split into its plane,
// row and column.
struct PlanePosition {
    long long plane, row, col;
};
__device__ __forceinline__ PlanePosition plane_position(long long idx, long long rows, long long cols) {
    const long long line = div_nonneg(idx, cols), plane = div_nonneg(line, rows);
    return PlanePosition{plane, line - plane * rows, idx - line * cols};
}
// The channel of element idx of an NCHW array with c channels of plane_size (H*W) elements each.
__device__ __forceinline__ long long channel_of(long long idx, long long plane_size, long long c) {
    return mod_nonneg(div_nonneg(idx, plane_size), c);
}

// Every kernel walks its index space with a grid-stride loop: any grid size is correct, and the
// bound check is the loop condition itself, so no thread touches memory past n.
#define GRID_STRIDE_LOOP(i, n) \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)blockDim.x * gridDim.x)

// True when p may be read or written as float4 (16-byte aligned). Buffers come 256-byte aligned from the
// allocator; a view at an element offset that is not a multiple of 4 is not.
__device__ __forceinline__ bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

// How many independent loads each thread keeps in flight in the streaming kernels (elementwise, reductions).
// One load per thread is not enough to cover the memory latency of a GPU like the H100 with the threads a
// launch can keep resident; four float4 loads (64 bytes) per thread are.
#define LOADS_IN_FLIGHT 4

// A grid-stride loop over n items that, per step, first issues the loads of U items (load(i) returns the
// item's inputs) and only then uses them (use(i, value)): the loads are independent, so they are in flight
// together. Items are spread as in GRID_STRIDE_LOOP (item i + u*stride on thread i), so every warp access is
// contiguous. Correct for any grid; an item is loaded and used by one thread only, so out may alias an input.
template <int U, class Load, class Use>
__device__ __forceinline__ void grid_stride_batched(long long n, Load load, Use use) {
    const long long stride = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += U * stride) {
        decltype(load(i)) v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (i + u * stride < n) v[u] = load(i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (i + u * stride < n) use(i + u * stride, v[u]);
    }
}

// The same within one block: items threadIdx.x, + blockDim.x, ... < n, U loads in flight per thread. Each thread
// uses its items in the same order as a plain block-stride loop, so sums built in use() come out the same.
template <int U, class Load, class Use>
__device__ __forceinline__ void block_stride_batched(long long n, Load load, Use use) {
    const long long stride = blockDim.x;
    for (long long i = threadIdx.x; i < n; i += U * stride) {
        decltype(load(i)) v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (i + u * stride < n) v[u] = load(i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (i + u * stride < n) use(i + u * stride, v[u]);
    }
}

// One warp per row of a [rows, cols] array (row-wise softmax, cross-entropy): `lane` is the thread's
// lane, rows are walked warp-stride so any grid size covers them. blockDim.x must be a multiple of 32.
#define WARP_PER_ROW_LOOP(row, rows)                                                               \
    const int lane = threadIdx.x & 31;                                                             \
    const long long warps_total = ((long long)gridDim.x * blockDim.x) >> 5;                        \
    for (long long row = (((long long)blockIdx.x * blockDim.x) + threadIdx.x) >> 5; row < (rows);  \
         row += warps_total)

// Java's Math.max/min semantics: NaN wins (fmaxf would drop it and hide a diverging loss).
__device__ __forceinline__ float java_max(float a, float b) { return (a > b || a != a) ? a : b; }
__device__ __forceinline__ float java_min(float a, float b) { return (a < b || a != a) ? a : b; }

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = java_max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Block-wide reductions (blockDim.x a multiple of 32, at most 1024). Every thread gets the result.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    __syncthreads();                       // partial[] may still be read by a previous call
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = (threadIdx.x < warps) ? partial[threadIdx.x] : 0.f;
    if (warp == 0) v = warp_sum(v);
    if (threadIdx.x == 0) partial[0] = v;
    __syncthreads();
    return partial[0];
}
// The same in double (per-channel statistics accumulate in double: a variance is derived from them).
__device__ __forceinline__ double block_sum_double(double v) {
    __shared__ double partial_d[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0) partial_d[warp] = v;
    __syncthreads();
    v = (threadIdx.x < warps) ? partial_d[threadIdx.x] : 0.0;
    if (warp == 0) for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) partial_d[0] = v;
    __syncthreads();
    return partial_d[0];
}
__device__ __forceinline__ float block_max(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = (threadIdx.x < warps) ? partial[threadIdx.x] : -INFINITY;
    if (warp == 0) v = warp_max(v);
    if (threadIdx.x == 0) partial[0] = v;
    __syncthreads();
    return partial[0];
}
