// Fill and the strided copies behind compact(), broadcasting, permutes and slice assignment (Backend.fill,
// fillStrided, copyStrided). Offsets are folded into the Layout structs by the Java side, which also merges
// the dimensions it can (org.mpi2nccl.cuda.StridedCopyPlan) so the per-element index arithmetic stays short.
#include "common.cuh"

// float4 stores where the buffer is 16-byte aligned; the last n % 4 elements one by one.
extern "C" __global__ void fill_f32(float* __restrict__ out, float value, long long n) {
    if (aligned16(out)) {
        const long long n4 = n >> 2;
        float4* O4 = reinterpret_cast<float4*>(out);
        const float4 v = make_float4(value, value, value, value);
        GRID_STRIDE_LOOP(i, n4) O4[i] = v;
        out += n4 << 2;
        n -= n4 << 2;
    }
    GRID_STRIDE_LOOP(i, n) out[i] = value;
}

extern "C" __global__ void fill_strided_f32(float* __restrict__ out, Layout lo, float value, long long n) {
    GRID_STRIDE_LOOP(i, n) out[layout_offset(lo, i)] = value;
}

// Element i (row-major over the common shape) of `in` seen through li goes to `out` seen through lo.
extern "C" __global__ void copy_strided_f32(const float* __restrict__ in, Layout li, float* __restrict__ out,
                                            Layout lo, long long n) {
    GRID_STRIDE_LOOP(i, n) out[layout_offset(lo, i)] = in[layout_offset(li, i)];
}

// A batch of 2-D planes (a transpose, a permute that moves the last axis) where the source is contiguous
// along one plane axis (p: stride sp_in, 1 for full speed) and the destination along the other (q: stride
// sq_out). copy_strided_f32 would read or write such a copy with a stride: one 32-byte memory sector per
// element. Here a block takes a TILE x TILE tile: its warps read it along p (whole sectors), park it in
// shared memory, and write it along q (whole sectors). The batch axes are the Layouts bi/bo (their offsets
// are the views' offsets; ndim 0 for a single plane). Tiles are walked grid-stride: any grid is correct.
// The block must have TILE_THREADS threads (Kernel.BLOCK_THREADS); another size traps rather than copy part.
#define TILE 64
#define TILE_THREADS 256
#define TILE_ROWS (TILE_THREADS / 32)            // rows of a tile one pass of the block covers
#define TILE_PER_THREAD (TILE * TILE / TILE_THREADS)
extern "C" __global__ void copy_transpose_f32(const float* __restrict__ in, Layout bi, float* __restrict__ out,
                                              Layout bo, long long np, long long nq, long long sp_in,
                                              long long sq_in, long long sp_out, long long sq_out) {
    if (blockDim.x != TILE_THREADS) __trap();
    __shared__ float tile[TILE][TILE + 1];       // +1: a column of the tile falls in 32 different banks
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    long long batches = 1;
    for (int d = 0; d < (int)bi.ndim; ++d) batches *= bi.shape[d];
    const long long tiles_p = (np + TILE - 1) / TILE, tiles_q = (nq + TILE - 1) / TILE;
    const long long tiles = batches * tiles_p * tiles_q;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long b = t / (tiles_p * tiles_q), pq = t - b * tiles_p * tiles_q;
        const long long p0 = (pq / tiles_q) * TILE, q0 = (pq % tiles_q) * TILE;
        const float* src = in + layout_offset(bi, b);
        float* dst = out + layout_offset(bo, b);
        // element (p0 + h*32 + tx, q0 + k*TILE_ROWS + ty) of the plane -> tile[q][p]: a warp reads 32 consecutive p
        float v[TILE_PER_THREAD];
#pragma unroll
        for (int j = 0; j < TILE_PER_THREAD; ++j) {
            const long long p = p0 + (j & 1) * 32 + tx, q = q0 + (j >> 1) * TILE_ROWS + ty;
            if (p < np && q < nq) v[j] = src[p * sp_in + q * sq_in];
        }
#pragma unroll
        for (int j = 0; j < TILE_PER_THREAD; ++j) tile[(j >> 1) * TILE_ROWS + ty][(j & 1) * 32 + tx] = v[j];
        __syncthreads();
        // element (p0 + k*TILE_ROWS + ty, q0 + h*32 + tx) <- tile[q][p]: a warp writes 32 consecutive q
#pragma unroll
        for (int j = 0; j < TILE_PER_THREAD; ++j) {
            const int qt = (j & 1) * 32 + tx, pt = (j >> 1) * TILE_ROWS + ty;
            const long long p = p0 + pt, q = q0 + qt;
            if (p < np && q < nq) dst[p * sp_out + q * sq_out] = tile[qt][pt];
        }
        __syncthreads();                         // the tile is refilled by the next iteration
    }
}
