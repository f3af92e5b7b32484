// Gradients of activations that composing elementwise primitives would take two launches and a temporary for
// (Backend.reluBackward): one pass each.
#include "common.cuh"

// dx = dy * (x > 0 ? 1 : 0)   (a NaN or infinite dy still gives NaN where x <= 0, as the product does)
extern "C" __global__ void relu_backward_f32(const float* __restrict__ x, const float* dy,
                                             float* dx, long long n) {   // dx may be dy
    GRID_STRIDE_LOOP(i, n) dx[i] = dy[i] * (x[i] > 0.f ? 1.f : 0.f);
}
