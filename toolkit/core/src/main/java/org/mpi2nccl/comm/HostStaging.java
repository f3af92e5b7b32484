package org.mpi2nccl.comm;

import static org.bytedeco.cuda.global.cudart.cudaFreeHost;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaMallocHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDefault;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.javacpp.Pointer;

/**
 * Runs a host-memory collective on buffers that may live on the GPU: device data is copied into pinned
 * (page-locked) host memory, from there into a Java array, the collective runs on the array, and the result
 * goes back the same way. Host buffers pass straight through. This is how an MPI library without CUDA
 * support (MPJ Express) handles GPU tensors, and the phases are timed ({@link StagingTimes}) because their
 * cost is the point of the NCCL lesson.
 */
public final class HostStaging {
    private HostStaging() {
    }

    /** A collective body on host buffers ({@code send} or {@code recv} may be null where unused). */
    @FunctionalInterface
    public interface HostBody {
        void run(HostBuffer send, HostBuffer recv);
    }

    /**
     * Runs {@code body} on host views of {@code send} and {@code recv}. {@code readSend}: whether the send data
     * is needed (false on ranks where it is ignored). If send and recv are the same device buffer, the body gets
     * one host buffer for both (in place). Returns the phase times, or null when nothing was on the GPU.
     */
    public static StagingTimes run(CommBuffer send, CommBuffer recv, boolean readSend, HostBody body) {
        boolean device = (send != null && send.onDevice()) || (recv != null && recv.onDevice());
        if (!device) {
            body.run((HostBuffer) send, (HostBuffer) recv);
            return null;
        }
        long t0 = System.nanoTime();
        HostBuffer hs = null;
        HostBuffer hr = null;
        if (send != null) {
            hs = scratch(0, send.dataType(), send.count());
            if (readSend) {
                toHost((DeviceBuffer) send, hs);
            }
        }
        if (recv != null) {
            if (send != null && recv.sameAs(send)) {
                hr = hs;                                       // in place
            } else if (send != null && inside((DeviceBuffer) recv, (DeviceBuffer) send)) {
                hr = sliceOf(hs, (DeviceBuffer) send, (DeviceBuffer) recv);    // in-place reduce-scatter
            } else if (send != null && inside((DeviceBuffer) send, (DeviceBuffer) recv)) {
                hr = scratch(1, recv.dataType(), recv.count());                // in-place all-gather
                toHost((DeviceBuffer) recv, hr);
                hs = sliceOf(hr, (DeviceBuffer) recv, (DeviceBuffer) send);
            } else {
                hr = scratch(1, recv.dataType(), recv.count());
            }
        }
        long t1 = System.nanoTime();
        body.run(hs, hr);
        long t2 = System.nanoTime();
        if (recv != null) {
            toDevice(hr, (DeviceBuffer) recv);
        }
        long t3 = System.nanoTime();
        return new StagingTimes(t1 - t0, t2 - t1, t3 - t2);
    }

    private static final ThreadLocal<HostBuffer[]> SCRATCH = ThreadLocal.withInitial(() -> new HostBuffer[2]);

    /**
     * Host array number {@code slot} (0: send, 1: receive) of this thread, reused from call to call: allocating
     * (and zeroing) a fresh gigabyte array per call would cost as much as the copies being measured.
     */
    private static HostBuffer scratch(int slot, DataType type, long count) {
        HostBuffer[] s = SCRATCH.get();
        HostBuffer b = s[slot];
        if (b == null || b.dataType() != type || b.count() < count) {
            s[slot] = null;                       // let the old one go before making the new one
            b = HostBuffer.allocate(type, count);
            s[slot] = b;
        }
        return b.slice(0, count);
    }

    private static boolean inside(DeviceBuffer inner, DeviceBuffer outer) {
        long off = inner.address() - outer.address();
        return inner.device() == outer.device() && off >= 0 && off + inner.bytes() <= outer.bytes()
                && off % outer.dataType().bytes() == 0;
    }

    /** The part of {@code outerHost} (host copy of {@code outer}) that mirrors {@code inner}. */
    private static HostBuffer sliceOf(HostBuffer outerHost, DeviceBuffer outer, DeviceBuffer inner) {
        return outerHost.slice((inner.address() - outer.address()) / outer.dataType().bytes(), inner.count());
    }

