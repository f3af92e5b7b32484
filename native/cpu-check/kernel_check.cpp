// Runs the streaming kernels of native/ (elementwise, fill, reductions incl. the one-pass row and column ones, the tiled
// transpose) on the CPU through cuda_on_cpu.h, over shapes, misaligned views and grid sizes chosen to hit every edge
// of their index arithmetic (heads, tails, partial tiles, more blocks than work, fewer blocks than work), and compares each
// result with a plain loop. Values are small integers, so sums are exact in any order: a missed or doubled
// element shows. Buffers are exactly as large as the views (AddressSanitizer catches a step outside).
// Prints one line per group and "kernel-check: N cases, 0 failures"; exits 1 on any failure.
#include "cuda_on_cpu.h"
#include "../elementwise.cu"
#include "../memory.cu"
#include "../reduce.cu"

#include <random>
#include <string>

static long long cases = 0, failures = 0;
static std::mt19937_64 rng(12345);

static void fail(const std::string& what) {
    if (++failures <= 20) std::fprintf(stderr, "FAIL %s\n", what.c_str());
}

// A view of n floats inside a buffer: `offset` floats in (offset % 4 != 0: misaligned), with GUARD floats of NaN
// on either side (and NaN in the offset floats before the view). A kernel that reads outside the view reads a NaN, which turns the result it lands in into NaN
// (sums, max and min all keep NaN); one that writes outside it overwrites a guard (checked by guards_intact).
// Built with -fsanitize=address (cpu-check.sh --asan), any step outside the whole buffer is reported as well.
static const long long GUARD = 16;
struct View {
    std::vector<float> storage;
    long long offset, n;
    View(long long n, long long offset, float fill = 0.f) : storage(GUARD + offset + n + GUARD, NAN), offset(offset), n(n) {
        for (long long i = offset; i < offset + n; ++i) storage[GUARD + i] = fill;   // the `offset` floats before: NaN too
    }
    float* data() { return storage.data() + GUARD + offset; }
    float* base() { return storage.data() + GUARD; }               // the buffer without its guards
    bool guards_intact() const {
        for (long long i = 0; i < GUARD; ++i)
            if (storage[i] == storage[i] || storage[storage.size() - 1 - i] == storage[storage.size() - 1 - i]) return false;
        return true;
    }
};

static float small_int() { return (float)((long long)(rng() % 17) - 8); }

static const unsigned GRIDS[] = {1, 2, 3, 7};

// ---- elementwise ---------------------------------------------------------------------------------------

