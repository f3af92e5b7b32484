// Runs the convolution kernels of native/im2col.cu (im2col, col2im) and the max pooling of native/pool.cu on the
// CPU through cuda_on_cpu.h against plain loops, over shapes, strides, paddings and grid sizes that hit their edges (fewer blocks than planes,
// planes longer than the block, planes too large to stage in shared memory, windows hanging over the border).
// Prints "conv-check: N cases, 0 failures".
//   g++ -std=c++20 -O1 -I native native/cpu-check/conv_check.cpp -o /tmp/conv_check && /tmp/conv_check
#include "cuda_on_cpu.h"
#include "../im2col.cu"
#include "../pool.cu"

#include <random>
#include <vector>

static long long cases = 0, failures = 0;
static std::mt19937_64 rng(11);

static void expect_equal(const char* what, float e, float a, long long at) {
    if (!(std::fabs(e - a) <= 1e-5f * std::max(1.f, std::fabs(e)))) {
        if (failures < 20) std::printf("FAIL %s at %lld: expected %.8g, got %.8g\n", what, at, e, a);
        ++failures;
    }
}

// n samples of c x h x w, a k x k window with the given stride and padding; the kernels on grid x block threads
static void conv_case(long long n, long long c, long long h, long long w, long long k, long long stride, long long pad,
                      unsigned grid, unsigned block) {
    ++cases;
    const long long oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
    const long long rows = c * k * k, p = oh * ow;
    Window2d g{n, c, h, w, k, k, stride, stride, pad, pad, oh, ow};
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> x(n * c * h * w), cols(n * rows * p, 99.f), back(n * rows * p), dx(x.size(), 99.f);
    for (auto& v : x) v = d(rng);
    for (auto& v : back) v = d(rng);
    emulate_launch(grid, block, [&] { im2col_f32(x.data(), cols.data(), g); });
    emulate_launch(grid, block, [&] { col2im_f32(back.data(), dx.data(), g); });
    std::vector<double> expect_dx(x.size(), 0.0);
    for (long long s = 0; s < n; ++s)
        for (long long ch = 0; ch < c; ++ch)
            for (long long i = 0; i < k; ++i)
                for (long long j = 0; j < k; ++j)
                    for (long long oy = 0; oy < oh; ++oy)
                        for (long long ox = 0; ox < ow; ++ox) {
                            const long long y = oy * stride - pad + i, xx = ox * stride - pad + j;
                            const long long at = ((s * rows) + (ch * k + i) * k + j) * p + oy * ow + ox;
                            const bool inside = y >= 0 && y < h && xx >= 0 && xx < w;
                            const long long px = ((s * c + ch) * h + y) * w + xx;
                            expect_equal("im2col", inside ? x[px] : 0.f, cols[at], at);
                            if (inside) expect_dx[px] += back[at];
                        }
    for (size_t i = 0; i < dx.size(); ++i) expect_equal("col2im", (float)expect_dx[i], dx[i], (long long)i);
}

// Max pooling forward and backward (k x k windows, stride, padding) against plain loops; random values, so no ties.
static void pool_case(long long n, long long c, long long h, long long w, long long k, long long stride, long long pad,
                      unsigned grid, unsigned block) {
    ++cases;
    const long long oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
    Window2d g{n, c, h, w, k, k, stride, stride, pad, pad, oh, ow};
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> x(n * c * h * w), dy(n * c * oh * ow), out(dy.size(), 99.f), dx(x.size(), 99.f);
    for (auto& v : x) v = d(rng);
    for (auto& v : dy) v = d(rng);
    emulate_launch(grid, block, [&] { maxpool2d_forward_f32(x.data(), out.data(), g); });
    emulate_launch(grid, block, [&] { maxpool2d_backward_f32(x.data(), dy.data(), dx.data(), g); });
    std::vector<double> expect_dx(x.size(), 0.0);
    for (long long plane = 0; plane < n * c; ++plane)
        for (long long oy = 0; oy < oh; ++oy)
            for (long long ox = 0; ox < ow; ++ox) {
                long long best = -1;
                for (long long i = 0; i < k; ++i)
                    for (long long j = 0; j < k; ++j) {
                        const long long y = oy * stride - pad + i, xx = ox * stride - pad + j;
                        if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
                        const long long at = (plane * h + y) * w + xx;
                        if (best < 0 || x[at] > x[best]) best = at;
                    }
                const long long o = (plane * oh + oy) * ow + ox;
                expect_equal("maxpool forward", x[best], out[o], o);
                expect_dx[best] += dy[o];
            }
    for (size_t i = 0; i < dx.size(); ++i) expect_equal("maxpool backward", (float)expect_dx[i], dx[i], (long long)i);
}

int main() {
    conv_case(2, 3, 5, 7, 3, 1, 1, 4, 32);      // padding 1, fewer blocks than planes, planes longer than the block
    conv_case(3, 2, 6, 6, 2, 2, 0, 50, 64);     // stride 2, more blocks than planes
    conv_case(1, 1, 4, 5, 3, 2, 1, 1, 32);      // stride 2 with padding: some pixels read by no window
    conv_case(2, 2, 5, 5, 1, 1, 0, 3, 256);     // 1 x 1 window
    conv_case(4, 2, 9, 8, 3, 1, 0, 7, 64);      // no padding, windows all inside
    conv_case(1, 2, 70, 60, 3, 1, 1, 2, 256);   // planes over 4096 pixels: im2col reads them in place
    pool_case(2, 3, 6, 8, 2, 2, 0, 5, 32);      // the lessons' 2x2 pooling, fewer blocks than outputs
    pool_case(1, 2, 7, 5, 3, 2, 1, 2, 64);      // overlapping 3x3 windows with padding
    std::printf("conv-check: %lld cases, %lld failures\n", cases, failures);
    return failures == 0 ? 0 : 1;
}
