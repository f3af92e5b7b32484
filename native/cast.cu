// Conversions between float32 and the other element types the lessons move around: half and bfloat16
// (compressed gradients for all-reduce), int32 (labels, indices) and uint8 (raw image bytes).
#include "common.cuh"
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void cast_f32_to_f16(const float* __restrict__ in, __half* __restrict__ out, long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = __float2half_rn(in[i]);
}
extern "C" __global__ void cast_f16_to_f32(const __half* __restrict__ in, float* __restrict__ out, long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = __half2float(in[i]);
}
extern "C" __global__ void cast_f32_to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out,
                                            long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = __float2bfloat16_rn(in[i]);
}
extern "C" __global__ void cast_bf16_to_f32(const __nv_bfloat16* __restrict__ in, float* __restrict__ out,
                                            long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = __bfloat162float(in[i]);
}
extern "C" __global__ void cast_i32_to_f32(const int* __restrict__ in, float* __restrict__ out, long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = (float)in[i];
}
// Java's (int) cast: truncation toward zero, NaN -> 0, saturating at the int range.
extern "C" __global__ void cast_f32_to_i32(const float* __restrict__ in, int* __restrict__ out, long long n) {
    GRID_STRIDE_LOOP(i, n) {
        const float v = in[i];
        out[i] = (v != v) ? 0 : (v >= 2147483647.f ? 2147483647 : (v <= -2147483648.f ? (-2147483647 - 1) : (int)v));
    }
}
// out = in * scale + shift (e.g. pixel bytes to [0, 1] with scale 1/255)
extern "C" __global__ void cast_u8_to_f32(const unsigned char* __restrict__ in, float* __restrict__ out,
                                          long long n, float scale, float shift) {
    GRID_STRIDE_LOOP(i, n) out[i] = (float)in[i] * scale + shift;
}
