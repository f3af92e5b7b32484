// Convolution as GEMM (Backend.im2col / col2im). im2col unfolds the compact NCHW input into
//   cols[s][(c*KH + i)*KW + j][oy*OW + ox] = x[s][c][oy*SH - PH + i][ox*SW - PW + j]   (0 in the padding)
// i.e. compact (N, C*KH*KW, OH*OW), so W (OC, C*KH*KW) x cols[s] is sample s's NCHW output directly
// (a strided-batched GEMM with the weight shared). col2im is its adjoint: every column entry summed back
// into its pixel.
#include "common.cuh"

extern "C" __global__ void im2col_f32(const float* __restrict__ x, float* __restrict__ cols, Window2d g) {
    const long long p = g.oh * g.ow, rows = g.c * g.kh * g.kw;
    GRID_STRIDE_LOOP(idx, g.n * rows * p) {
        const long long q = idx % p, row = (idx / p) % rows, s = idx / (p * rows);
        const long long ox = q % g.ow, oy = q / g.ow;
        const long long j = row % g.kw, i = (row / g.kw) % g.kh, c = row / (g.kw * g.kh);
        const long long y = oy * g.sh - g.ph + i, xx = ox * g.sw - g.pw + j;
        cols[idx] = (y >= 0 && y < g.h && xx >= 0 && xx < g.w) ? x[((s * g.c + c) * g.h + y) * g.w + xx] : 0.f;
    }
}

// One thread per input pixel gathers every column entry that read it: no atomics, deterministic, and every
// pixel is written (overwrites dx).
extern "C" __global__ void col2im_f32(const float* __restrict__ cols, float* __restrict__ dx, Window2d g) {
    const long long p = g.oh * g.ow, rows = g.c * g.kh * g.kw;
    GRID_STRIDE_LOOP(idx, g.n * g.c * g.h * g.w) {
        const long long xx = idx % g.w, y = (idx / g.w) % g.h, c = (idx / (g.w * g.h)) % g.c,
                        s = idx / (g.w * g.h * g.c);
        const float* sample = cols + s * rows * p;
        float acc = 0.f;
        for (long long i = 0; i < g.kh; ++i) {
            const long long ty = y + g.ph - i;                   // = oy * SH when window row i read pixel row y
            if (ty < 0 || ty % g.sh != 0) continue;
            const long long oy = ty / g.sh;
            if (oy >= g.oh) continue;
            for (long long j = 0; j < g.kw; ++j) {
                const long long tx = xx + g.pw - j;
                if (tx < 0 || tx % g.sw != 0) continue;
                const long long ox = tx / g.sw;
                if (ox >= g.ow) continue;
                acc += sample[((c * g.kh + i) * g.kw + j) * p + oy * g.ow + ox];
            }
        }
        dx[idx] = acc;
    }
}
