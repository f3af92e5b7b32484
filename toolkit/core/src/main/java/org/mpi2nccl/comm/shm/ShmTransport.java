package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommArgs;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Transport;
import org.mpi2nccl.comm.mpj.MpjTransport;
import org.mpi2nccl.comm.ring.CpuClique;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.mpi2nccl.files.PrivateTemp;

/**
 * Point-to-point messages through shared memory, for ranks on one machine (what Open MPI's "vader" and NCCL's
 * SHM transport do): every ordered pair of ranks has a ring of slots in a memory-mapped file under /dev/shm.
 * The sender copies a message into free slots and publishes them by advancing a counter; the receiver copies
 * them out and frees them by advancing another. No sockets, no daemon threads, one copy each way.
 *
 * <p>Progress happens when a transfer is polled ({@link Transport.Pending#done()}): each poll moves every
 * pending transfer of this rank as far as the slots allow, so a sender waiting for slots and a receiver
 * waiting for data never block each other. Messages of one pair go in order (slots are a FIFO); receives must
 * be posted in the order the peer sends, which every collective here does. A transport is used by one thread.
 *
 * <p>Next to the channels each rank maps one {@link ShmBoard} that every other rank reads directly: the all-reduce
 * over shared memory ({@code ShmAllReduce}) needs no messages at all. Waits poll as {@link ShmWait} says.
 *
 * <p>The files are created in a fresh directory whose name rank 0 chooses and broadcasts over a bootstrap
 * communicator (MPJ); once every rank has mapped them they are deleted, so nothing is left behind even if a
 * rank dies later. The mappings go when the transport is garbage-collected.
 */
public final class ShmTransport implements Transport {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int TAIL = 0;           // slots published by the sender
    private static final int HEAD = 64;          // slots consumed by the receiver (own cache line)
    private static final int HEADER = 128;
    private static final int SLOT_HEADER = 16;   // int tag, int payload bytes, long message bytes
    // The board's data area: two slots of one of ShmAllReduce's blocks each, written in turn (see ShmBoard).
    private static final int BOARD_DATA_BYTES = 2 * ShmBoard.BLOCK_BYTES;
    private static final int NAME_BYTES = 64;    // the folder name rank 0 sends (about 36 characters)

    private final Path folder;
    private final int rank;
    private final int size;
    private final int slots;
    private final int slotBytes;
    private final MappedByteBuffer[] out;        // out[dst]: this rank -> dst
    private final MappedByteBuffer[] in;         // in[src]: src -> this rank
    private final ArrayDeque<Send>[] sends;
    private final ArrayDeque<Recv>[] recvs;
    private final ShmBoard board;
    private final ShmWait waits;
    private boolean closed;

    /** Opens shared-memory channels between all ranks of {@code bootstrap} (collective; default sizes). */
    public static ShmTransport open(Communicator bootstrap) {
        return open(bootstrap, 8, 256 * 1024);
    }

    /**
     * @param slots     slots per ordered pair of ranks
     * @param slotBytes bytes per slot (a message larger than a slot travels in several)
     */
    public static ShmTransport open(Communicator bootstrap, int slots, int slotBytes) {
        if (slots < 2 || slotBytes < 64 || slotBytes % 8 != 0) {
            throw new IllegalArgumentException("shm: need at least 2 slots of at least 64 bytes (a multiple of 8); got "
                    + slots + " x " + slotBytes);
        }
        int rank = bootstrap.rank();
        int size = bootstrap.size();
        requireOneHost(bootstrap);
        // Rank 0 makes the folder (named after its process, so that a later start removes it if this job is
        // killed halfway) and sends its name, padded with spaces, to the others.
        byte[] name = new byte[NAME_BYTES];
        if (rank == 0) {
            byte[] made = PrivateTemp.newFolder(base(), "shm").getFileName().toString()
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Arrays.fill(name, (byte) ' ');
            System.arraycopy(made, 0, name, 0, made.length);
        }
        bootstrap.broadcast(HostBuffer.of(name), 0);
        Path dir = base().resolve(new String(name, java.nio.charset.StandardCharsets.US_ASCII).trim());
        ShmTransport t = openIn(dir, rank, size, slots, slotBytes, bootstrap::barrier);
        if (rank == 0) {
            PrivateTemp.remove(dir);
        }
        return t;
    }

