// 2-D max pooling on compact NCHW float32 (Backend.maxPool2d / maxPool2dBackward). Padding never wins.
// Ties go to the first maximum in row-major window order (an element replaces the best only when strictly
// greater), as on the CPU, so both backends route gradients to the same pixel.
#include "common.cuh"

// Position (y*W + x) of the window's first maximum, or -1 when the window lies entirely in the padding.
__device__ __forceinline__ long long window_argmax(const float* plane, const Window2d& g, long long oy, long long ox) {
    float best = 0.f;
    long long at = -1;
    for (long long i = 0; i < g.kh; ++i) {
        const long long y = oy * g.sh - g.ph + i;
        if (y < 0 || y >= g.h) continue;
        for (long long j = 0; j < g.kw; ++j) {
            const long long x = ox * g.sw - g.pw + j;
            if (x < 0 || x >= g.w) continue;
            const float v = plane[y * g.w + x];
            if (at < 0 || v > best) { best = v; at = y * g.w + x; }
        }
    }
    return at;
}

extern "C" __global__ void maxpool2d_forward_f32(const float* __restrict__ x, float* __restrict__ out, Window2d g) {
    GRID_STRIDE_LOOP(idx, g.n * g.c * g.oh * g.ow) {
        const PlanePosition o = plane_position(idx, g.oh, g.ow);
        const float* src = x + o.plane * g.h * g.w;
        const long long at = window_argmax(src, g, o.row, o.col);
        out[idx] = at < 0 ? -INFINITY : src[at];
    }
}

// One thread per input pixel sums dy over the windows whose maximum it is (gather, no atomics). The windows
// are re-scanned from x instead of storing indices, so the forward pass needs no extra buffer.
extern "C" __global__ void maxpool2d_backward_f32(const float* __restrict__ x, const float* __restrict__ dy,
                                                  float* __restrict__ dx, Window2d g) {
    GRID_STRIDE_LOOP(idx, g.n * g.c * g.h * g.w) {
        const PlanePosition at = plane_position(idx, g.h, g.w);
        const long long plane = at.plane, py = at.row, px = at.col;
        const float* src = x + plane * g.h * g.w;
        const long long self = py * g.w + px;
        // windows with oy*SH - PH <= py <= oy*SH - PH + KH - 1 (likewise for x)
        const long long oy_lo = max(0LL, (py + g.ph - g.kh + g.sh) / g.sh);
        const long long oy_hi = min(g.oh - 1, (py + g.ph) / g.sh);
        const long long ox_lo = max(0LL, (px + g.pw - g.kw + g.sw) / g.sw);
        const long long ox_hi = min(g.ow - 1, (px + g.pw) / g.sw);
        float acc = 0.f;
        for (long long oy = oy_lo; oy <= oy_hi; ++oy)
            for (long long ox = ox_lo; ox <= ox_hi; ++ox)
                if (window_argmax(src, g, oy, ox) == self) acc += dy[(plane * g.oh + oy) * g.ow + ox];
        dx[idx] = acc;
    }
}
