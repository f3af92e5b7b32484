// Just enough of CUDA to run the kernels of native/ on the CPU, for checking their index arithmetic where
// there is no GPU (CI). The GPU threads of a block are fibers on one OS thread; blocks run one after another,
// so a `__shared__` variable can be a plain static. __syncthreads and the warp shuffles are barriers. Built with
// AddressSanitizer, a read or write outside a buffer stops the check with a report (like compute-sanitizer's
// memcheck on the GPU). Not a simulator of performance or of the memory model: only of which thread touches
// which element.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <math.h>
#include <csetjmp>
#include <setjmp.h>
#include <ucontext.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define EMULATE_ASAN 1
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

using std::max;
using std::min;

struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline float2 make_float2(float x, float y) { return {x, y}; }

inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

// The threads of a block are fibers on one OS thread, switched only where a GPU thread would wait for others:
// __syncthreads and the warp shuffles. A barrier releases when every thread of its group that has not returned
// from the kernel yet has arrived (a returned GPU thread no longer holds up a barrier). A fiber is started once
// per launch with makecontext/swapcontext and then switched with _setjmp/_longjmp (no system call per switch);
// it runs the kernel for every block of the grid in turn, all fibers meeting between blocks.
namespace emulated {
struct Barrier { int live = 0, arrived = 0; long long generation = 0; };
struct Slot { unsigned char bytes[8]; };
struct Fiber {
    ucontext_t start;
    jmp_buf resume;
    std::vector<char> stack;
    bool started = false, done = false;
    void* fake_stack = nullptr;          // AddressSanitizer's bookkeeping of the fiber's stack
};
inline constexpr size_t STACK = 256 * 1024;
inline jmp_buf scheduler;
inline ucontext_t scheduler_context;
inline std::deque<Fiber> fibers;
inline int current = -1;
inline Barrier block_barrier, between_blocks;
inline std::vector<Barrier> warp_barriers;
inline std::vector<Slot> slots;
inline void (*body_trampoline)(void*);
inline void* body_arg;
inline const void* scheduler_stack;
inline size_t scheduler_stack_size;

// Back to the scheduler; returns when the scheduler resumes this fiber.
inline void yield() {
    Fiber& f = fibers[current];
    if (_setjmp(f.resume) == 0) {
#ifdef EMULATE_ASAN
        __sanitizer_start_switch_fiber(&f.fake_stack, scheduler_stack, scheduler_stack_size);
#endif
        _longjmp(scheduler, 1);
    }
#ifdef EMULATE_ASAN
    __sanitizer_finish_switch_fiber(fibers[current].fake_stack, &scheduler_stack, &scheduler_stack_size);
#endif
}

inline bool arrive(Barrier& b) {           // true for the thread that completes the barrier
    if (++b.arrived == b.live) {
        b.arrived = 0;
        ++b.generation;
        return true;
    }
    return false;
}

inline void wait(Barrier& b) {
    const long long generation = b.generation;
    if (!arrive(b)) while (b.generation == generation) yield();
}

inline void leave(Barrier& b) {
    --b.live;
    if (b.arrived > 0 && b.arrived == b.live) {
        b.arrived = 0;
        ++b.generation;
    }
}

inline void fresh_block(unsigned block) {
    block_barrier = Barrier{(int)block};
    warp_barriers.assign(block / 32, Barrier{32});
}

// A fiber lives for the whole program: it runs its thread of every launch that has it, parking in between.
inline void fiber_main() {
#ifdef EMULATE_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &scheduler_stack, &scheduler_stack_size);
#endif
    for (;;) {
        for (unsigned b = 0; b < gridDim.x; ++b) {
            body_trampoline(body_arg);
            leave(block_barrier);
            leave(warp_barriers[current / 32]);
            const long long generation = between_blocks.generation;
            if (arrive(between_blocks)) {  // the last thread out of block b sets up block b + 1
                fresh_block(blockDim.x);
                ++blockIdx.x;
            } else {
                while (between_blocks.generation == generation) yield();
            }
        }
        fibers[current].done = true;
        yield();                           // parked until a launch needs this thread again
    }
}
}  // namespace emulated

inline void __syncthreads() { emulated::wait(emulated::block_barrier); }
inline void __trap() {
    std::fprintf(stderr, "__trap() in thread %u of block %u\n", threadIdx.x, blockIdx.x);
    std::abort();
}

// Blocks run one after another on one OS thread: a fence has nothing to order, an atomic nothing to race with.
inline void __threadfence() {}
inline unsigned int atomicAdd(unsigned int* address, unsigned int value) {
    const unsigned int old = *address;
    *address = old + value;
    return old;
}
template <class T>
inline T __ldcg(const T* p) { return *p; }

template <class T>
T __shfl_xor_sync(unsigned, T v, int lane_mask) {
    static_assert(sizeof(T) <= 8, "shuffle of at most 8 bytes");
    const int t = (int)threadIdx.x, base = t & ~31;
    std::memcpy(emulated::slots[t].bytes, &v, sizeof(T));
    emulated::wait(emulated::warp_barriers[t / 32]);
    T r;
    std::memcpy(&r, emulated::slots[base + ((t & 31) ^ lane_mask)].bytes, sizeof(T));
    emulated::wait(emulated::warp_barriers[t / 32]);
    return r;
}

// Runs body() as a grid of `grid` blocks of `block` threads (block a multiple of 32), one block after another.
template <class Body>
void emulate_launch(unsigned grid, unsigned block, Body body) {
    using namespace emulated;
    if (block == 0 || block % 32 != 0) { std::fprintf(stderr, "block size %u: not a multiple of 32\n", block); std::abort(); }
    if (grid == 0) return;
    blockDim = {block, 1, 1};
    gridDim = {grid, 1, 1};
    blockIdx = {0, 0, 0};
    slots.assign(block, Slot{});
    fresh_block(block);
    between_blocks = Barrier{(int)block};
    body_arg = &body;
    body_trampoline = [](void* b) { (*static_cast<Body*>(b))(); };
    if (fibers.size() < block) fibers.resize(block);     // a deque: started fibers stay where they are
    for (unsigned t = 0; t < block; ++t) fibers[t].done = false;
    for (unsigned left = block; left > 0;) {
        for (unsigned t = 0; t < block; ++t) {
            Fiber& f = fibers[t];
            if (f.done) continue;
            current = (int)t;
            threadIdx = {t, 0, 0};
            void* save = nullptr;
            (void)save;
            if (_setjmp(scheduler) == 0) {
#ifdef EMULATE_ASAN
                __sanitizer_start_switch_fiber(&save, f.stack.data(), f.stack.size());
#endif
                if (!f.started) {
                    f.started = true;
                    f.stack.resize(STACK);
                    getcontext(&f.start);
                    f.start.uc_stack.ss_sp = f.stack.data();
                    f.start.uc_stack.ss_size = f.stack.size();
                    f.start.uc_link = nullptr;
                    makecontext(&f.start, fiber_main, 0);
                    swapcontext(&scheduler_context, &f.start);
                } else {
                    _longjmp(f.resume, 1);
                }
            }
#ifdef EMULATE_ASAN
            __sanitizer_finish_switch_fiber(save, nullptr, nullptr);
#endif
            if (f.done) --left;
        }
    }
}
