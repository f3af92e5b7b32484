package org.mpi2nccl.parallel.timing;

import static org.bytedeco.cuda.global.cudart.cudaErrorNotReady;
import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventQuery;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.Pointer;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaLibraries;
import org.mpi2nccl.cuda.NativeLibrary;

/**
 * A GPU rank's {@link Timeline} clock: CUDA events recorded on a stream (the model's, or NCCL's for an all-reduce),
 * read when the timeline is read. On a GPU the host only queues work, so a host timestamp would say when a kernel was
 * launched, not when it ran; an event says when the GPU got there. Recording one queues a marker and returns: the
 * stream is not serialised and the host does not wait.
 *
 * <p>Time zero: {@link #zero} records a first event on the idle model stream right after the ranks met, so "time of
 * mark i" = (GPU time between the first event and mark i) + the host's time zero. Host-timed events (an all-reduce
 * through MPI, which the host waits for) and GPU-timed ones then share one axis, to a few microseconds.
 */
final class CudaMarks {
    private final int device;
    private final CUstream_st modelStream;
    private final Duration timeout;
    private final String who;
    private final List<CUevent_st> events = new ArrayList<>();
    private final ArrayDeque<CUevent_st> spare = new ArrayDeque<>();    // created up front: a mark only records
    private CUevent_st zero;

    /**
     * {@code timeout}, {@code who}: how long reading a mark waits for the GPU before it fails, naming the rank;
     * {@code expected}: marks to create events for now, so that recording a step costs only the records.
     */
    CudaMarks(CudaBackend gpu, Duration timeout, String who, int expected) {
        CudaLibraries.load(NativeLibrary.CUDART);
        this.device = gpu.device().index();
        this.modelStream = stream(gpu.context().streamAddress());
        this.timeout = timeout;
        this.who = who;
        check(cudaSetDevice(device), "cudaSetDevice");
        for (int i = 0; i < expected; i++) spare.add(newEvent());
    }

    /** A JavaCPP stream handle for a raw {@code cudaStream_t} (the model's, or an NCCL communicator's). */
    static CUstream_st stream(long address) {
        return new CUstream_st(new Pointer() {
            {
                this.address = address;
            }
        });
    }

    /** Records time zero on the model stream: call it with the stream idle, at the host's time zero. */
    void zero() {
        check(cudaSetDevice(device), "cudaSetDevice");
        zero = newEvent();
        check(cudaEventRecord(zero, modelStream), "recording the timeline's time zero");
    }

    /** Records a mark on the model stream; returns its number. */
    int mark() {
        return mark(modelStream);
    }

    /** Records a mark on {@code stream}; returns its number. */
    int mark(CUstream_st stream) {
        check(cudaSetDevice(device), "cudaSetDevice");
        CUevent_st e = spare.isEmpty() ? newEvent() : spare.poll();
        check(cudaEventRecord(e, stream), "recording a timeline event");
        events.add(e);
        return events.size() - 1;
    }

    /**
     * Nanoseconds from time zero to mark {@code i}; waits for the GPU to pass it, at most the timeout (a step stuck
     * on a rank that stopped fails this rank instead of hanging it).
     */
    long nanos(int i) {
        CUevent_st e = events.get(i);
        if (e == null) throw new IllegalStateException("timeline mark " + i + " was read and freed already");
        check(cudaSetDevice(device), "cudaSetDevice");
        if (!Deadline.after(timeout).await(() -> done(e))) {
            throw new IllegalStateException(who + ": the GPU has not reached a timeline event queued " + timeout.toSeconds()
                    + " s ago: a collective before it is waiting for a rank that stopped or skipped a step; this rank stops");
        }
        float[] ms = new float[1];
        check(cudaEventElapsedTime(ms, zero, e), "reading a timeline event");
        return Math.round(ms[0] * 1e6);
    }

    private boolean done(CUevent_st e) {
        int r = cudaEventQuery(e);
        if (r == cudaErrorNotReady) return false;
        check(r, "waiting for a timeline event");
        return true;
    }

    /** Frees the events read so far (marks recorded later keep their numbers), and the spare ones. */
    void freeMarks() {
        while (!spare.isEmpty()) cudaEventDestroy(spare.poll());
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) != null) {
                cudaEventDestroy(events.get(i));
                events.set(i, null);
            }
        }
    }

    private static CUevent_st newEvent() {
        CUevent_st e = new CUevent_st();
        check(cudaEventCreate(e), "creating a timeline event");
        return e;
    }

    private static void check(int r, String what) {
        if (r != cudaSuccess) throw new IllegalStateException(what + " failed: " + cudaGetErrorString(r).getString() + " (" + r + ")");
    }
}
