// Optimizer steps of the Backend contract, in place, one fused pass per parameter tensor (PyTorch's rules).
#include "common.cuh"

// g = grad + wd * p;  v = momentum * v + g (skipped, v unused, when momentum == 0);  p -= lr * v
extern "C" __global__ void sgd_step_f32(float* __restrict__ p, const float* __restrict__ grad, float* __restrict__ v,
                                        long long n, float lr, float momentum, float weight_decay) {
    GRID_STRIDE_LOOP(i, n) {
        float d = grad[i] + weight_decay * p[i];
        if (momentum != 0.f) {
            d = momentum * v[i] + d;
            v[i] = d;
        }
        p[i] -= lr * d;
    }
}

// g = grad + wd * p; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr * (m/c1) / (sqrt(v/c2) + eps),
// with c1 = 1 - b1^step and c2 = 1 - b2^step computed on the host (in double, rounded to float).
extern "C" __global__ void adam_step_f32(float* __restrict__ p, const float* __restrict__ grad, float* __restrict__ m,
                                         float* __restrict__ v, long long n, float lr, float beta1, float beta2,
                                         float eps, float weight_decay, float c1, float c2) {
    GRID_STRIDE_LOOP(i, n) {
        const float d = grad[i] + weight_decay * p[i];
        const float mi = beta1 * m[i] + (1.f - beta1) * d;
        const float vi = beta2 * v[i] + (1.f - beta2) * d * d;
        m[i] = mi;
        v[i] = vi;
        p[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
    }
}

// Backend.sgdSteps: sgd_step_f32 over up to SGD_TENSORS tensors in one launch (a small model's optimizer step was
// one launch per parameter). The list is a kernel parameter, passed by value: nothing to upload.
#define SGD_TENSORS 16
struct SgdTensors {
    long long count;
    long long n[SGD_TENSORS];
    float* p[SGD_TENSORS];
    const float* grad[SGD_TENSORS];
    float* v[SGD_TENSORS];             // null when momentum == 0
};

__device__ __forceinline__ void sgd_tensors(const SgdTensors& t, float lr, float momentum, float weight_decay) {
    for (long long k = 0; k < t.count; ++k) {
        float* __restrict__ p = t.p[k];
        const float* __restrict__ grad = t.grad[k];
        float* __restrict__ v = t.v[k];
        GRID_STRIDE_LOOP(i, t.n[k]) {
            float d = grad[i] + weight_decay * p[i];
            if (momentum != 0.f) {
                d = momentum * v[i] + d;
                v[i] = d;
            }
            p[i] -= lr * d;
        }
    }
}

extern "C" __global__ void sgd_steps_f32(SgdTensors t, float lr, float momentum, float weight_decay) {
    sgd_tensors(t, lr, momentum, weight_decay);
}

// Backend.sgdStepsLrFrom: the same with the learning rate read from device memory when the kernel runs, not fixed when
// it is queued: a step recorded once as a CUDA graph then follows a rate that changes between replays (a warm-up).
extern "C" __global__ void sgd_steps_lr_f32(SgdTensors t, const float* __restrict__ lr_at, float momentum, float weight_decay) {
    sgd_tensors(t, *lr_at, momentum, weight_decay);
}

// Backend.adamSteps: adam_step_f32 over up to SGD_TENSORS tensors in one launch, the list passed by value.
struct AdamTensors {
    long long count;
    long long n[SGD_TENSORS];
    float* p[SGD_TENSORS];
    const float* grad[SGD_TENSORS];
    float* m[SGD_TENSORS];
    float* v[SGD_TENSORS];
};

extern "C" __global__ void adam_steps_f32(AdamTensors t, float lr, float beta1, float beta2, float eps,
                                          float weight_decay, float c1, float c2) {
    for (long long k = 0; k < t.count; ++k) {
        float* __restrict__ p = t.p[k];
        const float* __restrict__ grad = t.grad[k];
        float* __restrict__ m = t.m[k];
        float* __restrict__ v = t.v[k];
        GRID_STRIDE_LOOP(i, t.n[k]) {
            const float d = grad[i] + weight_decay * p[i];
            const float mi = beta1 * m[i] + (1.f - beta1) * d;
            const float vi = beta2 * v[i] + (1.f - beta2) * d * d;
            m[i] = mi;
            v[i] = vi;
            p[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
        }
    }
}
