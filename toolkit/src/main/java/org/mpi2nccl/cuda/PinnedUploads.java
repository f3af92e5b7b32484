package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.BiConsumer;
import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;

/**
 * Host-to-device copies that do not make the host wait for the GPU. A plain {@code cuMemcpyHtoD} from a Java
 * array is synchronous: it waits for every kernel already queued, so a training loop that uploads each batch
 * that way can never run ahead of the GPU (the GPU then idles while the host prepares the next step). Here
 * the data is first copied into one of a few page-locked (pinned) host buffers, and the copy to the GPU is
 * queued on the context's stream with {@code cuMemcpyHtoDAsync}: ordered after the kernels before it, like the
 * synchronous copy, but the call returns at once. The Java array may be reused as soon as the call returns.
 *
 * <p>A buffer is reused only after the GPU has finished the copy out of it (an event per buffer), so at most
 * {@link #SLOTS} uploads are in flight; larger arrays go in {@link #CHUNK_BYTES} pieces through the same ring,
 * which also pipelines the host-side copy with the transfer.
 */
final class PinnedUploads implements AutoCloseable {
    /** Two uploads a training step (its inputs and labels) for every step the host may run ahead ({@link StepsAhead}), and two spare. */
    static final int SLOTS = 2 * StepsAhead.STEPS + 2;
    static final long CHUNK_BYTES = 8L << 20;

    private final CudaContext context;
    private final Slot[] slots = new Slot[SLOTS];
    private int next;
    private long pinnedBytes;
    private long largest;
    private int allocations;

    private static final class Slot {
        Pointer host;
        ByteBuffer view;
        long capacity;
        final CUevent done = new CUevent();
        boolean recorded;
    }

    PinnedUploads(CudaContext context) {
        this.context = context;
    }

    /**
     * Queues a copy of {@code bytes} bytes to device address {@code dst}. {@code fill} receives a native-order
     * buffer (position 0, limit = the piece's size) and the byte offset of that piece in the whole copy, and
     * writes the piece's bytes.
     */
    synchronized void upload(long dst, long bytes, BiConsumer<ByteBuffer, Long> fill, String what) {
        context.makeCurrent();
        for (long off = 0; off < bytes; off += CHUNK_BYTES) {
            long piece = Math.min(CHUNK_BYTES, bytes - off);
            Slot s = take(piece, what);
            ByteBuffer b = s.view.duplicate().order(ByteOrder.nativeOrder());
            b.limit((int) piece);
            fill.accept(b.slice().order(ByteOrder.nativeOrder()), off);
            CudaException.check(cuMemcpyHtoDAsync(Handles.device(dst + off), s.host, piece, context.stream()), what);
            CudaException.check(cuEventRecord(s.done, context.stream()), what + " (recording its event)");
            s.recorded = true;
        }
    }

    /** The next buffer of the ring, at least {@code bytes} large, once the GPU has copied out of it. */
    private Slot take(long bytes, String what) {
        int i = next;
        next = (next + 1) % SLOTS;
        Slot s = slots[i];
        if (s == null) {
            s = new Slot();
            CudaException.check(cuEventCreate(s.done, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
            slots[i] = s;
        }
        if (s.recorded) awaitFree(s, what);
        if (s.capacity < bytes) {
            // cuMemFreeHost waits for the whole GPU with no timeout: a bounded wait comes first (IdleWait). Every
            // slot grows to the largest upload seen, so that this happens a few times a run, not every other step.
            if (s.host != null && context.awaitIdle("freeing a pinned upload buffer to grow it for " + what)) {
                cuMemFreeHost(s.host);
            }
            if (s.host != null) pinnedBytes -= s.capacity;
            long cap = Math.max(Math.max(bytes, 1L << 20), largest);
            s.host = new Pointer();
            CudaException.check(cuMemHostAlloc(s.host, cap, 0), "allocating " + cap + " bytes of pinned host memory for " + what);
            s.view = s.host.getByteBuffer(0, cap);
            s.capacity = cap;
            pinnedBytes += cap;
            largest = cap;
            allocations++;
        }
        return s;
    }

    private void awaitFree(Slot s, String what) {
        EventWait.await(s.done, context.device.ordinal, "an earlier upload before " + what);
        s.recorded = false;
    }

    /** Bytes of pinned host memory held (for the memory report). */
    synchronized long pinnedBytes() {
        return pinnedBytes;
    }

    /** Pinned buffers allocated so far, growths included. */
    synchronized int allocations() {
        return allocations;
    }

    /** Waits for the copies in flight, then frees the pinned buffers and events (left to the process's end on a stuck GPU). */
    @Override
    public synchronized void close() {
        context.makeCurrent();
        boolean idle = context.awaitIdle("freeing the pinned upload buffers");
        for (int i = 0; i < SLOTS; i++) {
            Slot s = slots[i];
            if (s == null) continue;
            if (idle && s.host != null) cuMemFreeHost(s.host);
            if (idle) cuEventDestroy(s.done);
            slots[i] = null;
        }
        pinnedBytes = 0;
    }
}