    /** Device to host: cudaMemcpy into pinned memory, then into the Java array. */
    public static void toHost(DeviceBuffer src, HostBuffer dst) {
        onDevice(src);
        Pinned p = Pinned.get(src.bytes());
        check(cudaMemcpy(p.pointer, address(src.address()), src.bytes(), cudaMemcpyDefault), "cudaMemcpy D2H");
        ByteBuffer bb = p.buffer(src.bytes());
        switch (dst.dataType()) {
            case INT8 -> bb.get((byte[]) dst.array(), dst.offset(), dst.length());
            case INT32 -> bb.asIntBuffer().get((int[]) dst.array(), dst.offset(), dst.length());
            case INT64 -> bb.asLongBuffer().get((long[]) dst.array(), dst.offset(), dst.length());
            case FLOAT32 -> bb.asFloatBuffer().get((float[]) dst.array(), dst.offset(), dst.length());
            case FLOAT64 -> bb.asDoubleBuffer().get((double[]) dst.array(), dst.offset(), dst.length());
        }
    }

    /** Host to device: Java array into pinned memory, then cudaMemcpy. */
    public static void toDevice(HostBuffer src, DeviceBuffer dst) {
        onDevice(dst);
        Pinned p = Pinned.get(dst.bytes());
        ByteBuffer bb = p.buffer(dst.bytes());
        switch (src.dataType()) {
            case INT8 -> bb.put((byte[]) src.array(), src.offset(), src.length());
            case INT32 -> bb.asIntBuffer().put((int[]) src.array(), src.offset(), src.length());
            case INT64 -> bb.asLongBuffer().put((long[]) src.array(), src.offset(), src.length());
            case FLOAT32 -> bb.asFloatBuffer().put((float[]) src.array(), src.offset(), src.length());
            case FLOAT64 -> bb.asDoubleBuffer().put((double[]) src.array(), src.offset(), src.length());
        }
        check(cudaMemcpy(address(dst.address()), p.pointer, dst.bytes(), cudaMemcpyDefault), "cudaMemcpy H2D");
    }

    /**
     * Makes the buffer's GPU this thread's current device before copying. The copies run on whatever thread calls
     * (the MPJ communicator's worker, whose current device is 0): memory from a stream-ordered pool (the CUDA
     * backend's tensors, the trainer's gradient buckets) may only be reachable from its own device's context.
     */
    private static void onDevice(DeviceBuffer b) {
        check(org.bytedeco.cuda.global.cudart.cudaSetDevice(b.device()), "cudaSetDevice(" + b.device() + ")");
    }

    static Pointer address(long a) {
        return new Pointer() {
            {
                address = a;
            }
        };
    }

    private static void check(int err, String what) {
        if (err != 0) {
            throw new CommException(what + " failed: CUDA error " + err + " (" + cudaGetErrorString(err).getString() + ")");
        }
    }

    /**
     * A pinned host buffer kept per thread and grown on demand (cudaMallocHost is slow: allocate once, reuse).
     * Freed when the thread's buffer is replaced by a larger one, and by {@link #release()}, which the
     * communicators call from close().
     */
    private static final class Pinned {
        private static final ThreadLocal<Pinned> CACHE = new ThreadLocal<>();
        final Pointer pointer;
        final long capacity;

        private Pinned(Pointer pointer, long capacity) {
            this.pointer = pointer;
            this.capacity = capacity;
        }

        static Pinned get(long bytes) {
            Pinned p = CACHE.get();
            if (p == null || p.capacity < bytes) {
                if (p != null) {
                    cudaFreeHost(p.pointer);
                }
                Pointer ptr = new Pointer();
                long cap = Math.max(bytes, 1 << 20);
                check(cudaMallocHost(ptr, cap), "cudaMallocHost(" + cap + " bytes)");
                p = new Pinned(ptr, cap);
                CACHE.set(p);
            }
            return p;
        }

        ByteBuffer buffer(long bytes) {
            if (bytes > Integer.MAX_VALUE) {
                throw new CommException("host staging handles at most 2 GiB per buffer; got " + bytes + " bytes");
            }
            return new org.bytedeco.javacpp.BytePointer(pointer).capacity(bytes).asByteBuffer().order(ByteOrder.nativeOrder());
        }
    }

    /** Frees this thread's pinned staging buffer, if CUDA was ever used on it (safe without a GPU). */
    public static void releaseIfLoaded() {
        SCRATCH.remove();
        if (Pinned.CACHE.get() != null) {
            release();
        }
    }

    /** Frees this thread's pinned staging buffer and host arrays. */
    public static void release() {
        SCRATCH.remove();
        Pinned p = Pinned.CACHE.get();
        if (p != null) {
            cudaFreeHost(p.pointer);
            Pinned.CACHE.remove();
        }
    }
}