static void check_elementwise() {
    const long long sizes[] = {0, 1, 3, 4, 5, 8, 17, 257, 1030, 4099};
    long long before = cases;
    for (long long n : sizes)
        for (int oa = 0; oa < 4; ++oa)
            for (int oo = 0; oo < 4; oo += 3)
                for (unsigned grid : GRIDS) {
                    View a(n, oa), b(n, (oa + 1) % 4), out(n, oo, 99.f);
                    for (long long i = 0; i < n; ++i) { a.data()[i] = small_int(); b.data()[i] = small_int(); }
                    auto name = [&](const std::string& k) {
                        return k + " n=" + std::to_string(n) + " offsets " + std::to_string(oa) + "/" +
                               std::to_string(oo) + " grid " + std::to_string(grid);
                    };
                    emulate_launch(grid, 256, [&] { ew_sub_f32(a.data(), b.data(), out.data(), n); });
                    ++cases;
                    for (long long i = 0; i < n; ++i)
                        if (out.data()[i] != a.data()[i] - b.data()[i]) { fail(name("ew_sub_f32") + " at " + std::to_string(i)); break; }
                    for (int reversed = 0; reversed < 2; ++reversed) {
                        emulate_launch(grid, 256, [&] { ew_sub_scalar_f32(a.data(), 2.5f, out.data(), n, reversed); });
                        ++cases;
                        for (long long i = 0; i < n; ++i) {
                            float want = reversed ? 2.5f - a.data()[i] : a.data()[i] - 2.5f;
                            if (out.data()[i] != want) { fail(name("ew_sub_scalar_f32 reversed=" + std::to_string(reversed)) + " at " + std::to_string(i)); break; }
                        }
                    }
                    emulate_launch(grid, 256, [&] { ew_exp_f32(a.data(), out.data(), n); });
                    ++cases;
                    for (long long i = 0; i < n; ++i)
                        if (out.data()[i] != expf(a.data()[i])) { fail(name("ew_exp_f32") + " at " + std::to_string(i)); break; }
                    // in place: out is a
                    std::vector<float> was(a.data(), a.data() + n);
                    emulate_launch(grid, 256, [&] { ew_mul_scalar_f32(a.data(), 3.f, a.data(), n, 0); });
                    ++cases;
                    for (long long i = 0; i < n; ++i)
                        if (a.data()[i] != was[i] * 3.f) { fail(name("ew_mul_scalar_f32 in place") + " at " + std::to_string(i)); break; }
                    emulate_launch(grid, 256, [&] { fill_f32(out.data(), 7.f, n); });
                    ++cases;
                    for (long long i = 0; i < n; ++i)
                        if (out.data()[i] != 7.f) { fail(name("fill_f32") + " at " + std::to_string(i)); break; }
                    ++cases;
                    for (long long i = 0; i < oo; ++i)
                        if (out.base()[i] == out.base()[i]) { fail(name("elementwise") + ": wrote before the view"); break; }
                    if (!out.guards_intact() || !a.guards_intact()) fail(name("elementwise") + ": wrote outside the buffer");
                }
    std::printf("elementwise + fill: %lld cases\n", cases - before);
}

// ---- reductions ------------------------------------------------------------------------------------------

struct Ref { const char* name; float identity; float (*combine)(float, float); };
static float ref_sum(float a, float b) { return a + b; }
static float ref_max(float a, float b) { return (a > b || a != a) ? a : b; }
static float ref_min(float a, float b) { return (a < b || a != a) ? a : b; }
static const Ref REFS[] = {{"sum", 0.f, ref_sum}, {"max", -INFINITY, ref_max}, {"min", INFINITY, ref_min}};

using RowsKernel = void (*)(const float*, float*, long long, long long, long long);
using RowsWarpKernel = void (*)(const float*, float*, long long, long long);
using ColsKernel = void (*)(const float*, float*, long long, long long, long long, long long, long long);
static const RowsKernel ROWS[] = {reduce_sum_rows_f32, reduce_max_rows_f32, reduce_min_rows_f32};
static const RowsWarpKernel ROWS_WARP[] = {reduce_sum_rows_warp_f32, reduce_max_rows_warp_f32, reduce_min_rows_warp_f32};
static const ColsKernel COLS[] = {reduce_sum_cols_f32, reduce_max_cols_f32, reduce_min_cols_f32};

// Expected [outer, inner] result of reducing the middle axis of in[outer, r, inner].
static std::vector<float> expected(const Ref& op, const float* in, long long outer, long long r, long long inner) {
    std::vector<float> out(outer * inner, op.identity);
    for (long long o = 0; o < outer; ++o)
        for (long long k = 0; k < r; ++k)
            for (long long i = 0; i < inner; ++i) out[o * inner + i] = op.combine(out[o * inner + i], in[(o * r + k) * inner + i]);
    return out;
}

// Combines partials [outer, parts, inner] over parts (what the Java side's second launch does).
static std::vector<float> combine_parts(const Ref& op, View& partial, long long outer, long long parts, long long inner) {
    if (!partial.guards_intact()) fail("a reduction wrote outside its output");
    return expected(op, partial.data(), outer, parts, inner);
}

