package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaErrorNotReady;
import static org.bytedeco.cuda.global.cudart.cudaGetDevice;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamQuery;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;
import static org.bytedeco.cuda.global.nccl.ncclCommAbort;
import static org.bytedeco.cuda.global.nccl.ncclCommGetAsyncError;
import static org.mpi2nccl.comm.nccl.NcclException.IN_PROGRESS;
import static org.mpi2nccl.comm.nccl.NcclException.SUCCESS;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.Durations;

/**
 * Every wait of the NCCL communicator, each bounded by a {@link Deadline}: NCCL's own state (non-blocking mode:
 * ncclInProgress until a call is done), the GPU stream, and blocking NCCL calls that wait for the other ranks inside
 * NCCL (init and finalize, run on a helper thread). What does not finish in time is aborted with {@code ncclCommAbort} and named.
 */
final class NcclWaits {
    private NcclWaits() {
    }

    /**
     * Polls {@code ncclCommGetAsyncError} until {@code c} leaves ncclInProgress. At the deadline, or on an error, the
     * communicator is aborted (ncclCommAbort) and the error names the call ({@code call}, or {@code what} for init
     * and finalize, where call is null).
     */
    static void awaitComm(ncclComm c, int result, int rank, String what, Deadline d, CollectiveCall call) {
        if (result == SUCCESS) {
            return;
        }
        if (result != IN_PROGRESS) {
            String last = NcclException.lastError(c);
            abortQuietly(c);
            throw new NcclException(rank, what, result, last);
        }
        int[] state = {IN_PROGRESS};
        boolean done = d.await(() -> {
            int r = ncclCommGetAsyncError(c, state);
            if (r != SUCCESS) {
                state[0] = r;
            }
            return state[0] != IN_PROGRESS;
        });
        if (!done) {
            abortQuietly(c);
            throw call == null
                    ? new CollectiveTimeoutException(rank, what, d.timeout(), "every rank to join; aborted with ncclCommAbort")
                    : new CollectiveTimeoutException(rank, call, d.timeout(), what + "; aborted with ncclCommAbort");
        }
        if (state[0] != SUCCESS) {
            String last = NcclException.lastError(c);
            abortQuietly(c);
            throw new NcclException(rank, what, state[0], last);
        }
    }

    /**
     * Runs {@code ncclCommInitRank} ({@code init}) within the deadline. Non-blocking mode: the call returns at once and
     * NCCL's state is polled ({@link #awaitComm}). Blocking mode: NCCL waits inside the call until every rank has
     * joined, so it runs on a helper thread (which makes the rank's GPU current first) and this thread gives up at the
     * deadline with an error instead of hanging. A timed-out init cannot be aborted safely while NCCL is still inside
     * it: the helper thread is left behind, and the rank should end.
     */
    static void initRank(ncclComm comm, int rank, int device, boolean blocking, String what, Deadline d, IntSupplier init) {
        if (!blocking) {
            awaitComm(comm, init.getAsInt(), rank, what, d, null);
            return;
        }
        int r = bounded("nccl-init-rank-" + rank, rank, what, d, () -> {
            NcclCuda.check(cudaSetDevice(device), rank, "cudaSetDevice(" + device + ") on the init thread");
            return init.getAsInt();
        }, null, "every rank to join: is a rank missing, or stuck before its init? (NCCL keeps waiting on a helper"
                + " thread: end this rank)");
        if (r != SUCCESS) {
            String last = NcclException.lastError(comm);
            abortQuietly(comm);
            throw new NcclException(rank, what, r, last);
        }
    }

    /** How a stream wait ended. */
    enum StreamState { DONE, CUDA_ERROR, NCCL_ERROR, TIMED_OUT }

    /** The outcome of {@link #pollStream}: the state and the error number that ended it (CUDA's or NCCL's). */
    record StreamWait(StreamState state, int error) {
    }

    /**
     * How long a stream wait polls with the core yielded between polls before it sleeps in 50 us steps. A sleep
     * overshoots the GPU's end by up to a sleep step plus the timer slack, which a timed loop of collectives counts
     * against every call, while torch.distributed's synchronize spins as CUDA's default wait does and pays nothing.
     * 250 ms covers the benchmark's loops up to 20 x 1 GiB; longer waits (a dead peer) sleep.
     */
    static final long STREAM_YIELD_NANOS = 250_000_000L;

