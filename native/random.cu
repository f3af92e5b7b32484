// Counter-based random numbers: value i depends only on (seed, i), so results do not depend on the
// launch configuration and the CPU side can reproduce them with the same function
// (org.mpi2nccl.cuda.CounterRandom is the Java twin, and a test holds the two to the same bits).
#include "common.cuh"

// SplitMix64 finalizer on seed + i * golden gamma; top 24 bits -> a float in [0, 1).
__device__ __forceinline__ float counter_uniform(unsigned long long seed, unsigned long long i) {
    unsigned long long z = seed + (i + 1ULL) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

extern "C" __global__ void uniform_f32(float* __restrict__ out, long long n, unsigned long long seed,
                                       float low, float high) {
    GRID_STRIDE_LOOP(i, n) out[i] = low + (high - low) * counter_uniform(seed, (unsigned long long)i);
}

// Inverted dropout mask: keep with probability 1 - p, kept entries scaled by 1 / (1 - p).
extern "C" __global__ void dropout_mask_f32(float* __restrict__ mask, long long n, unsigned long long seed, float p) {
    const float keep_scale = p < 1.f ? 1.f / (1.f - p) : 0.f;
    GRID_STRIDE_LOOP(i, n) mask[i] = counter_uniform(seed, (unsigned long long)i) >= p ? keep_scale : 0.f;
}