static void compare(const float* got, const std::vector<float>& want, const std::string& what) {
    ++cases;
    for (size_t i = 0; i < want.size(); ++i)
        if (!(got[i] == want[i]) && !(got[i] != got[i] && want[i] != want[i])) {
            fail(what + ": output " + std::to_string(i) + " is " + std::to_string(got[i]) + ", want " + std::to_string(want[i]));
            return;
        }
}

static void fill_input(View& v, long long n, int op) {
    for (long long i = 0; i < n; ++i) v.data()[i] = small_int();
    // max/min: one extreme value at a random place, so a missed element would show
    if (op > 0 && n > 0) v.data()[rng() % n] = op == 1 ? 1000.f : -1000.f;
}

static void check_rows() {
    const long long rs[] = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 100, 1023, 1024, 1029, 5000};
    const long long parts_list[] = {1, 2, 3, 5};
    long long before = cases;
    for (int op = 0; op < 3; ++op)
        for (long long r : rs)
            for (long long outer : {1LL, 3LL})
                for (int off = 0; off < 4; ++off) {
                    View in(outer * r, off);
                    fill_input(in, outer * r, op);
                    std::vector<float> want = expected(REFS[op], in.data(), outer, r, 1);
                    for (long long parts : parts_list) {
                        unsigned grid = GRIDS[(r + parts + off) % 4];
                        View partial(outer * parts, 0, 99.f);
                        emulate_launch(grid, 256, [&] { ROWS[op](in.data(), partial.data(), outer, r, parts); });
                        compare(combine_parts(REFS[op], partial, outer, parts, 1).data(), want,
                                std::string("reduce_") + REFS[op].name + "_rows_f32 outer=" + std::to_string(outer) + " r=" +
                                    std::to_string(r) + " parts=" + std::to_string(parts) + " offset=" + std::to_string(off) +
                                    " grid=" + std::to_string(grid));
                    }
                    for (unsigned grid : {1u, 2u}) {
                        View got(outer, 0, 99.f);
                        emulate_launch(grid, 64, [&] { ROWS_WARP[op](in.data(), got.data(), outer, r); });
                        compare(combine_parts(REFS[op], got, outer, 1, 1).data(), want, std::string("reduce_") + REFS[op].name + "_rows_warp_f32 outer=" + std::to_string(outer) +
                                               " r=" + std::to_string(r) + " offset=" + std::to_string(off) + " grid=" + std::to_string(grid));
                    }
                }
    // many rows of one length, rows misaligned in turn (r % 4 != 0), more rows than warps
    for (int op = 0; op < 3; ++op)
        for (long long r : {5LL, 6LL, 64LL, 67LL}) {
            long long outer = 70;
            View in(outer * r, 1);
            fill_input(in, outer * r, op);
            std::vector<float> want = expected(REFS[op], in.data(), outer, r, 1);
            View got(outer, 0, 99.f);
            emulate_launch(3, 128, [&] { ROWS_WARP[op](in.data(), got.data(), outer, r); });
            compare(combine_parts(REFS[op], got, outer, 1, 1).data(), want,
                    std::string("reduce_") + REFS[op].name + "_rows_warp_f32 70 rows r=" + std::to_string(r));
            View got2(outer * 2, 0, 99.f);
            emulate_launch(9, 256, [&] { ROWS[op](in.data(), got2.data(), outer, r, 2); });
            compare(combine_parts(REFS[op], got2, outer, 2, 1).data(), want,
                    std::string("reduce_") + REFS[op].name + "_rows_f32 70 rows r=" + std::to_string(r) + " parts=2");
        }
    std::printf("row reductions: %lld cases\n", cases - before);
}

