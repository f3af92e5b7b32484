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
// element. Here a block takes a TP x TQ tile (TP along p, TQ along q): it reads the tile along p (whole
// sectors), parks it in shared memory, and writes it along q (whole sectors). The batch axes are the Layouts
// bi/bo (their offsets are the views' offsets; ndim 0 for a single plane). Tiles are walked grid-stride: any
// grid is correct. The block must have TILE_THREADS threads (Kernel.BLOCK_THREADS); another size traps rather
// than copy part. The tile is 64 x 64: 16 scalar loads and stores per thread.
#define TILE_THREADS 256

// One pass of the tile: thread t of TILE_THREADS covers element (x, y + k * ROWS) of a W-wide, H-high grid
// for k < H / ROWS, where x = t % W, y = t / W, ROWS = TILE_THREADS / W.
template <int W, int H>
struct TilePass {
    static constexpr int PER_ROW = W;                          // threads along a row
    static constexpr int ROWS = TILE_THREADS / PER_ROW;        // rows one pass of the block covers
    static constexpr int PASSES = H / ROWS;
    static_assert(PER_ROW <= TILE_THREADS && TILE_THREADS % PER_ROW == 0 && H % ROWS == 0, "tile shape");
};

template <int TP, int TQ>
__device__ __forceinline__ void transpose_tile(const float* __restrict__ src, float* __restrict__ dst, long long p0,
                                               long long q0, long long np, long long nq, long long sp_in,
                                               long long sq_in, long long sp_out, long long sq_out,
                                               float (*tile)[TP + 1]) {
    using Read = TilePass<TP, TQ>;         // rows of the tile along p: source row q
    using Write = TilePass<TQ, TP>;        // rows along q: destination row p
    const int t = threadIdx.x;
    {
        const int x = t % Read::PER_ROW, y = t / Read::PER_ROW;
        float v[Read::PASSES];
#pragma unroll
        for (int k = 0; k < Read::PASSES; ++k) {
            const long long q = q0 + y + k * Read::ROWS, p = p0 + x;
            v[k] = (p < np && q < nq) ? src[p * sp_in + q * sq_in] : 0.f;
        }
#pragma unroll
        for (int k = 0; k < Read::PASSES; ++k) tile[y + k * Read::ROWS][x] = v[k];
    }
    __syncthreads();
    {
        const int x = t % Write::PER_ROW, y = t / Write::PER_ROW;
#pragma unroll
        for (int k = 0; k < Write::PASSES; ++k) {
            const int pt = y + k * Write::ROWS;
            const long long p = p0 + pt, q = q0 + x;
            if (p < np && q < nq) dst[p * sp_out + q * sq_out] = tile[x][pt];
        }
    }
    __syncthreads();                       // the tile is refilled by the next one
}

template <int TP, int TQ>
__device__ __forceinline__ void copy_transpose(const float* __restrict__ in, const Layout& bi, float* __restrict__ out,
                                               const Layout& bo, long long np, long long nq, long long sp_in,
                                               long long sq_in, long long sp_out, long long sq_out) {
    if (blockDim.x != TILE_THREADS) __trap();
    __shared__ float tile[TQ][TP + 1];     // +1: a column of the tile falls in different banks
    long long batches = 1;
    for (int d = 0; d < (int)bi.ndim; ++d) batches *= bi.shape[d];
    const long long tiles_p = (np + TP - 1) / TP, tiles_q = (nq + TQ - 1) / TQ;
    const long long tiles = batches * tiles_p * tiles_q;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long b = t / (tiles_p * tiles_q), pq = t - b * tiles_p * tiles_q;
        const long long p0 = (pq / tiles_q) * TP, q0 = (pq % tiles_q) * TQ;
        const float* src = in + layout_offset(bi, b);
        float* dst = out + layout_offset(bo, b);
        transpose_tile<TP, TQ>(src, dst, p0, q0, np, nq, sp_in, sq_in, sp_out, sq_out, tile);
    }
}

extern "C" __global__ void copy_transpose_64x64_f32(const float* __restrict__ in, Layout bi, float* __restrict__ out,
                                                    Layout bo, long long np, long long nq, long long sp_in,
                                                    long long sq_in, long long sp_out, long long sq_out) {
    copy_transpose<64, 64>(in, bi, out, bo, np, nq, sp_in, sq_in, sp_out, sq_out);
}
