package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclCommFinalize;
import static org.mpi2nccl.comm.nccl.NcclException.IN_PROGRESS;
import static org.mpi2nccl.comm.nccl.NcclException.SUCCESS;
import static org.mpi2nccl.comm.nccl.NcclTypes.ncclOp;
import static org.mpi2nccl.comm.nccl.NcclTypes.ncclType;

import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.Reduction;

/**
 * How one {@link NcclCommunicator}'s NCCL calls are launched, settled and waited for: the previous call settled
 * (non-blocking mode), the buffers checked, the call queued in an open group or preceded by the metadata check, its
 * result polled, the stream waited for within the timeout, and the communicator aborted when something went wrong.
 *
 * <p>Separate from the communicator so that {@link NcclCommunicator} reads as the lesson's API (what each collective
 * sends where, how the communicator is made, split and closed) and this class as the safety machinery that runs
 * around every NCCL call. It keeps no NCCL handle of its own: the communicator's ({@link NcclCommunicator#handle}) is
 * read at each step and dropped through {@link NcclCommunicator#aborted} once NCCL's side was aborted.
 */
final class NcclCalls {
    private final NcclCommunicator owner;
    private final int rank;
    private final int size;
    private final int device;
    private final NcclOptions options;
    private final CUstream_st stream;
    private final boolean inClique;
    private final NcclMetadataCheck metadata;
    private final NcclPointers pointers;
    private CollectiveCall lastQueued;
    /**
     * Where the last NCCL call went (buffers, stream, device), for the error that may surface when it runs. Built only
     * when such an error is reported: the fast path makes no strings per call.
     */
    private Supplier<String> lastLaunch = () -> "none yet";
    /** Bounds NCCL's own waits inside a call in blocking mode (null in non-blocking mode, where calls are polled). */
    private final NcclWatchdog watchdog;

    NcclCalls(NcclCommunicator owner, boolean inClique, NcclMetadataCheck metadata) {
        this.owner = owner;
        this.rank = owner.rank();
        this.size = owner.size();
        this.device = owner.device();
        this.options = owner.options();
        this.stream = owner.stream();
        this.inClique = inClique;
        this.metadata = metadata;
        this.pointers = new NcclPointers(rank, device);
        this.watchdog = options.blocking() ? new NcclWatchdog(rank, () -> {
            NcclCuda.setDevice(device, rank);
            NcclWaits.abortQuietly(owner.handle());
        }) : null;
    }

    /**
     * Launches one NCCL call: settles the previous one (non-blocking mode; calls queued in an open group leave the
     * communicator settled until the group ends), checks the buffers, queues the call in
     * the open group if there is one, else runs the metadata check ({@code collective} calls only) and the call,
     * then waits for the GPU (synchronous mode) or remembers it for {@link NcclCommunicator#synchronize}.
     */
    void launch(CollectiveCall call, CommBuffer send, CommBuffer recv, boolean collective, IntSupplier ncclCall) {
        Deadline d = Deadline.after(owner.timeout());
        setDevice();
        NcclGroup g = NcclGroup.open();
        settle(call, d);        // also inside a group: a non-blocking call still in progress would refuse the new one
        pointers.check(call, send, recv, options.verifyCalls());
        lastLaunch = () -> NcclPointers.describe(call, send, recv) + streamAndDevice();
        if (g != null) {
            int r = bounded(() -> call.describe() + " (inside a group)", d, ncclCall);
            if (r != SUCCESS && r != IN_PROGRESS) {
                throw new NcclException(rank, call.describe() + " (inside a group)", r, NcclException.lastError(owner.handle()));
            }
            g.queued(owner, call);
            return;
        }
        if (collective && inClique && size > 1) {
            throw new IllegalStateException("rank " + rank + ": " + call.describe() + " on one GPU of a single-process"
                    + " communicator would wait forever for the others: issue every GPU's call inside"
                    + " NcclCommunicator.group(() -> ...)");
        }
        if (collective && options.verifyCalls()) {
            metadata.verify(call, d);
        }
        complete(bounded(call::describe, d, ncclCall), call, d,
                collective ? "nccl" + capitalized(call.collective().label()) : "ncclSend/ncclRecv");
        if (options.synchronous()) {
            waitStream(call, d, "the GPU to finish the collective");
        } else {
            lastQueued = call;
        }
    }

    /** {@link NcclCommunicator#barrier}: an all-reduce of one number on the GPU, waited for. */
    void barrier(CollectiveCall call) {
        Deadline d = Deadline.after(owner.timeout());
        setDevice();
        settle(call, d);
        if (options.verifyCalls()) {
            metadata.verify(call, d);
        }
        Pointer scratch = metadata.scratch();
        lastLaunch = () -> "the barrier's ncclAllReduce (1 x int64 in place at " + Addresses.hex(scratch.address()) + ", "
                + streamAndDevice() + ")";
        IntSupplier allReduce = () -> ncclAllReduce(scratch, scratch, 1, ncclType(DataType.INT64), ncclOp(Reduction.SUM),
                owner.handle(), stream);
        complete(bounded(call::describe, d, allReduce), call, d, "ncclAllReduce");
        waitStream(call, d, "the barrier's all-reduce");
    }

    /** The last call queued without waiting (asynchronous mode), or null. */
    CollectiveCall lastQueued() {
        return lastQueued;
    }

    /** {@link NcclCommunicator#synchronize}: waits for every call queued so far, the last being {@code last}. */
    void awaitQueued(CollectiveCall last) {
        setDevice();
        waitStream(last, Deadline.after(owner.timeout()), "the queued collectives (the last: " + last.describe() + ")");
        lastQueued = null;
    }

