// The toolkit's counter-based random numbers (org.mpi2nccl.tensor.CounterRandom), bit for bit: element i of
// a fill is a function of (seed, counter + i) only, so the CPU and every GPU produce the same weights.
//   bits    = mix64(seed * 0x9E3779B97F4A7C15 + counter)          (SplitMix64 finalizer, wrapping 64-bit)
//   uniform = (bits >> 40) * 2^-24                                 in [0, 1), exact in float
//   normal  = sqrt(-2 ln u1) cos(2 pi u2) in double, u1 = ((bits >> 40) + 1) 2^-24, u2 = ((bits >> 16) & 0xFFFFFF) 2^-24
// The final scale-and-shift uses __fmul_rn/__fadd_rn so nvcc cannot fuse it into an FMA: Java rounds the
// product and the sum separately, and the uniform fill must match it exactly.
#include "common.cuh"

__device__ __forceinline__ unsigned long long counter_bits(unsigned long long seed, unsigned long long counter) {
    unsigned long long z = seed * 0x9E3779B97F4A7C15ULL + counter;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// out[i] = low + span * uniform(seed, counter + i), span = high - low rounded to float on the host
extern "C" __global__ void fill_uniform_f32(float* __restrict__ out, long long n, float low, float span,
                                            unsigned long long seed, unsigned long long counter) {
    GRID_STRIDE_LOOP(i, n) {
        const unsigned long long x = counter_bits(seed, counter + (unsigned long long)i);
        const float u = (float)((double)(x >> 40) * (1.0 / 16777216.0));
        out[i] = __fadd_rn(low, __fmul_rn(span, u));
    }
}

// out[i] = mean + std * normal(seed, counter + i)
extern "C" __global__ void fill_normal_f32(float* __restrict__ out, long long n, float mean, float stddev,
                                           unsigned long long seed, unsigned long long counter) {
    GRID_STRIDE_LOOP(i, n) {
        const unsigned long long x = counter_bits(seed, counter + (unsigned long long)i);
        const double u1 = (double)((x >> 40) + 1ULL) * (1.0 / 16777216.0);
        const double u2 = (double)((x >> 16) & 0xFFFFFFULL) * (1.0 / 16777216.0);
        const float z = (float)(sqrt(-2.0 * log(u1)) * cos(2.0 * 3.141592653589793 * u2));
        out[i] = __fadd_rn(mean, __fmul_rn(stddev, z));
    }
}
