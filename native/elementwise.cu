// Elementwise float32 ops: binary (tensor op tensor, with broadcasting through strides), tensor op
// scalar, and unary. Each op gets three kernels:
//   ew_OP_f32          contiguous, same length (float4 loads when every pointer is 16-byte aligned)
//   ew_OP_strided_f32  a and b are views (stride 0 on broadcast axes) of the compact output's shape
//   ew_OP_scalar_f32   a op s, or s op a when `reversed` is non-zero
// The op list is written once (the X-macros below) so every op exists in every form.
#include "common.cuh"

// Binary ops. The *_backward ones fuse an activation's derivative with the incoming gradient:
// a = forward input x (relu) or forward output y (tanh, sigmoid), b = gradient of the output.
#define BINARY_OPS(X)                                           \
    X(add, a + b)                                               \
    X(sub, a - b)                                               \
    X(mul, a * b)                                               \
    X(div, a / b)                                               \
    X(pow, powf(a, b))                                          \
    X(maximum, java_max(a, b))                                  \
    X(minimum, java_min(a, b))                                  \
    X(eq, (a == b) ? 1.f : 0.f)                                 \
    X(ne, (a != b) ? 1.f : 0.f)                                 \
    X(gt, (a > b) ? 1.f : 0.f)                                  \
    X(ge, (a >= b) ? 1.f : 0.f)                                 \
    X(lt, (a < b) ? 1.f : 0.f)                                  \
    X(le, (a <= b) ? 1.f : 0.f)                                 \
    X(relu_backward, (a > 0.f) ? b : 0.f)                       \
    X(tanh_backward, b * (1.f - a * a))                         \
    X(sigmoid_backward, b * a * (1.f - a))

#define UNARY_OPS(X)                                            \
    X(neg, -a)                                                  \
    X(abs, fabsf(a))                                            \
    X(exp, expf(a))                                             \
    X(log, logf(a))                                             \
    X(sqrt, sqrtf(a))                                           \
    X(rsqrt, rsqrtf(a))                                         \
    X(square, a * a)                                            \
    X(reciprocal, 1.f / a)                                      \
    X(sign, (a > 0.f) ? 1.f : ((a < 0.f) ? -1.f : 0.f))         \
    X(relu, (a > 0.f) ? a : 0.f)                                \
    X(tanh, tanhf(a))                                           \
    X(sigmoid, 1.f / (1.f + expf(-a)))

__device__ __forceinline__ bool aligned16(const void* p) { return ((uintptr_t)p & 15u) == 0; }

#define DEFINE_BINARY(NAME, EXPR)                                                                      \
    __device__ __forceinline__ float op_##NAME(float a, float b) { return EXPR; }                     \
    extern "C" __global__ void ew_##NAME##_f32(const float* __restrict__ A, const float* __restrict__ B, \
                                               float* __restrict__ out, long long n) {                 \
        if (aligned16(A) && aligned16(B) && aligned16(out)) {                                          \
            const long long n4 = n >> 2;                                                               \
            const float4* A4 = reinterpret_cast<const float4*>(A);                                     \
            const float4* B4 = reinterpret_cast<const float4*>(B);                                     \
            float4* O4 = reinterpret_cast<float4*>(out);                                               \
            GRID_STRIDE_LOOP(i, n4) {                                                                  \
                const float4 a = A4[i], b = B4[i];                                                     \
                O4[i] = make_float4(op_##NAME(a.x, b.x), op_##NAME(a.y, b.y),                          \
                                    op_##NAME(a.z, b.z), op_##NAME(a.w, b.w));                         \
            }                                                                                          \
            GRID_STRIDE_LOOP(j, n - (n4 << 2)) {                                                       \
                const long long i = (n4 << 2) + j;                                                     \
                out[i] = op_##NAME(A[i], B[i]);                                                        \
            }                                                                                          \
        } else {                                                                                       \
            GRID_STRIDE_LOOP(i, n) out[i] = op_##NAME(A[i], B[i]);                                     \
        }                                                                                              \
    }                                                                                                  \
    extern "C" __global__ void ew_##NAME##_strided_f32(const float* __restrict__ A, Layout la,        \
                                                       const float* __restrict__ B, Layout lb,        \
                                                       float* __restrict__ out, long long n) {        \
        GRID_STRIDE_LOOP(i, n) out[i] = op_##NAME(A[layout_offset(la, i)], B[layout_offset(lb, i)]);   \
    }                                                                                                  \
    extern "C" __global__ void ew_##NAME##_scalar_f32(const float* __restrict__ A, float s,           \
                                                      float* __restrict__ out, long long n,           \
                                                      int reversed) {                                 \
        if (reversed) { GRID_STRIDE_LOOP(i, n) out[i] = op_##NAME(s, A[i]); }                          \
        else          { GRID_STRIDE_LOOP(i, n) out[i] = op_##NAME(A[i], s); }                          \
    }

#define DEFINE_UNARY(NAME, EXPR)                                                                       \
    __device__ __forceinline__ float op_##NAME(float a) { return EXPR; }                              \
    extern "C" __global__ void ew_##NAME##_f32(const float* __restrict__ A, float* __restrict__ out,  \
                                               long long n) {                                          \
        if (aligned16(A) && aligned16(out)) {                                                          \
            const long long n4 = n >> 2;                                                               \
            const float4* A4 = reinterpret_cast<const float4*>(A);                                     \
            float4* O4 = reinterpret_cast<float4*>(out);                                               \
            GRID_STRIDE_LOOP(i, n4) {                                                                  \
                const float4 a = A4[i];                                                                \
                O4[i] = make_float4(op_##NAME(a.x), op_##NAME(a.y), op_##NAME(a.z), op_##NAME(a.w));   \
            }                                                                                          \
            GRID_STRIDE_LOOP(j, n - (n4 << 2)) {                                                       \
                const long long i = (n4 << 2) + j;                                                     \
                out[i] = op_##NAME(A[i]);                                                              \
            }                                                                                          \
        } else {                                                                                       \
            GRID_STRIDE_LOOP(i, n) out[i] = op_##NAME(A[i]);                                           \
        }                                                                                              \
    }                                                                                                  \
    extern "C" __global__ void ew_##NAME##_strided_f32(const float* __restrict__ A, Layout la,        \
                                                       float* __restrict__ out, long long n) {        \
        GRID_STRIDE_LOOP(i, n) out[i] = op_##NAME(A[layout_offset(la, i)]);                            \
    }

BINARY_OPS(DEFINE_BINARY)
UNARY_OPS(DEFINE_UNARY)

// out = a * alpha + b * beta (axpby): the fused update several optimizers and the gradient
// accumulation of autograd need, one pass instead of three.
extern "C" __global__ void ew_axpby_f32(const float* __restrict__ A, float alpha, const float* __restrict__ B,
                                        float beta, float* __restrict__ out, long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = A[i] * alpha + B[i] * beta;
}

// clamp(a, lo, hi)
extern "C" __global__ void ew_clamp_f32(const float* __restrict__ A, float lo, float hi,
                                        float* __restrict__ out, long long n) {
    GRID_STRIDE_LOOP(i, n) out[i] = java_min(java_max(A[i], lo), hi);
}