    /** After ncclGroupEnd returned {@code r}: waits for this communicator's part of the group (ending with {@code last}). */
    void endGroup(int r, CollectiveCall last) {
        Deadline d = Deadline.after(owner.timeout());
        setDevice();
        if (r == IN_PROGRESS) {
            awaitOwn(r, "ncclGroupEnd", d, last);
        } else if (r != SUCCESS) {
            throw new NcclException(rank, "ncclGroupEnd (group ending with " + last.describe() + ")", r,
                    NcclException.lastError(owner.handle()));
        }
        if (options.synchronous()) {
            waitStream(last, d, "the group's calls");
        } else {
            lastQueued = last;
        }
    }

    /**
     * Non-blocking communicators only: waits until NCCL reports the previous call finished (not ncclInProgress),
     * as NCCL requires before the next call. A blocking communicator is always settled.
     */
    void settle(CollectiveCall call, Deadline d) {
        if (!options.blocking() && !inClique && owner.handle() != null) {
            awaitOwn(IN_PROGRESS, "the previous NCCL call before " + call.describe(), d, call);
        }
    }

    /**
     * One NCCL call: in blocking mode under the {@link NcclWatchdog}, which aborts the communicator if NCCL has not
     * returned by the deadline (the handle is then dropped, as after any abort); in non-blocking mode as it is.
     */
    private int bounded(Supplier<String> what, Deadline d, IntSupplier ncclCall) {
        if (watchdog == null) return ncclCall.getAsInt();
        try {
            return watchdog.call(what, d, ncclCall);
        } catch (CollectiveTimeoutException e) {
            owner.aborted(e);
            throw e;
        }
    }

    /** The watchdog stops watching this communicator (closed or aborted). */
    void close() {
        if (watchdog != null) watchdog.close();
    }

    /** Success: done. ncclInProgress (non-blocking mode): poll until the call is queued. Else: an error. */
    void complete(int result, CollectiveCall call, Deadline d, String what) {
        if (result == SUCCESS) {
            return;
        }
        if (result == IN_PROGRESS) {
            awaitOwn(result, what + " for " + call.describe(), d, call);
            return;
        }
        throw new NcclException(rank, what + " for " + call.describe(), result, NcclException.lastError(owner.handle()));
    }

    /**
     * {@link NcclWaits#awaitComm} on this communicator. Every error it raises comes after it aborted the communicator
     * (ncclCommAbort frees NCCL's side), so the handle is dropped here: closing must not abort it a second time.
     */
    void awaitOwn(int result, String what, Deadline d, CollectiveCall call) {
        try {
            NcclWaits.awaitComm(owner.handle(), result, rank, what, d, call);
        } catch (CommException e) {
            owner.aborted(e);
            throw e;
        }
    }

    /**
     * {@code ncclCommFinalize} on {@code c} within the deadline. Non-blocking: first the last call must have settled
     * (NCCL refuses to finalize a communicator still ncclInProgress), then finalize is polled. Blocking: NCCL waits
     * inside the call for queued work, so it runs on a helper thread; late, the communicator is aborted (which makes
     * NCCL return). Either way a communicator that could not be finalized in time is aborted and the error names
     * ncclCommFinalize.
     */
    void finalizeBounded(ncclComm c, Deadline d) {
        if (!options.blocking()) {
            awaitOwn(IN_PROGRESS, "the last call before ncclCommFinalize", d, null);
            awaitOwn(ncclCommFinalize(c), "ncclCommFinalize", d, null);
            return;
        }
        int r = NcclWaits.bounded("nccl-finalize-rank-" + rank, rank, "ncclCommFinalize", d, () -> {
            NcclCuda.setDevice(device, rank);
            return ncclCommFinalize(c);
        }, () -> NcclWaits.abortQuietly(c), "queued work to finish; aborted with ncclCommAbort");
        if (r != SUCCESS) {
            String last = NcclException.lastError(c);
            NcclWaits.abortQuietly(c);
            throw new NcclException(rank, "ncclCommFinalize", r, last);
        }
    }

    /** Waits for the stream's queued work, watching NCCL's async error; an error or the deadline aborts the communicator. */
    void waitStream(CollectiveCall call, Deadline d, String waitingFor) {
        NcclWaits.StreamWait w = NcclWaits.pollStream(stream, owner.handle(), d);
        CommException e = switch (w.state()) {
            case DONE -> null;
            case CUDA_ERROR -> new CommException("rank " + rank + ": " + call.describe() + ": CUDA error on the stream: "
                    + NcclWaits.cudaError(w.error()) + "; last NCCL call: " + lastLaunch.get() + "; waiting for " + waitingFor);
            case NCCL_ERROR -> new NcclException(rank, call.describe(), w.error(), NcclException.lastError(owner.handle()));
            case TIMED_OUT -> new CollectiveTimeoutException(rank, call, d.timeout(), waitingFor + "; aborted with ncclCommAbort");
        };
        if (e != null) {
            abort(e);
            throw e;
        }
    }

    void lastLaunch(Supplier<String> where) {
        lastLaunch = where;
    }

    private void abort(CommException why) {
        if (owner.handle() != null) {
            NcclWaits.abortQuietly(owner.handle());
        }
        owner.aborted(why);
    }

    private String streamAndDevice() {
        return owner.streamAndDevice();
    }

    private void setDevice() {
        NcclCuda.setDevice(device, rank);
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
