package org.mpi2nccl.comm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ranks as threads of one JVM, exchanging messages through shared queues: the transport for unit tests and
 * for lessons that run all ranks inside the notebook (so the ring's step trace can be drawn right there).
 *
 * <p>A send whose receive is already posted copies straight into the receiver's buffer; otherwise the
 * message is copied into the queue and the receive copies it out. Sends never block.
 */
public final class ThreadTransport implements Transport {
    private final Mailbox mailbox;
    private final int rank;

    private ThreadTransport(Mailbox mailbox, int rank) {
        this.mailbox = mailbox;
        this.rank = rank;
    }

    /** One connected transport per rank; hand element r to the thread that plays rank r. */
    public static List<ThreadTransport> group(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a group needs at least one rank, got " + size);
        }
        Mailbox m = new Mailbox(size);
        List<ThreadTransport> all = new ArrayList<>(size);
        for (int r = 0; r < size; r++) {
            all.add(new ThreadTransport(m, r));
        }
        return List.copyOf(all);
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return mailbox.size;
    }

    @Override
    public String kind() {
        return "threads";
    }

    @Override
    public Pending isend(HostBuffer buffer, int dest, int tag) {
        CommArgs.rankInRange("send", "destination", dest, mailbox.size);
        mailbox.channel(rank, dest, tag).send(buffer);
        return new Done("the message to rank " + dest);
    }

    @Override
    public Pending irecv(HostBuffer buffer, int src, int tag) {
        CommArgs.rankInRange("recv", "source", src, mailbox.size);
        Receive r = new Receive(buffer, src, tag, rank);
        mailbox.channel(src, rank, tag).post(r);
        return r;
    }

    @Override
    public void close() {
        // Nothing to free: the queues go with the last reference.
    }

    /** All channels of one group, created on first use. */
    private static final class Mailbox {
        final int size;
        final ConcurrentHashMap<Long, Channel> channels = new ConcurrentHashMap<>();

        Mailbox(int size) {
            this.size = size;
        }

        Channel channel(int src, int dst, int tag) {
            long key = ((long) (src * size + dst) << 32) | (tag & 0xffffffffL);
            return channels.computeIfAbsent(key, k -> new Channel());
        }
    }

    /** Messages from one rank to another with one tag: unmatched sends and unmatched receives, in order. */
    private static final class Channel {
        private final ArrayDeque<HostBuffer> messages = new ArrayDeque<>();
        private final ArrayDeque<Receive> posted = new ArrayDeque<>();

        synchronized void send(HostBuffer data) {
            Receive r = posted.poll();
            if (r != null) {
                r.deliver(data);
            } else {
                messages.add(data.copy());
            }
        }

        synchronized void post(Receive r) {
            HostBuffer m = messages.poll();
            if (m != null) {
                r.deliver(m);
            } else {
                posted.add(r);
            }
        }
    }

    private static final class Receive implements Pending {
        private final HostBuffer buffer;
        private final int src;
        private final int tag;
        private final int rank;
        private volatile boolean done;
        private volatile String error;

        Receive(HostBuffer buffer, int src, int tag, int rank) {
            this.buffer = buffer;
            this.src = src;
            this.tag = tag;
            this.rank = rank;
        }

        void deliver(HostBuffer message) {
            if (message.dataType() != buffer.dataType() || message.count() != buffer.count()) {
                error = "rank " + rank + ": message from rank " + src + " (tag " + tag + ") has "
                        + message.describe() + " but the receive expects " + buffer.describe()
                        + ": the ranks disagree on the size or type of this transfer";
            } else {
                message.copyTo(buffer);
            }
            done = true;
        }

        @Override
        public boolean done() {
            if (error != null) {
                throw new CommException(error);
            }
            return done;
        }

        @Override
        public String describe() {
            return "the message from rank " + src + " (tag " + tag + ")";
        }
    }

    private record Done(String what) implements Pending {
        @Override
        public boolean done() {
            return true;
        }

        @Override
        public String describe() {
            return what;
        }
    }
}
