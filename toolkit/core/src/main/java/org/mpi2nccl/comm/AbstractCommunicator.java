package org.mpi2nccl.comm;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * What every communicator does the same way: sequence numbers for the metadata check, the broken state
 * after a failure, argument checks. Subclasses implement the data movement.
 */
public abstract class AbstractCommunicator implements Communicator {
    private final Duration timeout;
    private long seq;
    private long pointToPointSeq;
    private volatile CommException failure;
    private volatile boolean closed;

    protected AbstractCommunicator(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.timeout = timeout;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public boolean isBroken() {
        return failure != null;
    }

    /** The next call of this rank, after checking the communicator can still be used. */
    protected final CollectiveCall begin(Collective c, long count, DataType type, Reduction op, int root) {
        if (closed) {
            throw new IllegalStateException("rank " + rank() + ": " + c.label() + " on a closed " + kind() + " communicator");
        }
        CommException f = failure;
        if (f != null) {
            throw new CommException("rank " + rank() + ": " + c.label() + " on a " + kind()
                    + " communicator that failed earlier (" + f.getMessage() + "); create a new one", f);
        }
        // Point-to-point calls are numbered apart: ranks make different numbers of them (rank 0 may send to
        // every other rank, each of which receives once), and must still agree on the collectives' numbers.
        long n = c == Collective.SEND_RECV ? ++pointToPointSeq : ++seq;
        return new CollectiveCall(c, n, count, type, op, root);
    }

    /** Runs one call; a failure marks the communicator broken before it propagates. */
    protected final void run(CollectiveCall call, Runnable body) {
        call(call, () -> {
            body.run();
            return null;
        });
    }

    protected final <T> T call(CollectiveCall call, Supplier<T> body) {
        CollectiveCall outer = CollectiveInProgress.enter(call); // for the stall inspector: "allReduce #12"
        try {
            return body.get();
        } catch (CommException e) {
            failure = e;
            throw e;
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            CommException c = new CommException("rank " + rank() + ": " + call.describe() + " failed: " + e, e);
            failure = c;
            throw c;
        } finally {
            CollectiveInProgress.exit(outer);
        }
    }

    /** Marks the communicator broken (e.g. after an abort) with the error that explains why. */
    protected final void markBroken(CommException why) {
        failure = why;
    }

    protected final boolean markClosed() {
        boolean was = closed;
        closed = true;
        return !was;
    }

    protected final boolean isClosed() {
        return closed;
    }

    // ---- argument checks shared by all implementations ----

    protected final void checkAllReduce(CommBuffer send, CommBuffer recv, Reduction op) {
        CommArgs.sameShape("allReduce", send, recv);
        CommArgs.reducible("allReduce", send.dataType(), op);
        noPartialOverlap("allReduce", send, recv);
    }

    protected final void checkBroadcast(CommBuffer send, CommBuffer recv, int root) {
        CommArgs.rankInRange("broadcast", "root", root, size());
        if (rank() == root) {
            CommArgs.sameShape("broadcast", send, recv);
            noPartialOverlap("broadcast", send, recv);
        } else {
            CommArgs.notNull("broadcast", "recv", recv);
        }
    }

    protected final void checkReduce(CommBuffer send, CommBuffer recv, Reduction op, int root) {
        CommArgs.rankInRange("reduce", "root", root, size());
        CommArgs.reducible("reduce", send == null ? null : send.dataType(), op);
        if (rank() == root) {
            CommArgs.sameShape("reduce", send, recv);
            noPartialOverlap("reduce", send, recv);
        } else {
            CommArgs.notNull("reduce", "send", send);
            if (recv != null) {
                CommArgs.sameShape("reduce", send, recv);
            }
        }
    }

    protected final void checkAllGather(CommBuffer send, CommBuffer recv) {
        CommArgs.gatherShape("allGather", send, recv, size());
        if (send.overlaps(recv) && !send.sameAs(recv.slice(rank() * send.count(), send.count()))) {
            throw new IllegalArgumentException("allGather: send overlaps recv but is not this rank's slice of it"
                    + " (in place means send = recv.slice(rank * n, n))");
        }
    }

    protected final void checkReduceScatter(CommBuffer send, CommBuffer recv, Reduction op) {
        CommArgs.gatherShape("reduceScatter", recv, send, size());
        CommArgs.reducible("reduceScatter", send.dataType(), op);
        if (send.overlaps(recv) && !recv.sameAs(send.slice(rank() * recv.count(), recv.count()))) {
            throw new IllegalArgumentException("reduceScatter: recv overlaps send but is not this rank's slice of it"
                    + " (in place means recv = send.slice(rank * n, n))");
        }
    }

    protected final void checkPeer(String what, CommBuffer buffer, int peer) {
        CommArgs.notNull(what, "buffer", buffer);
        CommArgs.rankInRange(what, "peer", peer, size());
        if (peer == rank()) {
            throw new IllegalArgumentException(what + ": peer " + peer + " is this rank; send and recv need another rank");
        }
    }

    private static void noPartialOverlap(String what, CommBuffer send, CommBuffer recv) {
        if (send.overlaps(recv) && !send.sameAs(recv)) {
            throw new IllegalArgumentException(what + ": send and recv overlap partially; pass the same buffer"
                    + " twice (in place) or two separate buffers");
        }
    }

    /** Checks a split color (>= 0 or NO_COLOR). */
    protected static void checkColor(int color) {
        if (color < 0 && color != NO_COLOR) {
            throw new IllegalArgumentException("split: color " + color + " is negative; use a color >= 0,"
                    + " or Communicator.NO_COLOR to leave this rank out");
        }
    }
}