static void check_cols() {
    const long long inners[] = {2, 3, 4, 5, 8, 31, 32, 33, 64, 127, 128, 129, 260};
    const long long rs[] = {1, 2, 5, 9, 64, 130};
    long long before = cases;
    for (int op = 0; op < 3; ++op)
        for (long long inner : inners)
            for (long long r : rs)
                for (long long outer : {1LL, 2LL}) {
                    int off = (int)((inner + r + outer) % 4) == 3 ? 1 : 0;   // mostly aligned (the float4 path), some not
                    View in(outer * r * inner, off);
                    fill_input(in, outer * r * inner, op);
                    std::vector<float> want = expected(REFS[op], in.data(), outer, r, inner);
                    for (long long chunks : {1LL, 2LL, 3LL, 7LL}) {
                        if (chunks > r) continue;
                        long long chunk = (r + chunks - 1) / chunks;
                        long long real_chunks = (r + chunk - 1) / chunk;
                        unsigned grid = GRIDS[(inner + chunks) % 4];
                        View partial(outer * real_chunks * inner, 0, 99.f);
                        emulate_launch(grid, 256, [&] { COLS[op](in.data(), partial.data(), outer, r, inner, chunk, real_chunks); });
                        compare(combine_parts(REFS[op], partial, outer, real_chunks, inner).data(), want,
                                std::string("reduce_") + REFS[op].name + "_cols_f32 outer=" + std::to_string(outer) + " r=" +
                                    std::to_string(r) + " inner=" + std::to_string(inner) + " chunks=" + std::to_string(real_chunks) +
                                    " offset=" + std::to_string(off) + " grid=" + std::to_string(grid));
                    }
                }
    std::printf("column reductions: %lld cases\n", cases - before);
}

// ---- tiled transpose ----------------------------------------------------------------------------------------

static Layout batch_layout(const std::vector<long long>& shape, const std::vector<long long>& stride, long long offset) {
    Layout l{};
    l.ndim = (long long)shape.size();
    l.offset = offset;
    for (size_t d = 0; d < shape.size(); ++d) { l.shape[d] = shape[d]; l.stride[d] = stride[d]; }
    return l;
}

using TransposeKernel = void (*)(const float*, Layout, float*, Layout, long long, long long, long long, long long, long long, long long);
struct NamedTranspose { const char* name; TransposeKernel kernel; };
static const NamedTranspose TRANSPOSE = {"copy_transpose_64x64_f32", copy_transpose_64x64_f32};

// One batch of planes: source [batch][nq][np] (contiguous along p), destination [batch][np][nq] (along q), both
// inside larger buffers at an offset, batch strides padded (aligned and misaligned starts alike).
static void transpose_case(const NamedTranspose& tv, long long np, long long nq, long long batch, long long in_off,
                           long long out_off, long long pad, unsigned grid) {
    long long in_bs = np * nq + pad, out_bs = np * nq + pad;
    View in(in_off + batch * in_bs, 0), out(out_off + batch * out_bs, 0, -1.f);
    for (long long i = 0; i < in.n; ++i) in.base()[i] = small_int();
    Layout bi = batch == 1 ? batch_layout({}, {}, in_off) : batch_layout({batch}, {in_bs}, in_off);
    Layout bo = batch == 1 ? batch_layout({}, {}, out_off) : batch_layout({batch}, {out_bs}, out_off);
    emulate_launch(grid, 256, [&] { tv.kernel(in.data(), bi, out.data(), bo, np, nq, 1, np, nq, 1); });
    ++cases;
    std::string what = std::string(tv.name) + " np=" + std::to_string(np) + " nq=" + std::to_string(nq) + " batch=" +
                       std::to_string(batch) + " offsets " + std::to_string(in_off) + "/" + std::to_string(out_off) +
                       " grid=" + std::to_string(grid);
    std::vector<float> want(out.n, -1.f);
    for (long long b = 0; b < batch; ++b)
        for (long long p = 0; p < np; ++p)
            for (long long q = 0; q < nq; ++q)
                want[out_off + b * out_bs + p * nq + q] = in.base()[in_off + b * in_bs + q * np + p];
    if (!out.guards_intact()) fail(what + ": wrote outside the buffer");
    for (size_t i = 0; i < want.size(); ++i)
        if (!(out.base()[i] == want[i])) {
            fail(what + ": element " + std::to_string(i));
            break;
        }
}

