// Runs the training-layer kernels of native/batchnorm.cu and native/cross_entropy.cu that the Backend contract
// uses (batchnorm_forward_stats/apply, batchnorm_grad_sums/input_grad, cross_entropy_mean(+backward)), and the
// fused batch norm - ReLU - pooling block of native/bn_relu_pool.cu against those kernels composed with plain loops, on the CPU
// through cuda_on_cpu.h, over shapes and grid sizes that hit their edges (fewer blocks than channels, rows not a
// multiple of the warps, one class), against plain double loops. Prints "fused-check: N cases, 0 failures".
//   g++ -std=c++20 -O1 -I native native/cpu-check/fused_check.cpp -o /tmp/fused_check && /tmp/fused_check
#include "cuda_on_cpu.h"
inline float rsqrtf(float v) { return 1.f / std::sqrt(v); }
inline int atomicMin(int* address, int value) {
    const int old = *address;
    if (value < old) *address = value;
    return old;
}
#include "../batchnorm.cu"
#include "../cross_entropy.cu"
#include "../optim.cu"
#include "../activation.cu"
#include "../bn_relu_pool.cu"

#include <climits>
#include <random>
#include <vector>

static long long cases = 0, failures = 0;
static std::mt19937_64 rng(7);

static void expect_close(const char* what, double e, double a, double rel, long long at) {
    if (std::isnan(e) && std::isnan(a)) return;
    if (!(std::fabs(e - a) <= rel * std::max(1.0, std::fabs(e)))) {
        if (failures < 20) std::printf("FAIL %s at %lld: expected %.8g, got %.8g\n", what, at, e, a);
        ++failures;
    }
}

