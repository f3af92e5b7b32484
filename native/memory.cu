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
// than copy part.
// V = 4: a full tile of a plane whose rows start 16-byte aligned on both sides is read and written as float4
// (4x fewer memory instructions, 16 bytes per thread per access); partial tiles at the plane's edges and
// unaligned planes take the scalar path (V = 1) of the same kernel. The variants below (tile shape, V) are
// weighed against each other on the GPU by `mpi2nccl bench-gpu --only variants`
// (org.mpi2nccl.cuda.TransposeVariant names them).
#define TILE_THREADS 256

// One pass of the tile: thread t of TILE_THREADS covers element (x, y + k * ROWS) of a W-wide, H-high grid of
// V-element groups for k < H / ROWS, where x = t % (W / V), y = t / (W / V), ROWS = TILE_THREADS / (W / V).
template <int W, int H, int V>
struct TilePass {
    static constexpr int PER_ROW = W / V;                      // threads along a row
    static constexpr int ROWS = TILE_THREADS / PER_ROW;        // rows one pass of the block covers
    static constexpr int PASSES = H / ROWS;
    static_assert(PER_ROW <= TILE_THREADS && TILE_THREADS % PER_ROW == 0 && H % ROWS == 0, "tile shape");
};

template <int TP, int TQ, int V>
__device__ __forceinline__ void transpose_tile(const float* __restrict__ src, float* __restrict__ dst, long long p0,
                                               long long q0, long long np, long long nq, long long sp_in,
                                               long long sq_in, long long sp_out, long long sq_out,
                                               float (*tile)[TP + 1]) {
    using Read = TilePass<TP, TQ, V>;      // rows of the tile along p: source row q, V consecutive p per access
    using Write = TilePass<TQ, TP, V>;     // rows along q: destination row p, V consecutive q per access
    const int t = threadIdx.x;
    {
        const int x = (t % Read::PER_ROW) * V, y = t / Read::PER_ROW;
        float v[Read::PASSES][V];
#pragma unroll
        for (int k = 0; k < Read::PASSES; ++k) {
            const long long q = q0 + y + k * Read::ROWS, p = p0 + x;
            if constexpr (V == 4) {        // only for full, aligned tiles (the caller checks)
                const float4 f = *reinterpret_cast<const float4*>(src + q * sq_in + p);
                v[k][0] = f.x; v[k][1] = f.y; v[k][2] = f.z; v[k][3] = f.w;
            } else {
                v[k][0] = (p < np && q < nq) ? src[p * sp_in + q * sq_in] : 0.f;
            }
        }
#pragma unroll
        for (int k = 0; k < Read::PASSES; ++k)
#pragma unroll
            for (int e = 0; e < V; ++e) tile[y + k * Read::ROWS][x + e] = v[k][e];
    }
    __syncthreads();
    {
        const int x = (t % Write::PER_ROW) * V, y = t / Write::PER_ROW;
#pragma unroll
        for (int k = 0; k < Write::PASSES; ++k) {
            const int pt = y + k * Write::ROWS;
            const long long p = p0 + pt, q = q0 + x;
            if constexpr (V == 4) {
                *reinterpret_cast<float4*>(dst + p * sp_out + q) =
                    make_float4(tile[x][pt], tile[x + 1][pt], tile[x + 2][pt], tile[x + 3][pt]);
            } else {
                if (p < np && q < nq) dst[p * sp_out + q * sq_out] = tile[x][pt];
            }
        }
    }
    __syncthreads();                       // the tile is refilled by the next one
}

template <int TP, int TQ, bool VECTOR>
__device__ __forceinline__ void copy_transpose(const float* __restrict__ in, const Layout& bi, float* __restrict__ out,
                                               const Layout& bo, long long np, long long nq, long long sp_in,
                                               long long sq_in, long long sp_out, long long sq_out) {
    if (blockDim.x != TILE_THREADS) __trap();
    __shared__ float tile[TQ][TP + 1];     // +1: a column of the tile falls in different banks
    long long batches = 1;
    for (int d = 0; d < (int)bi.ndim; ++d) batches *= bi.shape[d];
    const long long tiles_p = (np + TP - 1) / TP, tiles_q = (nq + TQ - 1) / TQ;
    const long long tiles = batches * tiles_p * tiles_q;
    // float4 rows: unit strides inside the rows, row strides and both planes' starts multiples of 4 floats
    const bool rows4 = VECTOR && sp_in == 1 && sq_out == 1 && (sq_in & 3) == 0 && (sp_out & 3) == 0;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long b = t / (tiles_p * tiles_q), pq = t - b * tiles_p * tiles_q;
        const long long p0 = (pq / tiles_q) * TP, q0 = (pq % tiles_q) * TQ;
        const float* src = in + layout_offset(bi, b);
        float* dst = out + layout_offset(bo, b);
        if constexpr (VECTOR) {
            if (rows4 && aligned16(src) && aligned16(dst) && p0 + TP <= np && q0 + TQ <= nq) {
                transpose_tile<TP, TQ, 4>(src, dst, p0, q0, np, nq, sp_in, sq_in, sp_out, sq_out, tile);
                continue;
            }
        }
        transpose_tile<TP, TQ, 1>(src, dst, p0, q0, np, nq, sp_in, sq_in, sp_out, sq_out, tile);
    }
}

#define DEFINE_TRANSPOSE(NAME, TP, TQ, VECTOR)                                                              \
    extern "C" __global__ void NAME(const float* __restrict__ in, Layout bi, float* __restrict__ out, Layout bo, \
                                    long long np, long long nq, long long sp_in, long long sq_in,        \
                                    long long sp_out, long long sq_out) {                                \
        copy_transpose<TP, TQ, VECTOR>(in, bi, out, bo, np, nq, sp_in, sq_in, sp_out, sq_out);           \
    }

DEFINE_TRANSPOSE(copy_transpose_64x64_f32, 64, 64, false)        // the first kernel: 16 scalar loads per thread
DEFINE_TRANSPOSE(copy_transpose_64x64_v4_f32, 64, 64, true)      // the same tile, 4 float4 loads per thread
DEFINE_TRANSPOSE(copy_transpose_128x64_v4_f32, 128, 64, true)    // 512-byte source rows, 8 float4 per thread
DEFINE_TRANSPOSE(copy_transpose_64x128_v4_f32, 64, 128, true)    // 512-byte destination rows
DEFINE_TRANSPOSE(copy_transpose_32x32_f32, 32, 32, false)        // the textbook tile: 4 loads per thread
