// Elementwise float32 ops of the Backend contract (org.mpi2nccl.tensor.BinaryOp / UnaryOp), two kernels per
// binary op and one per unary op:
//   ew_OP_f32         out[i] = a[i] OP b[i]   (float4 loads when every pointer is 16-byte aligned, several
//                     loads in flight per thread: see map_unary/map_binary)
//   ew_OP_scalar_f32  out[i] = a[i] OP s, or s OP a[i] when `reversed` is non-zero
//   ew_OP_bcast_f32   out[o,c,i] = a[o,c,i] OP b[c] over (outer, channels, inner), or b[c] OP a[o,c,i] when
//                     `reversed` (Backend.binaryBroadcast: a bias, a per-channel scale, a per-row value)
// RSUB and RDIV need no kernels of their own: they are SUB and DIV with the operands swapped.
// Operands are compact; `out` may be the same buffer as an input (each element is read before it is written).
// The op list is written once (the X-macros below) so every op exists in every form.
#include "common.cuh"

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
    X(le, (a <= b) ? 1.f : 0.f)

// sign keeps NaN (Math.signum); relu maps NaN to 0 like the reference (a > 0 ? a : 0).
#define UNARY_OPS(X)                                            \
    X(neg, -a)                                                  \
    X(abs, fabsf(a))                                            \
    X(exp, expf(a))                                             \
    X(log, logf(a))                                             \
    X(sqrt, sqrtf(a))                                           \
    X(tanh, tanhf(a))                                           \
    X(relu, (a > 0.f) ? a : 0.f)                                \
    X(sigmoid, 1.f / (1.f + expf(-a)))                          \
    X(sign, (a > 0.f) ? 1.f : ((a < 0.f) ? -1.f : a))           \
    X(square, a * a)                                            \
    X(reciprocal, 1.f / a)

// out[i] = f(a[i]) and out[i] = f(a[i], b[i]) over n elements: float4 loads and stores when every pointer is
// 16-byte aligned (the last n % 4 elements one by one), LOADS_IN_FLIGHT loads per thread in flight.
template <class F>
__device__ __forceinline__ void map_unary(const float* A, float* out, long long n, F f) {
    if (aligned16(A) && aligned16(out)) {
        const long long n4 = n >> 2;
        const float4* A4 = reinterpret_cast<const float4*>(A);
        float4* O4 = reinterpret_cast<float4*>(out);
        grid_stride_batched<LOADS_IN_FLIGHT>(
            n4, [=](long long i) { return A4[i]; },
            [=](long long i, float4 a) { O4[i] = make_float4(f(a.x), f(a.y), f(a.z), f(a.w)); });
        A += n4 << 2;
        out += n4 << 2;
        n -= n4 << 2;
    }
    grid_stride_batched<LOADS_IN_FLIGHT>(n, [=](long long i) { return A[i]; }, [=](long long i, float a) { out[i] = f(a); });
}

struct float4x2 { float4 a, b; };

template <class F>
__device__ __forceinline__ void map_binary(const float* A, const float* B, float* out, long long n, F f) {
    if (aligned16(A) && aligned16(B) && aligned16(out)) {
        const long long n4 = n >> 2;
        const float4* A4 = reinterpret_cast<const float4*>(A);
        const float4* B4 = reinterpret_cast<const float4*>(B);
        float4* O4 = reinterpret_cast<float4*>(out);
        grid_stride_batched<LOADS_IN_FLIGHT>(
            n4, [=](long long i) { return float4x2{A4[i], B4[i]}; },
            [=](long long i, float4x2 v) {
                O4[i] = make_float4(f(v.a.x, v.b.x), f(v.a.y, v.b.y), f(v.a.z, v.b.z), f(v.a.w, v.b.w));
            });
        A += n4 << 2;
        B += n4 << 2;
        out += n4 << 2;
        n -= n4 << 2;
    }
    grid_stride_batched<LOADS_IN_FLIGHT>(n, [=](long long i) { return make_float2(A[i], B[i]); },
                                         [=](long long i, float2 v) { out[i] = f(v.x, v.y); });
}

#define DEFINE_BINARY(NAME, EXPR)                                                                      \
    __device__ __forceinline__ float op_##NAME(float a, float b) { return EXPR; }                     \
    extern "C" __global__ void ew_##NAME##_f32(const float* A, const float* B, float* out, long long n) { \
        map_binary(A, B, out, n, [](float a, float b) { return op_##NAME(a, b); });                    \
    }                                                                                                  \
    /* `reversed` is the same for every thread: branch once, not per element */                       \
    extern "C" __global__ void ew_##NAME##_scalar_f32(const float* A, float s, float* out, long long n, \
                                                      int reversed) {                                 \
        if (reversed) map_unary(A, out, n, [=](float a) { return op_##NAME(s, a); });                  \
        else          map_unary(A, out, n, [=](float a) { return op_##NAME(a, s); });                  \
    }                                                                                                  \
    extern "C" __global__ void ew_##NAME##_bcast_f32(const float* A, const float* __restrict__ B,      \
                                                     float* out, long long outer, long long channels,  \
                                                     long long inner, int reversed) {                  \
        if (inner == 1) {                                                                              \
            if (reversed) { GRID_STRIDE_LOOP(i, outer * channels) out[i] = op_##NAME(B[i % channels], A[i]); } \
            else          { GRID_STRIDE_LOOP(i, outer * channels) out[i] = op_##NAME(A[i], B[i % channels]); } \
        } else {                                                                                       \
            if (reversed) { GRID_STRIDE_LOOP(i, outer * channels * inner) out[i] = op_##NAME(B[(i / inner) % channels], A[i]); } \
            else          { GRID_STRIDE_LOOP(i, outer * channels * inner) out[i] = op_##NAME(A[i], B[(i / inner) % channels]); } \
        }                                                                                              \
    }

#define DEFINE_UNARY(NAME, EXPR)                                                                       \
    __device__ __forceinline__ float op_##NAME(float a) { return EXPR; }                              \
    extern "C" __global__ void ew_##NAME##_f32(const float* A, float* out, long long n) {             \
        map_unary(A, out, n, [](float a) { return op_##NAME(a); });                                    \
    }

BINARY_OPS(DEFINE_BINARY)
UNARY_OPS(DEFINE_UNARY)
