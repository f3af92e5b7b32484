// Softmax cross-entropy with integer class labels stored as float32 (the NDArray dtype).
// A label outside [0, cols) gives a NaN loss for its row (never an out-of-bounds read), so a wrong
// label file shows up as a NaN loss instead of silently training on garbage.
#include "common.cuh"

__device__ __forceinline__ bool valid_label(float label, long long cols) {
    return label >= 0.f && label < (float)cols && label == floorf(label);
}

__device__ __forceinline__ float row_logsumexp(const float* x, long long cols, int lane) {
    float m = -INFINITY;
    for (long long c = lane; c < cols; c += 32) m = java_max(m, x[c]);
    m = warp_max(m);
    float s = 0.f;
    for (long long c = lane; c < cols; c += 32) s += expf(x[c] - m);
    return m + logf(warp_sum(s));
}

__device__ __forceinline__ void cross_entropy_grad_row(const float* x, float label, float* g, long long cols,
                                                       float scale, int lane) {
    const float lse = row_logsumexp(x, cols, lane);
    const bool ok = valid_label(label, cols);
    for (long long c = lane; c < cols; c += 32) {
        const float p = expf(x[c] - lse);
        g[c] = ok ? scale * (p - ((c == (long long)label) ? 1.f : 0.f)) : NAN;
    }
}

// ---- Backend.softmaxCrossEntropy / softmaxCrossEntropyBackward: the training loss in one launch each way ----

// loss[0] = mean over rows of (logsumexp(logits[row]) - logits[row, label[row]]), in ONE block, summed in a fixed
// order (deterministic). Rows of at most 64 classes go one per thread: a warp per row of 10 classes would leave
// most lanes idle and pay two warp reductions per row (8192 rows took 0.9 ms on an H200 that way). Wider rows go
// one per warp. A label that is not a class makes the loss NaN and its row the candidate for *first_bad (the
// smallest bad row, INT_MAX when none), written by thread 0 in every launch, so the flag needs no reset
// beforehand (see LabelChecks).
__device__ __forceinline__ void add_row_loss(float lse, const float* x, float label, long long row, long long cols,
                                             double& sum, int& bad) {
    if (valid_label(label, cols)) {
        sum += (double)(lse - x[(long long)label]);
    } else {
        sum += (double)NAN;
        if (bad == 2147483647) bad = (int)min(row, 2147483646LL);
    }
}

extern "C" __global__ void cross_entropy_mean_f32(const float* __restrict__ logits, const float* __restrict__ labels,
                                                  float* __restrict__ loss, long long rows, long long cols,
                                                  int* __restrict__ first_bad) {
    __shared__ int bad_rows[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    double sum = 0.0;                      // this thread's rows' losses
    int bad = 2147483647;                  // the first bad row this thread saw
    if (cols <= 64) {
        for (long long row = threadIdx.x; row < rows; row += blockDim.x) {
            const float* x = logits + row * cols;
            float m = -INFINITY, s = 0.f;
            for (long long c = 0; c < cols; ++c) m = java_max(m, x[c]);
            for (long long c = 0; c < cols; ++c) s += expf(x[c] - m);
            add_row_loss(m + logf(s), x, labels[row], row, cols, sum, bad);
        }
    } else {
        for (long long row = warp; row < rows; row += warps) {
            const float* x = logits + row * cols;
            const float lse = row_logsumexp(x, cols, lane);
            if (lane == 0) add_row_loss(lse, x, labels[row], row, cols, sum, bad);
        }
    }
    sum = block_sum_double(sum);
    for (int o = 16; o > 0; o >>= 1) bad = min(bad, __shfl_xor_sync(0xffffffffu, bad, o));
    __syncthreads();
    if (lane == 0) bad_rows[warp] = bad;
    __syncthreads();
    if (threadIdx.x == 0) {
        int first = 2147483647;
        for (int w = 0; w < warps; ++w) first = min(first, bad_rows[w]);
        *first_bad = first;
        loss[0] = (float)(sum / (double)rows);
    }
}

// grad[row, c] = upstream[0] / rows * (softmax(logits[row])[c] - (c == label[row])): the loss's upstream gradient
// is read on the GPU (a device scalar), so the host never waits for it.
extern "C" __global__ void cross_entropy_mean_backward_f32(const float* __restrict__ logits,
                                                           const float* __restrict__ labels,
                                                           const float* __restrict__ upstream,
                                                           float* __restrict__ grad, long long rows, long long cols) {
    const float scale = upstream[0] / (float)rows;
    WARP_PER_ROW_LOOP(row, rows) {
        cross_entropy_grad_row(logits + row * cols, labels[row], grad + row * cols, cols, scale, lane);
    }
}

// Backend.oneHot: out[row, c] = (c == label[row]), all zeros for a row whose label is not a class in [0, cols).
// Such a row also records its index in *first_bad (atomicMin, so the smallest bad row wins; the host sets it
// to INT_MAX before and reads it after) so the Java side can name the label, as the CPU backend does.
extern "C" __global__ void one_hot_f32(const float* __restrict__ labels, float* __restrict__ out,
                                       long long rows, long long cols, int* __restrict__ first_bad) {
    GRID_STRIDE_LOOP(idx, rows * cols) {
        const long long row = idx / cols, c = idx % cols;
        const float label = labels[row];
        const bool ok = valid_label(label, cols);
        out[idx] = (ok && c == (long long)label) ? 1.f : 0.f;
        if (!ok && c == 0) atomicMin(first_bad, (int)min(row, 2147483647LL));
    }
}

// Backend.addBatchMetrics: sums[0] += loss[0] * rows; sums[1] += rows whose first maximum is at their label
// (ReduceOp.ARGMAX's rule: a later value wins only when greater, so a NaN wins only in column 0). One block, warp
// per row: the epoch's loss and accuracy accumulate on the GPU in one launch per step.
extern "C" __global__ void batch_metrics_f32(const float* __restrict__ logits, const float* __restrict__ labels,
                                             const float* __restrict__ loss, float* __restrict__ sums,
                                             long long rows, long long cols) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    float hits = 0.f;                      // lane 0 of each warp: its rows' hits
    for (long long row = warp; row < rows; row += warps) {
        const float* x = logits + row * cols;
        float best = -INFINITY;
        long long arg = cols;              // none yet
        for (long long c = lane; c < cols; c += 32) {
            if (x[c] > best) { best = x[c]; arg = c; }
        }
        for (int o = 16; o > 0; o >>= 1) {         // the larger value; on a tie the smaller column
            const float ob = __shfl_xor_sync(0xffffffffu, best, o);
            const long long oa = __shfl_xor_sync(0xffffffffu, arg, o);
            if (ob > best || (ob == best && oa < arg)) { best = ob; arg = oa; }
        }
        if (arg == cols || x[0] != x[0]) arg = 0;  // all -inf or NaN: nothing beat column 0; NaN first: it stays
        if (lane == 0 && (float)arg == labels[row]) hits += 1.f;
    }
    hits = block_sum(hits);
    if (threadIdx.x == 0) {
        sums[0] += loss[0] * (float)rows;
        sums[1] += hits;
    }
}
