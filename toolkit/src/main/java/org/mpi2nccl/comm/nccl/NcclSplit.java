package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.nccl.ncclCommCount;
import static org.bytedeco.cuda.global.nccl.ncclCommSplit;
import static org.bytedeco.cuda.global.nccl.ncclCommUserRank;
import static org.mpi2nccl.comm.nccl.NcclException.IN_PROGRESS;
import static org.mpi2nccl.comm.nccl.NcclException.SUCCESS;

import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.Durations;

/**
 * {@code ncclCommSplit}, bounded by the communicator's timeout in both of NCCL's modes.
 *
 * <p>What NCCL 2.28 does (src/init.cc, src/group.cc): the split queues the child's init as a job of a group on the
 * parent. {@code *newcomm} is set to NULL at once and written when that job ends (also when it failed: the child
 * then carries the error). The ranks of one color are ordered by key, ties by their rank in the parent; any int is a
 * key, negative ones too.
 * <ul>
 *   <li>Blocking parent: the job runs inside the call, which waits there for every rank of the parent. It runs on a
 *       helper thread, as init does, so that a missing rank ends in an error at the deadline instead of a hang.</li>
 *   <li>Non-blocking parent: the job runs on NCCL's group thread, and ncclCommSplit returns <b>ncclSuccess</b> while
 *       it runs (the split returns the result of queuing the job; the ncclInProgress of its group end is not passed
 *       on). The parent reports ncclInProgress until the job is over and the slot is written. Reading the slot right
 *       after the call finds NULL (seen on 2x H200 with the non-blocking mode). So the parent is polled first, whatever the call returned, then the slot is read.</li>
 * </ul>
 * The slot is native memory that outlives the call (NCCL writes it later, from another thread); after a timeout it is
 * kept forever, never freed under NCCL.
 */
final class NcclSplit {
    private NcclSplit() {
    }

    /**
     * The body of {@link NcclCommunicator#split}: settles the parent, runs the metadata check, splits, waits for the
     * child and asks it for its rank and size. Null for {@link Communicator#NO_COLOR}.
     */
    static NcclCommunicator child(NcclCommunicator parent, int color, int key, NcclOptions childOptions, CollectiveCall call) {
        Deadline d = Deadline.after(parent.timeout());
        int rank = parent.rank();
        parent.setDevice();
        parent.calls().settle(call, d);
        if (parent.options().verifyCalls()) {
            parent.metadata().verify(call, d);
        }
        String what = "ncclCommSplit(color " + color + ", key " + key + ")";
        ncclComm child = split(parent, color, key, childOptions, what, d, call);
        if (child == null) {
            return null;
        }
        NcclWaits.awaitComm(child, IN_PROGRESS, rank, what + ", the new communicator", d, call);
        int[] cr = {0};
        int[] cn = {0};
        NcclException.check(rank, "ncclCommUserRank", ncclCommUserRank(child, cr), child);
        NcclException.check(rank, "ncclCommCount", ncclCommCount(child, cn), child);
        return new NcclCommunicator(child, cr[0], cn[0], parent.device(), childOptions, parent.stream(), false, false, 0, 0);
    }

    /**
     * The child's handle (null for {@link Communicator#NO_COLOR}), made with {@code child}'s config (its blocking mode
     * is the parent's); the parent is settled when this returns.
     */
    static ncclComm split(NcclCommunicator parent, int color, int key, NcclOptions child, String what, Deadline d, CollectiveCall call) {
        PointerPointer<ncclComm> slot = new PointerPointer<>(1);
        slot.put(0, (Pointer) null);
        ncclConfig_t config = NcclTypes.config(child.blocking(parent.options().blocking()));
        boolean settled = false;
        try {
            if (parent.options().blocking()) {
                blocking(parent, color, key, what, d, call, slot, config);
            } else {
                nonBlocking(parent, color, key, what, d, call, slot, config);
            }
            settled = true;
            Pointer made = slot.get(0);
            return made == null || made.isNull() ? null : new ncclComm(made);
        } finally {
            if (settled) {
                slot.close();
                config.close();
            } else {
                NcclWaits.keepForever(slot);
                NcclWaits.keepForever(config);
            }
        }
    }

    private static void blocking(NcclCommunicator parent, int color, int key, String what, Deadline d, CollectiveCall call,
                                 PointerPointer<ncclComm> slot, ncclConfig_t config) {
        int rank = parent.rank();
        int device = parent.device();
        ncclComm p = parent.handle();
        int r;
        try {
            r = NcclWaits.bounded("nccl-split-rank-" + rank, rank, what + " for " + call.describe(), d, () -> {
                NcclCuda.setDevice(device, rank);
                return ncclCommSplit(p, color, key, slot, config);
            }, () -> NcclWaits.abortQuietly(p), "every rank of the parent to join the split; the parent was aborted with"
                    + " ncclCommAbort");
        } catch (CollectiveTimeoutException e) {
            parent.aborted(e);
            throw e;
        }
        if (r != SUCCESS) {
            throw new NcclException(rank, what, r, NcclException.lastError(p));
        }
        requireChild(parent, color, what, slot, d);
    }

    private static void nonBlocking(NcclCommunicator parent, int color, int key, String what, Deadline d, CollectiveCall call,
                                    PointerPointer<ncclComm> slot, ncclConfig_t config) {
        ncclComm p = parent.handle();
        int r = ncclCommSplit(p, color, key, slot, config);
        if (r != SUCCESS && r != IN_PROGRESS) {
            throw new NcclException(parent.rank(), what, r, NcclException.lastError(p));
        }
        // ncclSuccess or ncclInProgress alike: the child's init may still run on NCCL's group thread
        parent.calls().awaitOwn(IN_PROGRESS, what + ": the parent, busy with the split until the new communicator exists", d, call);
        requireChild(parent, color, what, slot, d);
    }

    /**
     * For a real color NCCL writes a communicator into the slot before it reports the parent done. Should the slot
     * still be NULL (not seen with NCCL 2.28), it is watched until the deadline, then this says so: it is this
     * toolkit's check, not an NCCL error code.
     */
    private static void requireChild(NcclCommunicator parent, int color, String what, PointerPointer<ncclComm> slot,
                                     Deadline d) {
        if (color == Communicator.NO_COLOR) {
            return;
        }
        boolean written = d.await(() -> {
            Pointer made = slot.get(0);
            return made != null && !made.isNull();
        });
        if (!written) {
            throw new CommException("rank " + parent.rank() + ": " + what + ": NCCL reported the split done (the parent"
                    + " communicator is no longer ncclInProgress) but wrote no new communicator for color " + color + " within "
                    + Durations.format(d.timeout()) + ". NCCL writes one for every real color when the"
                    + " child's init ends, failed or not; run with NCCL_DEBUG=INFO to see whether the child's init ran."
                    + " (This is the toolkit's check, not an NCCL error code.)");
        }
    }
}
