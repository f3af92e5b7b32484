package org.mpi2nccl.lessons;

import java.time.Duration;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Transport;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.ring.RingCommunicator;

/**
 * What lesson 02's ring is written with: MPI's {@code Sendrecv} on {@code float[]}, on ranks a check gives it, with a
 * deadline. MPJ Express's own {@code Sendrecv} waits for ever, so a send to the wrong neighbour left every rank stuck
 * and a receive it left posted on {@code MPI.COMM_WORLD} took the next run's messages. Here a message that does not
 * come within the timeout ends the call with the rank that waited and the rank it waited for, and each check makes a
 * communicator of its own, whose leftovers the next run never sees.
 *
 * <p>As in MPI, the receive count is the room in {@code in}: the message may be shorter. So each message goes as its
 * length, then its elements (the transports match counts exactly), and a wrong segment number shows as a wrong sum
 * that the lesson can explain, not as a transport error.
 */
public final class PointToPoint {
    /** The tag of the ring's messages; the communicator is the check's own, so no other message shares it. */
    private static final int TAG = 20;

    private final Transport transport;
    private final Duration timeout;
    private int calls;

    PointToPoint(Transport transport, Duration timeout) {
        this.transport = transport;
        this.timeout = timeout;
    }

    /** Point-to-point over {@code comm}'s ranks: the notebook's MPJ ranks, or thread ranks of a ring communicator. */
    static PointToPoint over(Communicator comm, Duration timeout) {
        Transport t = transportOf(comm);
        if (t == null) throw new IllegalArgumentException("no point-to-point messages over a " + comm.kind() + " communicator");
        return new PointToPoint(t, timeout);
    }

    /** The point-to-point messages under {@code comm}: MPJ's for the notebook's ranks, a ring's own; null for others. */
    static Transport transportOf(Communicator comm) {
        if (comm instanceof MpjCommunicator m) return m.transport();
        if (comm instanceof RingCommunicator r) return r.transport();
        return null;
    }

    /** This rank, 0 .. size - 1. */
    public int rank() {
        return transport.rank();
    }

    /** The number of ranks. */
    public int size() {
        return transport.size();
    }

    /** How many sendrecv calls this rank made. */
    int calls() {
        return calls;
    }

    /**
     * MPI's {@code Sendrecv} for floats: sends {@code outCount} elements of {@code out} from {@code outOffset} to rank
     * {@code dest}, and receives at most {@code inCount} elements from rank {@code source} into {@code in} from
     * {@code inOffset}; returns how many came. Throws when the message from {@code source} does not come, or does not
     * fit, or when the call is interrupted.
     */
    public int sendrecv(float[] out, int outOffset, int outCount, int dest,
                        float[] in, int inOffset, int inCount, int source) {
        calls++;
        int r = rank();
        check(dest, "dest");
        check(source, "source");
        if (outOffset < 0 || outCount < 0 || outOffset + outCount > out.length) {
            throw new ArrayIndexOutOfBoundsException("rank " + r + " sends elements " + outOffset + ".."
                    + (outOffset + outCount - 1) + " of a buffer of " + out.length);
        }
        if (inOffset < 0 || inCount < 0 || inOffset + inCount > in.length) {
            throw new ArrayIndexOutOfBoundsException("rank " + r + " receives into elements " + inOffset + ".."
                    + (inOffset + inCount - 1) + " of a buffer of " + in.length);
        }
        Deadline deadline = Deadline.after(timeout);
        Transport.Pending sentLength = transport.isend(HostBuffer.of(new int[] {outCount}), dest, TAG);
        Transport.Pending sent = outCount == 0 ? null
                : transport.isend(HostBuffer.of(java.util.Arrays.copyOfRange(out, outOffset, outOffset + outCount)), dest, TAG);
        int[] length = new int[1];
        waitFor(deadline, transport.irecv(HostBuffer.of(length), source, TAG), true, source);
        if (length[0] > inCount) {
            throw new CommException("rank " + r + " received " + length[0] + " elements from rank " + source
                    + " in its Sendrecv number " + calls + ", with room for " + inCount + " (MPI's truncation error). A wrong"
                    + " neighbour or segment number: the two ranks disagree on which segment goes in this step.");
        }
        if (length[0] > 0) {
            float[] got = new float[length[0]];
            waitFor(deadline, transport.irecv(HostBuffer.of(got), source, TAG), true, source);
            System.arraycopy(got, 0, in, inOffset, got.length);
        }
        waitFor(deadline, sentLength, false, dest);
        if (sent != null) waitFor(deadline, sent, false, dest);
        return length[0];
    }

    private void check(int peer, String role) {
        if (peer < 0 || peer >= size()) {
            throw new IllegalArgumentException("rank " + rank() + ": " + role + " rank " + peer + " is not one of the "
                    + size() + " ranks (0.." + (size() - 1) + ")");
        }
    }

    /**
     * Polls {@code p} until it is done: a wait with a deadline, since no MPJ request has a blocking wait that ends.
     * The message names the peer, so that the student sees which pair of ranks disagreed in which call.
     */
    private void waitFor(Deadline deadline, Transport.Pending p, boolean receiving, int peer) {
        boolean done = deadline.await(() -> Thread.currentThread().isInterrupted() || p.done());
        if (Thread.currentThread().isInterrupted()) {
            throw new CommException("rank " + rank() + " was interrupted in its Sendrecv number " + calls);
        }
        if (!done) {
            String s = Durations.seconds(timeout);
            throw new PeerTimeout("rank " + rank() + " waited " + s + (receiving ? " for a message from rank " + peer
                    : " for rank " + peer + " to receive its message") + " in its Sendrecv number " + calls + ": rank "
                    + peer + (receiving ? " sent nothing to rank " + rank() : " received nothing from rank " + rank())
                    + " in that step.");
        }
    }

    /** A message that did not come within the timeout. */
    static final class PeerTimeout extends CommException {
        private static final long serialVersionUID = 1L;

        PeerTimeout(String message) {
            super(message);
        }
    }

    private static final class Durations {
        static String seconds(Duration d) {
            long ms = d.toMillis();
            return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
        }
    }
}