    /**
     * Maps the channels in {@code dir}, which every rank names alike; {@code barrier} returns once every rank has
     * reached it (a bootstrap communicator's barrier, or {@code CpuClique}'s marker files). Deletes this rank's files
     * once all are mapped; the folder is the caller's.
     */
    @SuppressWarnings("unchecked")
    public static ShmTransport openIn(Path dir, int rank, int size, int slots, int slotBytes, Runnable barrier) {
        long fileBytes = HEADER + (long) slots * (SLOT_HEADER + slotBytes);
        MappedByteBuffer[] out = new MappedByteBuffer[size];
        MappedByteBuffer[] in = new MappedByteBuffer[size];
        MappedByteBuffer[] boards = new MappedByteBuffer[size];
        long boardBytes = ShmBoard.fileBytes(BOARD_DATA_BYTES);
        long needed = (size - 1) * fileBytes + boardBytes;   // this rank's files
        try {
            Files.createDirectories(dir, PrivateTemp.folderMode());
            ShmFiles.requireSpace(dir, rank, needed);
            boards[rank] = ShmFiles.map(dir.resolve("board-" + rank), boardBytes, true);
            for (int dst = 0; dst < size; dst++) {
                if (dst != rank) {
                    out[dst] = ShmFiles.map(dir.resolve(rank + "-" + dst), fileBytes, true);
                }
            }
            barrier.run();                       // every outgoing file exists
            for (int src = 0; src < size; src++) {
                if (src != rank) {
                    in[src] = ShmFiles.map(dir.resolve(src + "-" + rank), fileBytes, false);
                    boards[src] = ShmFiles.map(dir.resolve("board-" + src), boardBytes, false);
                }
            }
            barrier.run();                       // every file is mapped by both its ranks: names can go
            for (int dst = 0; dst < size; dst++) {
                Files.deleteIfExists(dir.resolve(rank + "-" + dst));
            }
            Files.deleteIfExists(dir.resolve("board-" + rank));
            barrier.run();
        } catch (IOException e) {
            throw new CommException("rank " + rank + ": shared memory in " + dir + ": " + e.getMessage()
                    + " (is /dev/shm writable and large enough? " + ShmFiles.mib(size * needed) + " needed by the " + size
                    + " ranks)", e);
        }
        ArrayDeque<Send>[] s = new ArrayDeque[size];
        ArrayDeque<Recv>[] r = new ArrayDeque[size];
        for (int i = 0; i < size; i++) {
            s[i] = new ArrayDeque<>();
            r[i] = new ArrayDeque<>();
        }
        return new ShmTransport(dir, rank, size, slots, slotBytes, out, in, s, r,
                new ShmBoard(rank, BOARD_DATA_BYTES, boards, new ShmWait()));
    }

    private ShmTransport(Path folder, int rank, int size, int slots, int slotBytes, MappedByteBuffer[] out,
                         MappedByteBuffer[] in, ArrayDeque<Send>[] sends, ArrayDeque<Recv>[] recvs, ShmBoard board) {
        this.folder = folder;
        this.rank = rank;
        this.size = size;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.out = out;
        this.in = in;
        this.sends = sends;
        this.recvs = recvs;
        this.board = board;
        this.waits = board.waits();
    }

    /** The boards every rank reads directly, for {@code ShmAllReduce}. */
    public ShmBoard board() {
        requireOpen();
        return board;
    }

    /** The folder its files were made in (deleted, with the files, once every rank mapped them). */
    Path folder() {
        return folder;
    }

    /**
     * Where the folders go: this user's private folder in /dev/shm (memory), else in the temporary folder. Not
     * /dev/shm itself: there any other user of the machine could map the channels and read or change messages.
     */
    public static Path base() {
        return PrivateTemp.shmFolder();
    }

    /** Shared memory only works between ranks of one machine: compare host names first. */
    private static void requireOneHost(Communicator c) {
        int other = SameHost.rankOnAnotherHost(c);
        if (other >= 0) {
            throw new CommException("rank " + c.rank() + ": shared memory needs every rank on one machine, but rank " + other
                    + " runs on another host (this one is " + SameHost.name() + "); use MpjTransport between machines");
        }
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String kind() {
        return "shm";
    }

    @Override
    public Pending isend(HostBuffer buffer, int dest, int tag) {
        CommArgs.rankInRange("send", "destination", dest, size);
        if (dest == rank) {
            throw new IllegalArgumentException("shm: send to self (rank " + rank + ")");
        }
        requireOpen();
        Send s = new Send(buffer, dest, tag);
        sends[dest].add(s);
        progress();
        return s;
    }

    @Override
    public Pending irecv(HostBuffer buffer, int src, int tag) {
        CommArgs.rankInRange("recv", "source", src, size);
        if (src == rank) {
            throw new IllegalArgumentException("shm: receive from self (rank " + rank + ")");
        }
        requireOpen();
        Recv r = new Recv(buffer, src, tag);
        recvs[src].add(r);
        progress();
        return r;
    }

    /** Waits as {@link Transport#await} does, polling the way shared memory needs ({@link ShmWait}). */
    @Override
    public void await(Deadline deadline, CollectiveCall call, Pending... transfers) {
        for (Pending p : transfers) {
            if (p != null && !waits.until(p::done, deadline)) {
                throw new CollectiveTimeoutException(rank, call, deadline.timeout(), p.describe());
            }
        }
    }

    /** Moves every pending transfer as far as the slots allow (sends first: they free the peers' waits). */
    private void progress() {
        for (int p = 0; p < size; p++) {
            ArrayDeque<Send> q = sends[p];
            while (!q.isEmpty() && q.peek().advance()) {
                q.poll();
            }
        }
        for (int p = 0; p < size; p++) {
            ArrayDeque<Recv> q = recvs[p];
            while (!q.isEmpty() && q.peek().advance()) {
                q.poll();
            }
        }
    }

    /** Drops the mappings (they are unmapped when garbage-collected; the files were deleted at open). */
    @Override
    public void close() {
        closed = true;
        java.util.Arrays.fill(out, null);
        java.util.Arrays.fill(in, null);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("shm transport of rank " + rank + " is closed");
        }
    }

