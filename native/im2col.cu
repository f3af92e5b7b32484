// Convolution as GEMM: im2col unfolds NCHW input patches into a matrix, col2im folds a matrix of
// patch gradients back (summing where patches overlap). Layout of the column matrix:
//   col[(c*KH + kh)*KW + kw][(n*OH + oh)*OW + ow] = x[n][c][oh*SH - PH + kh][ow*SW - PW + kw]   (0 outside)
// so conv2d forward is W[O, C*KH*KW] @ col[C*KH*KW, N*OH*OW] and both backward GEMMs are plain too.
#include "common.cuh"

struct ConvGeometry {            // all 64-bit: passed from Java as a long[15]
    long long n, c, h, w;        // input
    long long kh, kw;            // kernel
    long long sh, sw;            // stride
    long long ph, pw;            // zero padding
    long long oh, ow;            // output (the Java side computes and checks it)
    long long dh, dw;            // dilation
    long long unused;
};

extern "C" __global__ void im2col_f32(const float* __restrict__ x, float* __restrict__ col, ConvGeometry g) {
    const long long cols = g.n * g.oh * g.ow;
    GRID_STRIDE_LOOP(idx, g.c * g.kh * g.kw * cols) {
        const long long j = idx % cols, rowk = idx / cols;
        const long long ow = j % g.ow, oh = (j / g.ow) % g.oh, n = j / (g.ow * g.oh);
        const long long kw = rowk % g.kw, kh = (rowk / g.kw) % g.kh, c = rowk / (g.kw * g.kh);
        const long long ih = oh * g.sh - g.ph + kh * g.dh, iw = ow * g.sw - g.pw + kw * g.dw;
        col[idx] = (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) ? x[((n * g.c + c) * g.h + ih) * g.w + iw] : 0.f;
    }
}

// One thread per input element gathers every column entry that read it: no atomics, deterministic.
extern "C" __global__ void col2im_f32(const float* __restrict__ col, float* __restrict__ x, ConvGeometry g) {
    const long long cols = g.n * g.oh * g.ow;
    GRID_STRIDE_LOOP(idx, g.n * g.c * g.h * g.w) {
        const long long iw = idx % g.w, ih = (idx / g.w) % g.h, c = (idx / (g.w * g.h)) % g.c,
                        n = idx / (g.w * g.h * g.c);
        float acc = 0.f;
        for (long long kh = 0; kh < g.kh; ++kh) {
            const long long th = ih + g.ph - kh * g.dh;          // = oh * sh when this tap read (ih, iw)
            if (th < 0 || th % g.sh != 0) continue;
            const long long oh = th / g.sh;
            if (oh >= g.oh) continue;
            for (long long kw = 0; kw < g.kw; ++kw) {
                const long long tw = iw + g.pw - kw * g.dw;
                if (tw < 0 || tw % g.sw != 0) continue;
                const long long ow = tw / g.sw;
                if (ow >= g.ow) continue;
                acc += col[((c * g.kh + kh) * g.kw + kw) * cols + (n * g.oh + oh) * g.ow + ow];
            }
        }
        x[idx] = acc;
    }
}

// [O, N*P] (the GEMM result, P = OH*OW) -> [N, O, P] (NCHW), plus an optional per-channel bias.
extern "C" __global__ void conv_output_to_nchw_f32(const float* __restrict__ y2, const float* __restrict__ bias,
                                                   float* __restrict__ out, long long n, long long o, long long p) {
    GRID_STRIDE_LOOP(idx, n * o * p) {
        const long long q = idx % p, ch = (idx / p) % o, b = idx / (p * o);
        out[idx] = y2[(ch * n + b) * p + q] + (bias != nullptr ? bias[ch] : 0.f);
    }
}

// [N, O, P] (output gradient, NCHW) -> [O, N*P], the layout the backward GEMMs take.
extern "C" __global__ void nchw_to_conv_output_f32(const float* __restrict__ gy, float* __restrict__ gy2,
                                                   long long n, long long o, long long p) {
    GRID_STRIDE_LOOP(idx, n * o * p) {
        const long long q = idx % p, b = (idx / p) % n, ch = idx / (p * n);
        gy2[idx] = gy[(b * o + ch) * p + q];
    }
}
