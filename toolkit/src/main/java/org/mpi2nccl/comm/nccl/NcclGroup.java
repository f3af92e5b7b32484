package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.nccl.ncclGroupEnd;
import static org.bytedeco.cuda.global.nccl.ncclGroupStart;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.mpi2nccl.comm.CollectiveCall;

/**
 * NCCL's group calls: the calls made between {@code ncclGroupStart} and {@code ncclGroupEnd} are launched together
 * when the group ends. Needed for the GPUs of one process (one thread issues every rank's call) and for send and recv
 * in both directions at once. The open group is per thread; nested groups merge into the outer one, as in NCCL.
 */
final class NcclGroup {
    private static final ThreadLocal<NcclGroup> OPEN = new ThreadLocal<>();

    /** The communicators that queued calls in this group, each with its last call (what a timeout names). */
    private final Set<NcclCommunicator> members = new LinkedHashSet<>();
    private final Map<NcclCommunicator, CollectiveCall> lastCall = new HashMap<>();

    private NcclGroup() {
    }

    /** The group open on this thread, or null. */
    static NcclGroup open() {
        return OPEN.get();
    }

    void queued(NcclCommunicator c, CollectiveCall call) {
        members.add(c);
        lastCall.put(c, call);
    }

    /** See {@link NcclCommunicator#group}. */
    static void run(Runnable body) {
        if (OPEN.get() != null) {
            body.run();
            return;
        }
        NcclGroup g = new NcclGroup();
        OPEN.set(g);
        NcclException.check(0, "ncclGroupStart", ncclGroupStart(), null);
        RuntimeException failure = null;
        try {
            body.run();
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            OPEN.remove();
        }
        int r = ncclGroupEnd();
        if (failure != null) {
            throw failure;
        }
        for (NcclCommunicator c : g.members) {
            c.endGroup(r, g.lastCall.get(c));
        }
    }
}