    private static int slotOffset(int slots, int slotBytes, long index) {
        return HEADER + (int) (index % slots) * (SLOT_HEADER + slotBytes);
    }

    private final class Send implements Pending {
        final HostBuffer buffer;
        final int dest;
        final int tag;
        int sent;                  // elements copied into slots
        boolean started;
        boolean done;

        Send(HostBuffer buffer, int dest, int tag) {
            this.buffer = buffer;
            this.dest = dest;
            this.tag = tag;
        }

        /** Fills free slots; true when the whole message is in shared memory. */
        boolean advance() {
            MappedByteBuffer m = out[dest];
            long tail = (long) LONGS.get(m, TAIL);
            int cap = slotBytes / buffer.dataType().bytes();     // elements per slot
            while (!started || sent < buffer.length()) {
                long head = (long) LONGS.getAcquire(m, HEAD);
                if (tail - head >= slots) {
                    return false;                          // the receiver has not freed a slot yet
                }
                int n = Math.min(cap, buffer.length() - sent);
                int at = slotOffset(slots, slotBytes, tail);
                m.putInt(at, tag);
                m.putInt(at + 4, n * buffer.dataType().bytes());
                m.putLong(at + 8, buffer.bytes());
                ShmBoard.copy(buffer, sent, n, m, at + SLOT_HEADER, true);
                sent += n;
                started = true;
                tail++;
                LONGS.setRelease(m, TAIL, tail);        // publish: the data above is visible before the counter
            }
            done = true;
            return true;
        }

        @Override
        public boolean done() {
            if (!done) {
                progress();
            }
            return done;
        }

        @Override
        public String describe() {
            return "the message to rank " + dest + " (tag " + tag + ", " + buffer.bytes() + " bytes, "
                    + sent + " of " + buffer.length() + " elements in shared memory)";
        }
    }

    private final class Recv implements Pending {
        final HostBuffer buffer;
        final int src;
        final int tag;
        int received;
        boolean started;
        boolean done;

        Recv(HostBuffer buffer, int src, int tag) {
            this.buffer = buffer;
            this.src = src;
            this.tag = tag;
        }

        boolean advance() {
            MappedByteBuffer m = in[src];
            long head = (long) LONGS.get(m, HEAD);
            while (!started || received < buffer.length()) {
                long tail = (long) LONGS.getAcquire(m, TAIL);
                if (head >= tail) {
                    return false;                          // nothing published yet
                }
                int at = slotOffset(slots, slotBytes, head);
                int theirTag = m.getInt(at);
                int bytes = m.getInt(at + 4);
                long total = m.getLong(at + 8);
                if (theirTag != tag || (!started && total != buffer.bytes())) {
                    throw new CommException("rank " + rank + ": the next message from rank " + src + " has tag " + theirTag
                            + " and " + total + " bytes, but the receive posted expects tag " + tag + " and " + buffer.bytes()
                            + " bytes: the ranks' transfers are out of step");
                }
                int n = bytes / buffer.dataType().bytes();
                ShmBoard.copy(buffer, received, n, m, at + SLOT_HEADER, false);
                received += n;
                started = true;
                head++;
                LONGS.setRelease(m, HEAD, head);        // the slot is free again
            }
            done = true;
            return true;
        }

        @Override
        public boolean done() {
            if (!done) {
                progress();
            }
            return done;
        }

        @Override
        public String describe() {
            return "the message from rank " + src + " (tag " + tag + ", " + received + " of " + buffer.length()
                    + " elements received)";
        }
    }
}