static void check_transpose() {
    const long long sizes[] = {1, 5, 31, 32, 33, 64, 65, 100, 130};
    long long before = cases;
    {
        const NamedTranspose& tv = TRANSPOSE;
        // misaligned (offsets 3 and 5, batch stride padded by 7), partial tiles at every edge
        for (long long np : sizes)
            for (long long nq : sizes)
                for (long long batch : {1LL, 3LL})
                    transpose_case(tv, np, nq, batch, 3, 5, 7, GRIDS[(np + nq + batch) % 4]);
        // aligned planes with full tiles (128 x 128) next to partial ones (132, 196) in one launch
        for (long long np : {128LL, 132LL, 196LL})
            for (long long nq : {128LL, 196LL})
                for (long long batch : {1LL, 2LL})
                    transpose_case(tv, np, nq, batch, 4, 8, 4 * (np % 3), GRIDS[(np + nq + batch) % 4]);
        // aligned rows but a misaligned plane start, on full tiles
        transpose_case(tv, 128, 128, 1, 1, 0, 0, 3);
        transpose_case(tv, 128, 128, 1, 0, 2, 0, 2);
        // two batch axes with their own strides, non-unit plane strides (a 4-D permute (a, b, p, q) <- (b, q, a, p))
        long long A = 2, B = 3, np = 40, nq = 70;
        View in(B * nq * A * np, 0), out(A * B * np * nq, 0, -1.f);
        for (long long i = 0; i < in.n; ++i) in.base()[i] = small_int();
        // source index (b, q, a, p) contiguous: strides b: nq*A*np, q: A*np, a: np, p: 1
        Layout bi = batch_layout({A, B}, {np, nq * A * np}, 0);
        Layout bo = batch_layout({A, B}, {B * np * nq, np * nq}, 0);
        emulate_launch(5, 256, [&] { tv.kernel(in.data(), bi, out.data(), bo, np, nq, 1, A * np, nq, 1); });
        ++cases;
        bool ok = out.guards_intact();
        for (long long a = 0; a < A && ok; ++a)
            for (long long b = 0; b < B && ok; ++b)
                for (long long p = 0; p < np && ok; ++p)
                    for (long long q = 0; q < nq && ok; ++q)
                        ok = in.base()[((b * nq + q) * A + a) * np + p] == out.base()[((a * B + b) * np + p) * nq + q];
        if (!ok) fail(std::string(tv.name) + " 4-d permute");
    }
    std::printf("tiled transpose: %lld cases\n", cases - before);
}

// ---- one-pass row reductions (last block finishes) ------------------------------------------------------------

using LastKernel = void (*)(const float*, float*, long long, long long, long long, float*, unsigned int*);
static const LastKernel LAST[] = {reduce_sum_rows_last_f32, reduce_max_rows_last_f32, reduce_min_rows_last_f32};

static void check_rows_last() {
    long long before = cases;
    for (int op = 0; op < 3; ++op) {
        LastKernel kernel = LAST[op];
        const std::string name = std::string("reduce_") + REFS[op].name + "_rows_last_f32";
        for (long long r : {1LL, 7LL, 1029LL, 5000LL, 40000LL})
            for (long long outer : {1LL, 3LL})
                for (long long parts : {1LL, 2LL, 5LL, 13LL})
                    for (int off : {0, 3}) {
                        View in(outer * r, off);
                        fill_input(in, outer * r, op);
                        std::vector<float> want = expected(REFS[op], in.data(), outer, r, 1);
                        View partials(outer * parts, 0, 99.f), got(outer, 0, 99.f);
                        std::vector<unsigned int> counters(outer, 0u);
                        unsigned grid = GRIDS[(r + parts + off + outer) % 4];
                        std::string what = name + " outer=" + std::to_string(outer) + " r=" + std::to_string(r) + " parts=" +
                                           std::to_string(parts) + " offset=" + std::to_string(off) + " grid=" + std::to_string(grid);
                        for (int run = 0; run < 2; ++run) {  // the second run relies on the counters the first reset
                            emulate_launch(grid, 256, [&] { kernel(in.data(), got.data(), outer, r, parts, partials.data(), counters.data()); });
                            compare(got.data(), want, what + " run " + std::to_string(run));
                            ++cases;
                            for (long long o = 0; o < outer; ++o)
                                if (counters[o] != 0) { fail(what + ": counter " + std::to_string(o) + " left at " + std::to_string(counters[o])); break; }
                            if (!got.guards_intact() || !partials.guards_intact()) fail(what + ": wrote outside its output");
                        }
                    }
    }
    std::printf("one-pass row reductions: %lld cases\n", cases - before);
}

