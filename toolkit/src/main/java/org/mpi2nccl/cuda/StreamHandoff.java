package org.mpi2nccl.cuda;

import static org.bytedeco.cuda.global.cudart.cudaEventCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventDisableTiming;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamWaitEvent;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;

import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

/**
 * Makes one CUDA stream wait for the work queued so far on another, without the host waiting: an event
 * recorded on the first stream, which the second waits for ({@code cudaStreamWaitEvent}). Data-parallel
 * training uses a pair of these to run NCCL's all-reduce on the communicator's own stream beside the rest of
 * backward (model stream -> NCCL stream when a bucket is ready; NCCL stream -> model stream before the
 * optimizer), as PyTorch's DistributedDataParallel does. One event suffices: a wait applies to the event's
 * latest record at the time of the wait, so recording it again later does not disturb an earlier wait.
 */
public final class StreamHandoff implements AutoCloseable {
    private final int device;
    private final CUstream_st from;
    private final CUstream_st to;
    private final CUevent_st event = new CUevent_st();
    private boolean closed;

    /** Work queued on {@code fromStream} before each {@link #handOff()} comes before what is queued on {@code toStream} after it. */
    public StreamHandoff(int device, long fromStream, long toStream) {
        CudaLibraries.load(NativeLibrary.CUDART);
        this.device = device;
        this.from = new CUstream_st(new Handles.JavaCppAddress(fromStream));
        this.to = new CUstream_st(new Handles.JavaCppAddress(toStream));
        check(cudaSetDevice(device), "cudaSetDevice");
        check(cudaEventCreateWithFlags(event, cudaEventDisableTiming), "creating an event to order two streams");
    }

    /** Queues the ordering: everything queued on the first stream so far, before anything queued on the second from now. */
    public void handOff() {
        if (closed) throw new IllegalStateException("this StreamHandoff was closed");
        check(cudaSetDevice(device), "cudaSetDevice");
        check(cudaEventRecord(event, from), "recording the hand-off event");
        check(cudaStreamWaitEvent(to, event, 0), "making a stream wait for another");
    }

    private void check(int r, String what) {
        if (r != cudaSuccess) {
            throw new CudaException(r, what + " on GPU " + device + ": " + cudaGetErrorString(r).getString());
        }
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        cudaEventDestroy(event);
    }
}
