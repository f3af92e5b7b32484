// Fill and the strided copy behind compact(), broadcasting, permutes and slice assignment (Backend.fill,
// fillStrided, copyStrided). Offsets are folded into the Layout structs by the Java side.
#include "common.cuh"

extern "C" __global__ void fill_f32(float* __restrict__ out, float value, long long n) {
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
