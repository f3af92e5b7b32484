// 2-D max pooling on NCHW float32. Padding counts as -infinity (never chosen). Ties go to the first
// maximum in row-major window order, as on the CPU backend, so both backends route gradients alike.
#include "common.cuh"

struct PoolGeometry {            // all 64-bit: passed from Java as a long[12]
    long long n, c, h, w;
    long long kh, kw, sh, sw, ph, pw;
    long long oh, ow;
};

// Position (ih*W + iw) of the window's first maximum, or -1 if the window is entirely padding.
__device__ __forceinline__ long long window_argmax(const float* plane, const PoolGeometry& g,
                                                   long long oh, long long ow, float* best_out) {
    float best = -INFINITY;
    long long at = -1;
    for (long long kh = 0; kh < g.kh; ++kh) {
        const long long ih = oh * g.sh - g.ph + kh;
        if (ih < 0 || ih >= g.h) continue;
        for (long long kw = 0; kw < g.kw; ++kw) {
            const long long iw = ow * g.sw - g.pw + kw;
            if (iw < 0 || iw >= g.w) continue;
            const float v = plane[ih * g.w + iw];
            if (at < 0 || v > best || (v != v && best == best)) { best = v; at = ih * g.w + iw; }
        }
    }
    *best_out = best;
    return at;
}

extern "C" __global__ void maxpool2d_forward_f32(const float* __restrict__ x, float* __restrict__ y, PoolGeometry g) {
    GRID_STRIDE_LOOP(idx, g.n * g.c * g.oh * g.ow) {
        const long long ow = idx % g.ow, oh = (idx / g.ow) % g.oh, nc = idx / (g.ow * g.oh);
        float best;
        const long long at = window_argmax(x + nc * g.h * g.w, g, oh, ow, &best);
        y[idx] = at < 0 ? -INFINITY : best;
    }
}

// One thread per input element: sums the gradients of every window whose maximum it was (gather, no
// atomics). Windows are re-scanned instead of storing indices, so forward needs no extra buffer.
extern "C" __global__ void maxpool2d_backward_f32(const float* __restrict__ x, const float* __restrict__ gy,
                                                  float* __restrict__ gx, PoolGeometry g) {
    GRID_STRIDE_LOOP(idx, g.n * g.c * g.h * g.w) {
        const long long iw = idx % g.w, ih = (idx / g.w) % g.h, nc = idx / (g.w * g.h);
        const float* plane = x + nc * g.h * g.w;
        const long long self = ih * g.w + iw;
        // windows oh with oh*sh - ph <= ih <= oh*sh - ph + kh - 1
        const long long oh_lo = max(0LL, (ih + g.ph - g.kh + g.sh) / g.sh);
        const long long oh_hi = min(g.oh - 1, (ih + g.ph) / g.sh);
        const long long ow_lo = max(0LL, (iw + g.pw - g.kw + g.sw) / g.sw);
        const long long ow_hi = min(g.ow - 1, (iw + g.pw) / g.sw);
        float acc = 0.f;
        for (long long oh = oh_lo; oh <= oh_hi; ++oh) {
            for (long long ow = ow_lo; ow <= ow_hi; ++ow) {
                float best;
                if (window_argmax(plane, g, oh, ow, &best) == self) acc += gy[(nc * g.oh + oh) * g.ow + ow];
            }
        }
        gx[idx] = acc;
    }
}
