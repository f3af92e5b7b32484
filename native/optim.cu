// Optimizer updates, one fused pass per parameter tensor (PyTorch's update rules, so runs compare).
#include "common.cuh"

// SGD with momentum and L2 weight decay:
//   g = grad + wd * p;  v = momentum * v + (1 - dampening) * g;  p -= lr * (nesterov ? g + momentum * v : v)
// With momentum == 0 the velocity buffer is not touched (may be null).
extern "C" __global__ void sgd_update_f32(float* __restrict__ p, const float* __restrict__ grad,
                                          float* __restrict__ v, long long n, float lr, float momentum,
                                          float dampening, float weight_decay, int nesterov) {
    GRID_STRIDE_LOOP(i, n) {
        float g = grad[i] + weight_decay * p[i];
        if (momentum != 0.f) {
            const float vi = momentum * v[i] + (1.f - dampening) * g;
            v[i] = vi;
            g = nesterov ? g + momentum * vi : vi;
        }
        p[i] -= lr * g;
    }
}

// Adam (decoupled = 0: L2 decay added to the gradient) or AdamW (decoupled = 1: p *= 1 - lr * wd).
// bias1 = 1 - beta1^t and bias2 = 1 - beta2^t are computed on the host for step t.
extern "C" __global__ void adam_update_f32(float* __restrict__ p, const float* __restrict__ grad,
                                           float* __restrict__ m, float* __restrict__ v, long long n,
                                           float lr, float beta1, float beta2, float eps, float weight_decay,
                                           float bias1, float bias2, int decoupled) {
    GRID_STRIDE_LOOP(i, n) {
        float g = grad[i];
        if (decoupled) p[i] *= 1.f - lr * weight_decay;
        else g += weight_decay * p[i];
        const float mi = beta1 * m[i] + (1.f - beta1) * g;
        const float vi = beta2 * v[i] + (1.f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        p[i] -= lr * (mi / bias1) / (sqrtf(vi / bias2) + eps);
    }
}