    /** Polls {@code stream} until its queued work is done, watching NCCL's async error on {@code comm}. */
    static StreamWait pollStream(CUstream_st stream, ncclComm comm, Deadline d) {
        int[] async = {SUCCESS};
        int[] cudaErr = {cudaSuccess};
        boolean done = d.await(() -> {
            int q = cudaStreamQuery(stream);
            if (q == cudaSuccess) {
                return true;
            }
            if (q != cudaErrorNotReady) {
                cudaErr[0] = q;
                return true;
            }
            ncclCommGetAsyncError(comm, async);
            return async[0] != SUCCESS && async[0] != IN_PROGRESS;
        }, STREAM_YIELD_NANOS);
        if (cudaErr[0] != cudaSuccess) {
            return new StreamWait(StreamState.CUDA_ERROR, cudaErr[0]);
        }
        if (async[0] != SUCCESS && async[0] != IN_PROGRESS) {
            return new StreamWait(StreamState.NCCL_ERROR, async[0]);
        }
        return new StreamWait(done ? StreamState.DONE : StreamState.TIMED_OUT, 0);
    }

    static String cudaError(int error) {
        return cudaGetErrorString(error).getString() + " (" + error + ")";
    }

    /**
     * Runs a blocking NCCL call that waits inside NCCL for the other ranks (init, finalize) on a helper thread, so
     * that this thread can give up at the deadline with an error instead of hanging. On time: its result. Late:
     * {@code onTimeout} runs (e.g. an abort that makes NCCL return) and a {@link CollectiveTimeoutException} naming
     * {@code what} is thrown; the helper thread is a daemon and does not keep the JVM alive.
     */
    static int bounded(String thread, int rank, String what, Deadline d, Callable<Integer> body, Runnable onTimeout,
                       String waitingFor) {
        FutureTask<Integer> task = new FutureTask<>(body);
        Thread t = new Thread(task, thread);
        t.setDaemon(true);
        t.start();
        try {
            return task.get(Math.max(1, d.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (onTimeout != null) {
                onTimeout.run();
            }
            throw new CollectiveTimeoutException(rank, what, d.timeout(), waitingFor);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException re ? re : new CommException("rank " + rank + ": " + what + " failed: " + c, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("rank " + rank + ": interrupted during " + what, e);
        }
    }

    /** Native memory NCCL may still write after a timed-out call: kept reachable, so that it is never freed under NCCL. */
    private static final java.util.List<org.bytedeco.javacpp.Pointer> KEPT = new java.util.concurrent.CopyOnWriteArrayList<>();

    static void keepForever(org.bytedeco.javacpp.Pointer p) {
        KEPT.add(p);
    }

    /**
     * How long {@code ncclCommAbort} may take. NCCL's abort joins its own threads, which can be stuck behind GPU work
     * that never ends; past this the error being reported goes out anyway.
     */
    static final Duration ABORT_GRACE = Duration.ofSeconds(5);

    /**
     * {@code ncclCommAbort(c)} on a thread of its own (on the caller's current GPU), waited for at most {@link
     * #ABORT_GRACE}: true when it returned. A stuck abort is left running and said on stderr.
     */
    static boolean abortQuietly(ncclComm c) {
        if (c == null || c.isNull()) return true;
        int[] device = {-1};
        cudaGetDevice(device);
        return withinGrace(() -> {
            if (device[0] >= 0) cudaSetDevice(device[0]);
            ncclCommAbort(c);
        }, ABORT_GRACE, "ncclCommAbort");
    }

    /** Runs {@code r} on a daemon thread and waits at most {@code grace}; true when it ended (an error counts). */
    static boolean withinGrace(Runnable r, Duration grace, String what) {
        FutureTask<Void> task = new FutureTask<>(r, null);
        Thread t = new Thread(task, "nccl-" + what);
        t.setDaemon(true);
        t.start();
        try {
            task.get(grace.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException e) {
            return true;    // best effort: the error being reported matters more
        } catch (TimeoutException e) {
            System.err.println(what + " did not return within " + Durations.format(grace) + " (NCCL waits for GPU work that"
                    + " never ends); the error that made it necessary is reported all the same");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
