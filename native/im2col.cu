// Convolution as GEMM (Backend.im2col / col2im). im2col unfolds the compact NCHW input into
//   cols[s][(c*KH + i)*KW + j][oy*OW + ox] = x[s][c][oy*SH - PH + i][ox*SW - PW + j]   (0 in the padding)
// i.e. compact (N, C*KH*KW, OH*OW), so W (OC, C*KH*KW) x cols[s] is sample s's NCHW output directly
// (a strided-batched GEMM with the weight shared). col2im is its adjoint: every column entry summed back
// into its pixel.
//
// Both kernels give a block one (sample, channel) plane at a time and its threads walk the plane's pixels; the
// plane's offset is split once per plane, and per pixel only 32-bit arithmetic remains. Splitting every element's
// 64-bit index instead (six 64-bit divisions each) made both kernels bound by integer arithmetic, at an eighth of
// the memory's speed.
#include "common.cuh"

// Input planes of up to this many pixels (64 x 64) are copied to shared memory first: im2col reads each pixel
// KH*KW times, and from shared memory those reads cost no trip to global memory. Larger planes are read in place.
#define IM2COL_STAGED_PIXELS 4096

// The plane's KH*KW rows of cols are contiguous (rows (c, 0, 0) .. (c, KH-1, KW-1) of sample s): a thread takes an
// output position q, finds its window once, and writes the q-th entry of every row; neighbouring threads write
// neighbouring entries.
extern "C" __global__ void im2col_f32(const float* __restrict__ x, float* __restrict__ cols, Window2d g) {
    __shared__ float staged[IM2COL_STAGED_PIXELS];
    const int h = (int)g.h, w = (int)g.w, kh = (int)g.kh, kw = (int)g.kw, ow = (int)g.ow;
    const int sh = (int)g.sh, sw = (int)g.sw, ph = (int)g.ph, pw = (int)g.pw, p = (int)(g.oh * g.ow), hw = h * w;
    const bool stage = hw <= IM2COL_STAGED_PIXELS;
    const long long planes = g.n * g.c;
    for (long long plane = blockIdx.x; plane < planes; plane += gridDim.x) {
        const float* src = x + plane * hw;
        float* dst = cols + plane * kh * kw * (long long)p;
        if (stage) {
            __syncthreads();                                   // every thread is done with the previous plane
            for (int k = threadIdx.x; k < hw; k += blockDim.x) staged[k] = src[k];
            __syncthreads();
        }
        const float* from = stage ? staged : src;
        for (int q = threadIdx.x; q < p; q += blockDim.x) {
            const int oy = q / ow, ox = q - oy * ow, y0 = oy * sh - ph, x0 = ox * sw - pw;
            for (int i = 0; i < kh; ++i) {
                const int y = y0 + i;
                for (int j = 0; j < kw; ++j) {
                    const int xx = x0 + j;
                    dst[(i * kw + j) * p + q] = (y >= 0 && y < h && xx >= 0 && xx < w) ? from[y * w + xx] : 0.f;
                }
            }
        }
    }
}

// True when window offset k put output position o on pixel t + k (t = pixel + pad - k): t = o * stride, o < limit.
__device__ __forceinline__ bool window_hit(int t, int stride, int limit, int& o) {
    if (t < 0) return false;
    if (stride == 1) {
        o = t;
    } else {
        if (t % stride != 0) return false;
        o = t / stride;
    }
    return o < limit;
}

// A block per (sample, channel) plane; a thread per input pixel gathers every column entry that read it: no atomics,
// deterministic, and every pixel is written (overwrites dx).
extern "C" __global__ void col2im_f32(const float* __restrict__ cols, float* __restrict__ dx, Window2d g) {
    const int h = (int)g.h, w = (int)g.w, kh = (int)g.kh, kw = (int)g.kw, oh = (int)g.oh, ow = (int)g.ow;
    const int sh = (int)g.sh, sw = (int)g.sw, ph = (int)g.ph, pw = (int)g.pw, p = oh * ow, hw = h * w;
    const long long planes = g.n * g.c;
    for (long long plane = blockIdx.x; plane < planes; plane += gridDim.x) {
        const float* channel = cols + plane * kh * kw * (long long)p;   // rows (c, 0, 0) .. (c, KH-1, KW-1) of sample s
        float* dst = dx + plane * hw;
        for (int pix = threadIdx.x; pix < hw; pix += blockDim.x) {
            const int y = pix / w, xx = pix - y * w;
            float acc = 0.f;
            for (int i = 0; i < kh; ++i) {
                int oy;
                if (!window_hit(y + ph - i, sh, oh, oy)) continue;
                for (int j = 0; j < kw; ++j) {
                    int ox;
                    if (!window_hit(xx + pw - j, sw, ow, ox)) continue;
                    acc += channel[(i * kw + j) * p + oy * ow + ox];
                }
            }
            dst[pix] = acc;
        }
    }
}