static std::vector<float> randoms(size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

static void batchnorm_case(long long n, long long c, long long hw, long long slices, unsigned grid_stats, unsigned grid_elems) {
    ++cases;
    const long long size = n * c * hw, m = n * hw;
    auto x = randoms(size, -2, 3), gamma = randoms(c, 0.5f, 1.5f), beta = randoms(c, -1, 1), gy = randoms(size, -1, 1);
    auto rm = randoms(c, -1, 1), rv = randoms(c, 0.5f, 2);
    std::vector<float> mean(c), inv(c), y(size), dg(c), db(c), dx(size), rm0 = rm, rv0 = rv;
    const float eps = 1e-5f, mom = 0.1f;
    std::vector<double> partial(c * slices * 2, -1.0);
    std::vector<unsigned int> arrivals(c, 0u);
    emulate_launch(grid_stats, 256, [&] {
        batchnorm_forward_stats_f32(x.data(), mean.data(), inv.data(), rm.data(), rv.data(), n, c, hw, eps, mom,
                                    partial.data(), arrivals.data(), slices);
    });
    for (long long ch = 0; ch < c; ++ch)
        if (arrivals[ch] != 0) { std::printf("FAIL arrivals[%lld] = %u after the stats kernel\n", ch, arrivals[ch]); ++failures; }
    emulate_launch(grid_elems, 256, [&] {
        batchnorm_forward_apply_f32(x.data(), mean.data(), inv.data(), gamma.data(), beta.data(), y.data(), n, c, hw);
    });
    emulate_launch(grid_stats, 256, [&] {          // the same scratch again: the arrivals were reset
        batchnorm_grad_sums_f32(gy.data(), x.data(), mean.data(), inv.data(), dg.data(), db.data(), n, c, hw,
                                partial.data(), arrivals.data(), slices);
    });
    emulate_launch(grid_elems, 256, [&] {
        batchnorm_input_grad_f32(gy.data(), x.data(), mean.data(), inv.data(), gamma.data(), dg.data(), db.data(), dx.data(), n, c, hw);
    });
    for (long long ch = 0; ch < c; ++ch) {
        double s = 0, q = 0;
        for (long long o = 0; o < n; ++o)
            for (long long i = 0; i < hw; ++i) s += x[(o * c + ch) * hw + i];
        const double mu = s / m;
        for (long long o = 0; o < n; ++o)
            for (long long i = 0; i < hw; ++i) { double d = x[(o * c + ch) * hw + i] - mu; q += d * d; }
        const double var = q / m, iv = 1 / std::sqrt(var + eps);
        expect_close("mean", mu, mean[ch], 1e-6, ch);
        expect_close("invstd", iv, inv[ch], 1e-5, ch);
        expect_close("running mean", (1 - mom) * rm0[ch] + mom * mu, rm[ch], 1e-6, ch);
        expect_close("running var", (1 - mom) * rv0[ch] + mom * var * m / (m - 1), rv[ch], 1e-5, ch);
        double sg = 0, sgx = 0;
        for (long long o = 0; o < n; ++o)
            for (long long i = 0; i < hw; ++i) {
                const long long at = (o * c + ch) * hw + i;
                const double xh = (x[at] - mu) * iv;
                expect_close("y", gamma[ch] * xh + beta[ch], y[at], 1e-5, at);
                sg += gy[at];
                sgx += gy[at] * xh;
            }
        expect_close("dbeta", sg, db[ch], 1e-5, ch);
        expect_close("dgamma", sgx, dg[ch], 1e-4, ch);
        for (long long o = 0; o < n; ++o)
            for (long long i = 0; i < hw; ++i) {
                const long long at = (o * c + ch) * hw + i;
                const double xh = (x[at] - mu) * iv;
                expect_close("dx", gamma[ch] * iv / m * (m * gy[at] - sg - xh * sgx), dx[at], 1e-3, at);
            }
    }
}

static void cross_entropy_case(long long rows, long long cols, unsigned block, int bad_row) {
    ++cases;
    auto logits = randoms(rows * cols, -4, 4);
    std::vector<float> labels(rows), grad(rows * cols), loss(1, -1.f);
    std::uniform_int_distribution<long long> pick(0, cols - 1);
    for (auto& l : labels) l = (float)pick(rng);
    if (bad_row >= 0) labels[bad_row] = (float)cols;          // not a class
    int first_bad = 12345;
    const float upstream = 0.5f;
    emulate_launch(1, block, [&] { cross_entropy_mean_f32(logits.data(), labels.data(), loss.data(), rows, cols, &first_bad); });
    emulate_launch(3, 64, [&] {
        cross_entropy_mean_backward_f32(logits.data(), labels.data(), &upstream, grad.data(), rows, cols);
    });
    double sum = 0;
    for (long long r = 0; r < rows; ++r) {
        double mx = -INFINITY, z = 0;
        for (long long k = 0; k < cols; ++k) mx = std::max(mx, (double)logits[r * cols + k]);
        for (long long k = 0; k < cols; ++k) z += std::exp(logits[r * cols + k] - mx);
        const double lse = mx + std::log(z);
        const bool ok = r != bad_row;
        sum += ok ? lse - logits[r * cols + (long long)labels[r]] : NAN;
        for (long long k = 0; k < cols; ++k) {
            const double e = ok ? upstream / rows * (std::exp(logits[r * cols + k] - lse) - (k == (long long)labels[r])) : NAN;
            expect_close("cross-entropy grad", e, grad[r * cols + k], 1e-5, r * cols + k);
        }
    }
    expect_close("cross-entropy mean", sum / rows, loss[0], 1e-5, 0);
    if (first_bad != (bad_row >= 0 ? bad_row : INT_MAX)) {
        std::printf("FAIL first bad row: expected %d, got %d\n", bad_row >= 0 ? bad_row : INT_MAX, first_bad);
        ++failures;
    }
}

// Two layers of different channels and slices share one counter block and one partial block, as FusedOps does:
// layer A, layer B, layer A again must each get their own statistics (the counters are reset, the partials reused).
static void shared_scratch_case() {
    ++cases;
    struct Layer { long long n, c, hw, slices; std::vector<float> x; };
    Layer a{8, 4, 9, 3, randoms(8 * 4 * 9, -1, 2)}, b{6, 7, 5, 2, randoms(6 * 7 * 5, -3, 1)};
    std::vector<double> partial(7 * 3 * 2, 0.0);
    std::vector<unsigned int> arrivals(7, 0u);
    for (Layer* l : {&a, &b, &a}) {
        std::vector<float> mean(l->c), inv(l->c);
        emulate_launch(5, 64, [&] {
            batchnorm_forward_stats_f32(l->x.data(), mean.data(), inv.data(), nullptr, nullptr, l->n, l->c, l->hw, 1e-5f, 0.1f,
                                        partial.data(), arrivals.data(), l->slices);
        });
        for (long long ch = 0; ch < l->c; ++ch) {
            double s = 0;
            for (long long o = 0; o < l->n; ++o)
                for (long long i = 0; i < l->hw; ++i) s += l->x[(o * l->c + ch) * l->hw + i];
            expect_close("shared scratch mean", s / (l->n * l->hw), mean[ch], 1e-6, ch);
        }
    }
    for (unsigned int v : arrivals) if (v != 0) { std::printf("FAIL a counter left at %u\n", v); ++failures; }
}

// ties go to the first column, a NaN counts only in column 0, all -inf picks column 0
static void metrics_case(long long rows, long long cols, unsigned block) {
    ++cases;
    auto logits = randoms(rows * cols, -3, 3);
    std::vector<float> labels(rows);
    std::uniform_int_distribution<long long> pick(0, cols - 1);
    for (auto& l : labels) l = (float)pick(rng);
    for (long long r = 0; r < rows; r += 3) {                  // some ties, NaNs, -infs
        float* x = logits.data() + r * cols;
        if (cols > 2 && r % 2 == 0) x[cols - 1] = x[1] = 9.f;
        if (r % 5 == 0) x[0] = NAN;
        if (r % 7 == 0 && cols > 1) x[1] = NAN;
        if (r % 11 == 0) for (long long k = 0; k < cols; ++k) x[k] = -INFINITY;
        labels[r] = (float)((r / 3) % 2 == 0 ? 0 : std::min(1LL, cols - 1));
    }
    std::vector<float> loss(1, 0.25f), sums = {1.f, 2.f};
    emulate_launch(1, block, [&] { batch_metrics_f32(logits.data(), labels.data(), loss.data(), sums.data(), rows, cols); });
    long long hits = 0;
    for (long long r = 0; r < rows; ++r) {
        const float* x = logits.data() + r * cols;
        long long arg = 0;
        float best = x[0];
        for (long long k = 1; k < cols; ++k) if (x[k] > best) { best = x[k]; arg = k; }
        hits += (float)arg == labels[r];
    }
    expect_close("metrics loss sum", 1.0 + 0.25 * rows, sums[0], 1e-6, 0);
    expect_close("metrics hits", 2.0 + hits, sums[1], 0, 1);
}

// sgd_steps over a list of tensors of different lengths (one shorter than a block, one longer than the grid); with
// lr_in_memory, sgd_steps_lr_f32 reading the rate from memory (a recorded step's rate, written before each replay)
static void sgd_steps_case(int count, unsigned grid, bool lr_in_memory) {
    ++cases;
    SgdTensors t{};
    t.count = count;
    std::vector<std::vector<float>> p(count), g(count), v(count), p0(count), v0(count);
    for (int k = 0; k < count; ++k) {
        const long long n = k == 1 ? 5000 : 1 + 13 * k;
        p[k] = randoms(n, -1, 1); g[k] = randoms(n, -1, 1); v[k] = randoms(n, -0.1f, 0.1f);
        p0[k] = p[k]; v0[k] = v[k];
        t.n[k] = n; t.p[k] = p[k].data(); t.grad[k] = g[k].data(); t.v[k] = v[k].data();
    }
    const float lr = 0.05f, mom = 0.9f, wd = 0.01f;
    const float rate_slot[1] = {lr};
    if (lr_in_memory) emulate_launch(grid, 256, [&] { sgd_steps_lr_f32(t, rate_slot, mom, wd); });
    else emulate_launch(grid, 256, [&] { sgd_steps_f32(t, lr, mom, wd); });
    for (int k = 0; k < count; ++k)
        for (size_t i = 0; i < p[k].size(); ++i) {
            const float d = g[k][i] + wd * p0[k][i], vi = mom * v0[k][i] + d;
            expect_close("sgd velocity", vi, v[k][i], 1e-6, i);
            expect_close("sgd param", p0[k][i] - lr * vi, p[k][i], 1e-6, i);
        }
}

// adam_steps against adam_step_f32 run per tensor
static void adam_steps_case(int count, unsigned grid) {
    ++cases;
    AdamTensors t{};
    t.count = count;
    std::vector<std::vector<float>> p(count), g(count), m(count), v(count), p1(count), m1(count), v1(count);
    for (int k = 0; k < count; ++k) {
        const long long n = k == 1 ? 3000 : 1 + 11 * k;
        p[k] = randoms(n, -1, 1); g[k] = randoms(n, -1, 1); m[k] = randoms(n, -0.1f, 0.1f); v[k] = randoms(n, 0, 0.1f);
        p1[k] = p[k]; m1[k] = m[k]; v1[k] = v[k];
        t.n[k] = n; t.p[k] = p[k].data(); t.grad[k] = g[k].data(); t.m[k] = m[k].data(); t.v[k] = v[k].data();
    }
    const float lr = 0.01f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.01f, c1 = 1 - b1 * b1, c2 = 1 - b2 * b2;
    emulate_launch(grid, 256, [&] { adam_steps_f32(t, lr, b1, b2, eps, wd, c1, c2); });
    for (int k = 0; k < count; ++k) {
        emulate_launch(2, 256, [&] { adam_step_f32(p1[k].data(), g[k].data(), m1[k].data(), v1[k].data(), (long long)p1[k].size(),
                                                   lr, b1, b2, eps, wd, c1, c2); });
        for (size_t i = 0; i < p[k].size(); ++i) {
            expect_close("adam param", p1[k][i], p[k][i], 0, i);
            expect_close("adam m", m1[k][i], m[k][i], 0, i);
            expect_close("adam v", v1[k][i], v[k][i], 0, i);
        }
    }
}

// The fused block against the batch-norm kernels (checked above) with ReLU and 2x2 pooling as plain loops between
// them: the same output, statistics and gradients. Values on a grid of halves, so that windows tie.
static void bn_relu_pool_case(long long n, long long c, long long h, long long w, long long slices, unsigned grid) {
    ++cases;
    const long long hw = h * w, size = n * c * hw, oh = h / 2, ow = w / 2, pooled = size / 4;
    auto x = randoms(size, -2, 3), gamma = randoms(c, 0.5f, 1.5f), beta = randoms(c, -1, 1), dy = randoms(pooled, -1, 1);
    for (auto& v : x) v = std::round(v * 2) / 2.f;
    auto rm = randoms(c, -1, 1), rv = randoms(c, 0.5f, 2);
    std::vector<float> mean(c), inv(c), y(size), out(pooled), eout(pooled), dz(size, 0.f), edx(size), edg(c), edb(c);
    std::vector<float> dx(size), dg(c), db(c);
    std::vector<double> partial(c * slices * 2, -1.0);
    std::vector<unsigned int> arrivals(c, 0u);
    emulate_launch(grid, 256, [&] {
        batchnorm_forward_stats_f32(x.data(), mean.data(), inv.data(), rm.data(), rv.data(), n, c, hw, 1e-5f, 0.1f,
                                    partial.data(), arrivals.data(), slices);
    });
    emulate_launch(grid, 256, [&] {
        batchnorm_forward_apply_f32(x.data(), mean.data(), inv.data(), gamma.data(), beta.data(), y.data(), n, c, hw);
    });
    // reference: ReLU, then each window's first largest value and its gradient, masked by the ReLU
    for (long long p = 0; p < n * c; ++p)
        for (long long oy = 0; oy < oh; ++oy)
            for (long long ox = 0; ox < ow; ++ox) {
                long long at = -1;
                float best = 0.f;
                for (int q = 0; q < 4; ++q) {
                    const long long i = p * hw + (2 * oy + q / 2) * w + 2 * ox + q % 2;
                    const float r = y[i] > 0.f ? y[i] : 0.f;
                    if (at < 0 || r > best) { best = r; at = i; }
                }
                const long long o = (p * oh + oy) * ow + ox;
                eout[o] = best;
                dz[at] = dy[o] * (y[at] > 0.f ? 1.f : 0.f);
            }
    emulate_launch(grid, 256, [&] {
        batchnorm_grad_sums_f32(dz.data(), x.data(), mean.data(), inv.data(), edg.data(), edb.data(), n, c, hw,
                                partial.data(), arrivals.data(), slices);
    });
    emulate_launch(grid, 256, [&] {
        batchnorm_input_grad_f32(dz.data(), x.data(), mean.data(), inv.data(), gamma.data(), edg.data(), edb.data(),
                                 edx.data(), n, c, hw);
    });
    // the block
    emulate_launch(grid, 256, [&] {
        bn_relu_pool_forward_f32(x.data(), mean.data(), inv.data(), gamma.data(), beta.data(), out.data(), n, c, h, w);
    });
    emulate_launch(grid, 256, [&] {
        bn_relu_pool_grad_sums_f32(dy.data(), x.data(), mean.data(), inv.data(), gamma.data(), beta.data(), dg.data(),
                                   db.data(), n, c, h, w, partial.data(), arrivals.data(), slices);
    });
    for (long long ch = 0; ch < c; ++ch)
        if (arrivals[ch] != 0) { std::printf("FAIL arrivals[%lld] = %u after bn_relu_pool_grad_sums\n", ch, arrivals[ch]); ++failures; }
    emulate_launch(grid, 256, [&] {
        bn_relu_pool_input_grad_f32(dy.data(), x.data(), mean.data(), inv.data(), gamma.data(), beta.data(), dg.data(),
                                    db.data(), dx.data(), n, c, h, w);
    });
    for (long long i = 0; i < pooled; ++i) expect_close("bn_relu_pool out", eout[i], out[i], 0, i);
    for (long long ch = 0; ch < c; ++ch) {
        expect_close("bn_relu_pool dbeta", edb[ch], db[ch], 1e-5, ch);
        expect_close("bn_relu_pool dgamma", edg[ch], dg[ch], 1e-5, ch);
    }
    for (long long i = 0; i < size; ++i) expect_close("bn_relu_pool dx", edx[i], dx[i], 1e-4, i);
}

static void relu_backward_case(long long n, unsigned grid) {
    ++cases;
    auto x = randoms(n, -1, 1), dy = randoms(n, -2, 2);
    std::vector<float> dx(n);
    emulate_launch(grid, 256, [&] { relu_backward_f32(x.data(), dy.data(), dx.data(), n); });
    for (long long i = 0; i < n; ++i) expect_close("relu backward", dy[i] * (x[i] > 0.f ? 1.f : 0.f), dx[i], 0, i);
    emulate_launch(grid, 256, [&] { relu_backward_f32(x.data(), dy.data(), dy.data(), n); });   // in place
    for (long long i = 0; i < n; ++i) expect_close("relu backward in place", dx[i], dy[i], 0, i);
}

int main() {
    batchnorm_case(4, 3, 49, 1, 1, 2);     // one slice per channel, fewer blocks than channels: grid-stride
    batchnorm_case(3, 5, 1, 3, 8, 1);      // inner 1 (features), one row per slice
    batchnorm_case(2, 2, 300, 2, 5, 5);    // a slice longer than the block, more blocks than work items
    batchnorm_case(7, 4, 25, 3, 5, 3);     // uneven slices (7 rows over 3), fewer blocks than work items
    shared_scratch_case();
    std::printf("batchnorm (stats, apply, grad sums, input grad): %lld failures so far\n", failures);
    cross_entropy_case(128, 10, 256, -1);
    cross_entropy_case(37, 1, 256, -1);
    cross_entropy_case(70, 40, 96, 45);    // rows not a multiple of the warps, a bad label
    cross_entropy_case(5, 3, 256, 0);
    cross_entropy_case(50, 100, 128, 7);   // over 64 classes: a warp per row, a bad label
    std::printf("cross-entropy (mean, backward, first bad row): %lld failures so far\n", failures);
    metrics_case(128, 10, 256);
    metrics_case(45, 40, 64);
    metrics_case(9, 1, 256);
    std::printf("batch metrics (loss sum, argmax hits): %lld failures so far\n", failures);
    sgd_steps_case(16, 3, false);
    sgd_steps_case(2, 40, false);
    sgd_steps_case(16, 3, true);
    sgd_steps_case(2, 40, true);
    std::printf("sgd steps (tensor list by value): %lld failures so far\n", failures);
    adam_steps_case(16, 3);
    adam_steps_case(3, 50);
    std::printf("adam steps (tensor list by value): %lld failures so far\n", failures);
    bn_relu_pool_case(3, 4, 6, 8, 2, 5);      // more blocks than channel slices, uneven slices
    bn_relu_pool_case(2, 3, 2, 2, 1, 1);      // one window per plane, one block for all
    bn_relu_pool_case(5, 2, 14, 10, 3, 4);    // a slice longer than the block
    std::printf("batch norm - ReLU - pool block: %lld failures so far\n", failures);
    relu_backward_case(1000, 2);
    relu_backward_case(5, 3);
    std::printf("relu backward: %lld failures so far\n", failures);
    std::printf("fused-check: %lld cases, %lld failures\n", cases, failures);
    return failures == 0 ? 0 : 1;
}
