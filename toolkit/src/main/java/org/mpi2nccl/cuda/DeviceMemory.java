package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocAsync;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;

import java.lang.ref.Cleaner;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;

/**
 * A block of GPU memory. Free it with {@link #close()} (try-with-resources), or let the enclosing
 * {@link MemoryScope} free it; a block that nobody closed is freed when the garbage collector finds it
 * unreachable (a safety net, counted in {@link CudaContext.MemoryStats#reclaimedByGc()}: rely on it and
 * the GPU fills up between collections). Freeing is stream-ordered: it happens after the work already
 * queued on the context's stream, so closing right after launching a kernel that uses the block is safe.
 * Copies from Java arrays are queued on the stream through pinned buffers ({@link PinnedUploads}: the host
 * does not wait for the GPU); copies to Java arrays wait for the stream (they see every queued kernel's result).
 */
public final class DeviceMemory implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final CudaContext context;
    private final long address;
    private final long bytes;
    private final Release release;
    private final Cleaner.Cleanable cleanable;      // null for a view
    private final DeviceMemory parent;              // the block a view lies in; null for a block of its own
    private MemoryScope scope;

    private DeviceMemory(CudaContext context, long address, long bytes, boolean streamOrdered) {
        this.context = context;
        this.address = address;
        this.bytes = bytes;
        this.release = new Release(context, address, bytes, streamOrdered);
        this.cleanable = CLEANER.register(this, release);
        this.parent = null;
    }

    private DeviceMemory(DeviceMemory parent, long address, long bytes) {
        this.context = parent.context;
        this.address = address;
        this.bytes = bytes;
        this.release = null;
        this.cleanable = null;
        this.parent = parent;
    }

    /**
     * {@code bytes} bytes of this block from {@code byteOffset}, as a block of their own for kernels and copies:
     * the same memory, not a copy. The view owns nothing: closing it frees nothing, and it is unusable once
     * this block is closed (data-parallel training makes each parameter's gradient a view of a flat bucket).
     */
    public DeviceMemory view(long byteOffset, long bytes) {
        checkRange(byteOffset, bytes, 1);
        return new DeviceMemory(this, address + byteOffset, bytes);
    }

    static DeviceMemory allocate(CudaContext context, long bytes) {
        DeviceMemory m = allocateUnscoped(context, bytes);
        MemoryScope.registerInCurrent(m);
        return m;
    }

    /** Allocates a block no {@link MemoryScope} owns (long-lived buffers of the toolkit itself). */
    static DeviceMemory allocateUnscoped(CudaContext context, long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        context.makeCurrent();
        long address = 0;
        // While a CUDA graph is recorded from the stream, a stream-ordered allocation would become part of the graph:
        // take plain device memory instead (freed the plain way too).
        boolean streamOrdered = context.streamOrdered() && !context.capturing;
        if (bytes > 0) address = allocateOrCollect(context, bytes, streamOrdered);
        long live = context.liveBytes.addAndGet(bytes);
        context.peakBytes.accumulateAndGet(live, Math::max);
        context.liveBuffers.incrementAndGet();
        context.allocations.incrementAndGet();
        return new DeviceMemory(context, address, bytes, streamOrdered);
    }

    /** Allocates; when the GPU is full, lets the garbage collector free forgotten blocks and tries once more. */
    private static long allocateOrCollect(CudaContext context, long bytes, boolean streamOrdered) {
        Handles.AllocatedPointer p = new Handles.AllocatedPointer();
        int r = raw(context, p, bytes, streamOrdered);
        if (r == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
            System.gc();
            try {
                // the Cleaner thread frees what the collection found; nothing says when it is done: one pause, one retry
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            context.synchronize();
            r = raw(context, p, bytes, streamOrdered);
        }
        if (r != CUresult.CUDA_SUCCESS) {
            CudaContext.MemoryStats s = context.memoryStats();
            throw new CudaException(r, "allocating " + bytes + " bytes on GPU " + context.device.ordinal + " (toolkit holds "
                    + s.liveBytes() + " bytes in " + s.liveBuffers() + " buffers; GPU free " + s.deviceFree() + " of "
                    + s.deviceTotal() + ")");
        }
        return p.address();
    }

    private static int raw(CudaContext context, Handles.AllocatedPointer p, long bytes, boolean streamOrdered) {
        return streamOrdered ? cuMemAllocAsync(p, bytes, context.stream()) : cuMemAlloc(p, bytes);
    }

    /** The device address (a CUdeviceptr's value; what JavaCPP/NCCL take as a pointer). */
    public long address() {
        checkOpen();
        return address;
    }

    /** The address {@code byteOffset} bytes in, checked against the size. */
    public long address(long byteOffset) {
        checkOpen();
        if (byteOffset < 0 || byteOffset > bytes) {
            throw new IndexOutOfBoundsException("offset " + byteOffset + " outside a " + bytes + "-byte block");
        }
        return address + byteOffset;
    }

    /** A JCuda device pointer to this block (plus an offset). */
    public CUdeviceptr pointer(long byteOffset) {
        return Handles.device(address(byteOffset));
    }

    public CUdeviceptr pointer() {
        return pointer(0);
    }

    public long bytes() {
        return bytes;
    }

    /** How many floats fit. */
    public long floats() {
        return bytes / 4;
    }

    public CudaContext context() {
        return context;
    }

    public boolean isClosed() {
        return parent != null ? viewClosed || parent.isClosed() : release.freed;
    }

    private volatile boolean viewClosed;

    /** Frees the block (after the work queued so far); a view is only marked closed. Closing twice is harmless. */
    @Override
    public void close() {
        if (parent != null) {
            viewClosed = true;
            return;
        }
        release.explicit = true;
        cleanable.clean();
        MemoryScope s = scope;
        if (s != null) s.forget(this);
    }

    void setScope(MemoryScope scope) {
        this.scope = scope;
    }

    MemoryScope scope() {
        return scope;
    }

    // ---- copies ---------------------------------------------------------------------------------

    /** Copies {@code src} to the start of this block (waits for queued work first). */
    public void copyFrom(float[] src) {
        copyFrom(src, 0, 0, src.length);
    }

    /** Copies {@code count} floats from {@code src[srcIndex..]} to float index {@code dstIndex} of this block. */
    public void copyFrom(float[] src, int srcIndex, long dstIndex, int count) {
        checkRange(dstIndex, count, 4);
        if (srcIndex < 0 || count < 0 || srcIndex + count > src.length) {
            throw new IndexOutOfBoundsException("float[" + src.length + "] has no range [" + srcIndex + ", " + (srcIndex + count) + ")");
        }
        if (count == 0) return;
        // Queued on the stream through pinned memory: ordered after the kernels before it, without waiting for them.
        context.uploads().upload(address(dstIndex * 4), count * 4L,
                (b, off) -> b.asFloatBuffer().put(src, srcIndex + (int) (off / 4), b.remaining() / 4),
                "copying " + count + " floats to the GPU");
    }

    /** Copies the first {@code dst.length} floats of this block into {@code dst}. */
    public void copyTo(float[] dst) {
        copyTo(0, dst, 0, dst.length);
    }

    /** Copies {@code count} floats from float index {@code srcIndex} of this block into {@code dst[dstIndex..]}. */
    public void copyTo(long srcIndex, float[] dst, int dstIndex, int count) {
        checkRange(srcIndex, count, 4);
        if (dstIndex < 0 || count < 0 || dstIndex + count > dst.length) {
            throw new IndexOutOfBoundsException("float[" + dst.length + "] has no range [" + dstIndex + ", " + (dstIndex + count) + ")");
        }
        if (count == 0) return;
        boolean whole = dstIndex == 0 && count == dst.length;
        float[] target = whole ? dst : new float[count];
        context.synchronize();
        CudaException.check(cuMemcpyDtoH(Pointer.to(target), pointer(srcIndex * 4), count * 4L),
                "copying " + count + " floats from the GPU");
        if (!whole) System.arraycopy(target, 0, dst, dstIndex, count);
    }

    /** The whole block as floats. */
    public float[] toFloatArray() {
        if (floats() > Integer.MAX_VALUE - 8) throw new IllegalStateException(floats() + " floats do not fit a Java array");
        float[] out = new float[(int) floats()];
        copyTo(out);
        return out;
    }

    /** Copies raw bytes from a Java array (ints, labels as bytes, ...) to byte offset {@code dstOffset}. */
    public void copyFromBytes(byte[] src, long dstOffset) {
        checkRange(dstOffset, src.length, 1);
        if (src.length == 0) return;
        context.uploads().upload(address(dstOffset), src.length, (b, off) -> b.put(src, (int) (long) off, b.remaining()),
                "copying " + src.length + " bytes to the GPU");
    }

    public void copyFromInts(int[] src, long dstIndex) {
        checkRange(dstIndex, src.length, 4);
        if (src.length == 0) return;
        context.uploads().upload(address(dstIndex * 4), src.length * 4L,
                (b, off) -> b.asIntBuffer().put(src, (int) (off / 4), b.remaining() / 4), "copying " + src.length + " ints to the GPU");
    }

    public void copyToInts(long srcIndex, int[] dst) {
        checkRange(srcIndex, dst.length, 4);
        if (dst.length == 0) return;
        context.synchronize();
        CudaException.check(cuMemcpyDtoH(Pointer.to(dst), pointer(srcIndex * 4), dst.length * 4L), "copying ints from the GPU");
    }

    public void copyToBytes(long srcOffset, byte[] dst) {
        checkRange(srcOffset, dst.length, 1);
        if (dst.length == 0) return;
        context.synchronize();
        CudaException.check(cuMemcpyDtoH(Pointer.to(dst), pointer(srcOffset), dst.length), "copying bytes from the GPU");
    }

    /** Queues a device-to-device copy of {@code byteCount} bytes (no wait). */
    public void copyFrom(DeviceMemory src, long srcOffset, long dstOffset, long byteCount) {
        src.checkRange(srcOffset, byteCount, 1);
        checkRange(dstOffset, byteCount, 1);
        if (byteCount == 0) return;
        context.makeCurrent();
        CudaException.check(cuMemcpyDtoDAsync(pointer(dstOffset), src.pointer(srcOffset), byteCount, context.stream()),
                "device-to-device copy of " + byteCount + " bytes");
    }

    /** Queues setting every byte of the block to zero. */
    public void zero() {
        if (bytes == 0) return;
        context.makeCurrent();
        if (bytes % 4 != 0) throw new IllegalStateException("zero() needs a multiple of 4 bytes, block has " + bytes);
        CudaException.check(cuMemsetD32Async(pointer(), 0, bytes / 4, context.stream()), "cuMemsetD32Async");
    }

    /** Checks [index, index+count) elements of {@code elementBytes} lie inside the block. */
    void checkRange(long index, long count, int elementBytes) {
        checkOpen();
        if (index < 0 || count < 0 || (index + count) * elementBytes > bytes) {
            throw new IndexOutOfBoundsException("elements [" + index + ", " + (index + count) + ") of " + elementBytes
                    + " bytes are outside a " + bytes + "-byte device block");
        }
    }

    private void checkOpen() {
        if (isClosed()) throw new IllegalStateException("this DeviceMemory (" + bytes + " bytes) was already closed");
    }

    @Override
    public String toString() {
        return "DeviceMemory[" + bytes + " bytes on GPU " + context.device.ordinal + (parent != null ? ", a view" : "")
                + (isClosed() ? ", closed" : "") + "]";
    }

    /** Frees the block; runs once, from close() or from the Cleaner. Holds no reference to the DeviceMemory. */
    private static final class Release implements Runnable {
        private final CudaContext context;
        private final long address;
        private final long bytes;
        private final boolean streamOrdered;
        volatile boolean explicit;
        volatile boolean freed;

        Release(CudaContext context, long address, long bytes, boolean streamOrdered) {
            this.context = context;
            this.address = address;
            this.bytes = bytes;
            this.streamOrdered = streamOrdered;
        }

        @Override
        public void run() {
            freed = true;
            context.liveBytes.addAndGet(-bytes);
            context.liveBuffers.decrementAndGet();
            if (!explicit) context.reclaimedByGc.incrementAndGet();
            if (address == 0) return;
            if (context.capturing) {
                // a free queued on the stream now would be recorded into the graph: free it once the recording ends
                context.afterCapture.add(this::free);
                return;
            }
            free();
        }

        private void free() {
            context.makeCurrent();
            // cuMemFree (a GPU without memory pools) waits for the whole GPU with no timeout: bounded first (IdleWait)
            if (!streamOrdered && !context.awaitIdle("freeing " + bytes + " bytes of device memory")) return;
            int r = streamOrdered ? cuMemFreeAsync(Handles.device(address), context.stream()) : cuMemFree(Handles.device(address));
            if (r != CUresult.CUDA_SUCCESS && explicit) throw new CudaException(r, "freeing " + bytes + " bytes of device memory");
        }
    }
}
