package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;

import java.nio.ByteOrder;
import java.nio.IntBuffer;
import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;

/**
 * The check that every label handed to {@code oneHot} or {@code softmaxCrossEntropy} is a class, without making the host wait for the GPU
 * at every training step. The kernel writes the first bad row into a flag on the GPU; the flag is copied
 * back into pinned memory on the same stream, and the host reads it later: when it next waits for the GPU
 * anyway ({@link CudaBackend#synchronize()}, a copy to the host), or when the flag's slot comes round again
 * {@link #SLOTS} calls later. PyTorch reports its device-side asserts the same way; with
 * {@code MPI2NCCL_CUDA_SYNC=1} every launch waits, and the error comes from the call itself.
 */
final class LabelChecks implements AutoCloseable {
    static final int SLOTS = 8;
    private static final int NONE = Integer.MAX_VALUE;

    private final CudaContext context;
    private DeviceMemory flags;
    private Pointer host;
    private IntBuffer hostView;
    private final CUevent[] done = new CUevent[SLOTS];
    private final Call[] pending = new Call[SLOTS];
    private int next;
    private long calls;

    /** What a pending check needs for its message: the operation that checked, and its batch. */
    private record Call(long number, String op, long rows, int classes) {}

    LabelChecks(CudaContext context) {
        this.context = context;
        this.recorded = new OwnedPool<>(() -> new Recorded(context), Recorded::free);
    }

    /**
     * A flag slot for the next checking kernel; reads (and reports) the slot's previous check first. With
     * {@code reset} the flag is set to "no bad row" on the stream first (for oneHot's atomicMin); a kernel that
     * always writes its flag (the one-block cross-entropy) saves that call.
     */
    synchronized long flagFor(boolean reset) {
        if (context.capturing) return recordedFlag(reset);
        ensureBuffers();
        int i = next;
        next = (next + 1) % SLOTS;
        if (pending[i] != null) check(i);
        long flag = flags.address(i * 4L);
        if (reset) CudaException.check(cuMemsetD32Async(Handles.device(flag), NONE, 1, context.stream()), "resetting a label check flag");
        return flag;
    }

    /** After the kernel {@code op} was queued: the flag's copy to the host, and the event that says it has arrived. */
    synchronized void queued(long flag, String op, long rows, int classes) {
        if (context.capturing) {
            recordedCheck(flag, op, rows, classes);
            return;
        }
        int i = (int) ((flag - flags.address()) / 4);
        CudaException.check(cuMemcpyDtoHAsync(host.withByteOffset(i * 4L), Handles.device(flag), 4, context.stream()),
                "copying a label check flag back");
        CudaException.check(cuEventRecord(done[i], context.stream()), "recording a label check");
        pending[i] = new Call(++calls, op, rows, classes);
    }

    /** Reports the first bad label among the checks still pending (call after the stream was synchronised). */
    synchronized void checkAll() {
        if (unreported != null) {
            IllegalArgumentException e = unreported;
            unreported = null;
            throw e;
        }
        for (Recorded r : recorded.inUse()) {
            IllegalArgumentException e = r.failure();
            if (e != null) throw e;
        }
        if (flags == null) return;
        for (int k = 1; k <= SLOTS; k++) {
            int i = (next + k) % SLOTS;           // oldest first
            if (pending[i] != null) check(i);
        }
    }

    private void check(int i) {
        EventWait.await(done[i], context.device.ordinal, "a label check");
        Call c = pending[i];
        pending[i] = null;
        int bad = hostView.get(i);
        if (bad != NONE) {
            long ago = calls - c.number;
            throw new IllegalArgumentException(c.op() + ": the label at position " + bad + " of a batch of " + c.rows()
                    + " is not a class in [0, " + c.classes() + ")" + (ago == 0 ? "" : " (found by the GPU " + ago
                    + " label-checking call(s) ago: labels are checked without waiting; set MPI2NCCL_CUDA_SYNC=1 to stop at the call)")
                    + ". Labels must be class indices 0.." + (c.classes() - 1));
        }
    }