// ---- one-pass column reductions (last block of each column tile finishes) ---------------------------------------

using ColsLastKernel = void (*)(const float*, float*, long long, long long, long long, long long, long long, float*, unsigned int*);
static const ColsLastKernel COLS_LAST[] = {reduce_sum_cols_last_f32, reduce_max_cols_last_f32, reduce_min_cols_last_f32};

static void check_cols_last() {
    long long before = cases;
    for (int op = 0; op < 3; ++op) {
        ColsLastKernel kernel = COLS_LAST[op];
        const std::string name = std::string("reduce_") + REFS[op].name + "_cols_last_f32";
        for (long long inner : {3LL, 4LL, 33LL, 128LL, 129LL, 260LL})
            for (long long r : {1LL, 5LL, 64LL, 130LL, 300LL})
                for (long long outer : {1LL, 2LL}) {
                    int off = (int)((inner + r + outer) % 4) == 3 ? 1 : 0;   // mostly aligned (the float4 path), some not
                    View in(outer * r * inner, off);
                    fill_input(in, outer * r * inner, op);
                    std::vector<float> want = expected(REFS[op], in.data(), outer, r, inner);
                    const long long width = ((inner & 3) == 0 && off == 0) ? 128 : 32, tiles = (inner + width - 1) / width;
                    for (long long chunks : {1LL, 2LL, 3LL, 7LL}) {
                        if (chunks > r) continue;
                        long long chunk = (r + chunks - 1) / chunks;
                        long long real_chunks = (r + chunk - 1) / chunk;
                        unsigned grid = GRIDS[(inner + chunks + r) % 4];
                        View partials(outer * real_chunks * inner, 0, 99.f), got(outer * inner, 0, 99.f);
                        std::vector<unsigned int> counters(outer * tiles, 0u);
                        std::string what = name + " outer=" + std::to_string(outer) + " r=" + std::to_string(r) + " inner=" +
                                           std::to_string(inner) + " chunks=" + std::to_string(real_chunks) + " offset=" +
                                           std::to_string(off) + " grid=" + std::to_string(grid);
                        for (int run = 0; run < 2; ++run) {  // the second run relies on the counters the first reset
                            emulate_launch(grid, 256, [&] {
                                kernel(in.data(), got.data(), outer, r, inner, chunk, real_chunks, partials.data(), counters.data());
                            });
                            compare(got.data(), want, what + " run " + std::to_string(run));
                            ++cases;
                            for (size_t i = 0; i < counters.size(); ++i)
                                if (counters[i] != 0) { fail(what + ": counter " + std::to_string(i) + " left at " + std::to_string(counters[i])); break; }
                            if (!got.guards_intact() || !partials.guards_intact()) fail(what + ": wrote outside its output");
                        }
                    }
                }
    }
    std::printf("one-pass column reductions: %lld cases\n", cases - before);
}

int main() {
    check_elementwise();
    check_rows();
    check_cols();
    check_transpose();
    check_rows_last();
    check_cols_last();
    std::printf("kernel-check: %lld cases, %lld failures\n", cases, failures);
    return failures == 0 ? 0 : 1;
}
