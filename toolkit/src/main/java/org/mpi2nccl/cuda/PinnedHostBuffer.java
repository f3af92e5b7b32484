package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_PORTABLE;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import jcuda.Pointer;
import jcuda.driver.CUstream;

/**
 * Page-locked (pinned) host memory: the GPU's copy engines read and write it directly at full PCIe/NVLink-C2C
 * speed, and copies to/from it can run asynchronously. Pageable Java arrays must first be staged by the
 * driver, which is slower. The MPI lesson's route (gradients GPU -> host -> MPI allreduce -> host -> GPU)
 * uses one of these per gradient buffer. Seen from Java it is a direct {@link ByteBuffer}/{@link FloatBuffer}.
 */
public final class PinnedHostBuffer implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final CudaContext context;
    private final Pointer host;
    private final long bytes;
    private final ByteBuffer buffer;
    private final Free free;
    private final Cleaner.Cleanable cleanable;

    private PinnedHostBuffer(CudaContext context, Pointer host, long bytes) {
        this.context = context;
        this.host = host;
        this.bytes = bytes;
        this.buffer = bytes == 0 ? ByteBuffer.allocateDirect(0) : host.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
        this.free = new Free(context, host, bytes);
        this.cleanable = CLEANER.register(this, free);
    }

    /** Allocates {@code bytes} of pinned host memory usable with every GPU context (portable). */
    public static PinnedHostBuffer allocate(CudaContext context, long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("pinned buffers hold 0.." + Integer.MAX_VALUE + " bytes (a Java ByteBuffer), asked for " + bytes);
        }
        Pointer p = new Pointer();
        if (bytes > 0) {
            context.makeCurrent();
            CudaException.check(cuMemHostAlloc(p, bytes, CU_MEMHOSTALLOC_PORTABLE), "allocating " + bytes + " bytes of pinned host memory");
        }
        return new PinnedHostBuffer(context, p, bytes);
    }

    public static PinnedHostBuffer allocateFloats(CudaContext context, long count) {
        return allocate(context, Math.multiplyExact(count, 4L));
    }

    public long bytes() {
        return bytes;
    }

    /** The memory as a direct ByteBuffer in native byte order (position 0, limit = size). */
    public ByteBuffer byteBuffer() {
        checkOpen();
        return buffer.duplicate().order(ByteOrder.nativeOrder());
    }

    /** The memory as floats. */
    public FloatBuffer floatBuffer() {
        return byteBuffer().asFloatBuffer();
    }

    /** Queues a copy of {@code byteCount} bytes from device memory into this buffer on {@code stream} (no wait). */
    public void copyFromDeviceAsync(DeviceMemory src, long srcOffset, long dstOffset, long byteCount, CUstream stream) {
        checkRange(dstOffset, byteCount);
        src.checkRange(srcOffset, byteCount, 1);
        if (byteCount == 0) return;
        context.makeCurrent();
        CudaException.check(cuMemcpyDtoHAsync(host.withByteOffset(dstOffset), src.pointer(srcOffset), byteCount, stream),
                "copying " + byteCount + " bytes GPU -> pinned host");
    }

    /** Queues a copy of {@code byteCount} bytes from this buffer into device memory on {@code stream} (no wait). */
    public void copyToDeviceAsync(long srcOffset, DeviceMemory dst, long dstOffset, long byteCount, CUstream stream) {
        checkRange(srcOffset, byteCount);
        dst.checkRange(dstOffset, byteCount, 1);
        if (byteCount == 0) return;
        context.makeCurrent();
        CudaException.check(cuMemcpyHtoDAsync(dst.pointer(dstOffset), host.withByteOffset(srcOffset), byteCount, stream),
                "copying " + byteCount + " bytes pinned host -> GPU");
    }

    /** Copies device memory into this buffer on the context's stream and waits for it. */
    public void copyFromDevice(DeviceMemory src, long byteCount) {
        copyFromDeviceAsync(src, 0, 0, byteCount, context.stream());
        context.synchronize();
    }

    /** Copies this buffer into device memory on the context's stream and waits for it. */
    public void copyToDevice(DeviceMemory dst, long byteCount) {
        copyToDeviceAsync(0, dst, 0, byteCount, context.stream());
        context.synchronize();
    }

    public boolean isClosed() {
        return free.freed;
    }

    @Override
    public void close() {
        cleanable.clean();
    }

    private void checkRange(long offset, long count) {
        checkOpen();
        if (offset < 0 || count < 0 || offset + count > bytes) {
            throw new IndexOutOfBoundsException("bytes [" + offset + ", " + (offset + count) + ") are outside a " + bytes + "-byte pinned buffer");
        }
    }

    private void checkOpen() {
        if (free.freed) throw new IllegalStateException("this PinnedHostBuffer was already closed");
    }

    private static final class Free implements Runnable {
        private final CudaContext context;
        private final Pointer host;
        private final long bytes;
        volatile boolean freed;

        Free(CudaContext context, Pointer host, long bytes) {
            this.context = context;
            this.host = host;
            this.bytes = bytes;
        }

        @Override
        public void run() {
            freed = true;
            if (bytes == 0) return;
            // no copy may still be reading or writing it, and cuMemFreeHost's own wait has no timeout (IdleWait)
            if (context.awaitIdle("freeing " + bytes + " bytes of pinned host memory")) cuMemFreeHost(host);
        }
    }
}