    // Checks recorded into a CUDA graph (CudaGraph): no event can be waited for there, so each gets a flag and a
    // pinned word of its own, which every replay writes again; they are read whenever the host waits for the GPU.
    // They belong to the GraphRecording that recorded them and go back to the pool when it closes (OwnedPool).
    private static final class Recorded {
        final DeviceMemory flag;
        final Pointer host = new Pointer();
        final java.nio.ByteBuffer word;
        String op;
        long rows;
        int classes;

        Recorded(CudaContext context) {
            flag = DeviceMemory.allocateUnscoped(context, 4);
            CudaException.check(cuMemHostAlloc(host, 4, 0), "allocating pinned memory for a recorded label check");
            word = host.getByteBuffer(0, 4).order(ByteOrder.nativeOrder());
            word.putInt(0, NONE);
        }

        /** The error for a bad label found by the last replay, or null. */
        IllegalArgumentException failure() {
            int bad = word.getInt(0);
            if (bad == NONE || op == null) return null;
            return new IllegalArgumentException(op + ": the label at position " + bad + " of a batch of " + rows
                    + " is not a class in [0, " + classes + ") (found in a step replayed from a CUDA graph). Labels must be"
                    + " class indices 0.." + (classes - 1));
        }

        void free() {
            if (flag.context().awaitIdle("freeing a recorded label check's pinned word")) cuMemFreeHost(host);
            flag.close();
        }
    }

    private final OwnedPool<Recorded> recorded;
    /** The recording whose checks are being recorded now (the owner of new slots), or null. */
    private Object recordingOwner;
    /** A bad label found in the last replay of a recording that was closed before the host looked: the next report. */
    private IllegalArgumentException unreported;

    /** {@code owner} (a {@link GraphRecording}) starts recording: the checks recorded from now on are its own. */
    synchronized void recordingStarted(Object owner) {
        recordingOwner = owner;
    }

    /**
     * {@code owner}'s graphs are closed (their replays waited for): its slots go back to the pool, a bad label its last
     * replay found kept for the next {@link #checkAll}.
     */
    synchronized void recordingClosed(Object owner) {
        if (recordingOwner == owner) recordingOwner = null;
        for (Recorded r : recorded.giveBack(owner)) {
            if (unreported == null) unreported = r.failure();
            r.op = null;
            r.word.putInt(0, NONE);
        }
    }

    /** The recorded checks' slots that exist now, lent or idle: as many as the open recordings need, not one set per recording. */
    synchronized int recordedSlots() {
        return recorded.inUse().size() + recorded.idleCount();
    }

    private long recordedFlag(boolean reset) {
        Recorded r = recorded.take(recordingOwner != null ? recordingOwner : this);
        if (reset) CudaException.check(cuMemsetD32Async(Handles.device(r.flag.address()), NONE, 1, context.stream()), "resetting a label check flag");
        return r.flag.address();
    }

    private void recordedCheck(long flag, String op, long rows, int classes) {
        for (Recorded r : recorded.inUse()) {
            if (r.flag.address() == flag && r.op == null) {
                CudaException.check(cuMemcpyDtoHAsync(r.host, Handles.device(flag), 4, context.stream()), "copying a label check flag back");
                r.op = op;
                r.rows = rows;
                r.classes = classes;
                return;
            }
        }
        throw new IllegalStateException("a recorded label check without its flag: " + op);
    }

    private void ensureBuffers() {
        if (flags != null) return;
        context.makeCurrent();
        flags = DeviceMemory.allocateUnscoped(context, SLOTS * 4L);
        host = new Pointer();
        CudaException.check(cuMemHostAlloc(host, SLOTS * 4L, 0), "allocating pinned memory for the label checks");
        hostView = host.getByteBuffer(0, SLOTS * 4L).order(ByteOrder.nativeOrder()).asIntBuffer();
        for (int i = 0; i < SLOTS; i++) {
            done[i] = new CUevent();
            CudaException.check(cuEventCreate(done[i], CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        }
    }

    @Override
    public synchronized void close() {
        recorded.freeAll();
        recordingOwner = null;
        if (flags == null) return;
        context.makeCurrent();
        for (CUevent e : done) cuEventDestroy(e);
        if (context.awaitIdle("freeing the label checks' pinned words")) cuMemFreeHost(host);
        flags.close();
        flags = null;
    }
}
