package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.Clique;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.Durations;
import org.mpi2nccl.comm.shm.ShmTransport;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.mpi2nccl.files.PrivateTemp;

/**
 * Lesson 04 on a machine without GPUs: NCCL's bootstrap ({@link Clique}) for CPU ranks of one machine. The id
 * names a rendezvous folder in shared memory (/dev/shm) that {@link #uniqueId()} creates, as
 * {@code ncclGetUniqueId} names the socket where rank 0 listens. {@link #initRank} is the meeting:
 * <ol>
 *   <li>the rank claims its number in the folder (a file {@code rank-R} holding the size it was given);</li>
 *   <li>it waits until ranks 0 .. size-1 have all claimed theirs, with the same size;</li>
 *   <li>the ranks map their shared-memory channels there ({@link ShmTransport}) and leave, deleting the files.</li>
 * </ol>
 * The result is the ring of lesson 02 over that transport ({@link RingCommunicator}). Every wait ends at the
 * timeout with an error naming the ranks that never came; a malformed or used-up id is an error at once.
 */
public final class CpuClique implements Clique {
    private static final byte[] MAGIC = "m2n-cpu1".getBytes(StandardCharsets.US_ASCII);
    private static final int NAME_AT = 8;          // the folder's name less "clique-", ASCII, padded with spaces
    private static final int NAME_BYTES = 36;
    private static final int HOST_LENGTH_AT = 44;  // one byte: how long the host name is
    private static final int HOST_AT = 45;
    private static final String FOLDER_PREFIX = "clique-";
    /** What {@link PrivateTemp#newFolder} names a folder, less its prefix: pid, start time, 8 random hex digits. */
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("\\d+-\\d+-([0-9a-f]{8})");
    private static final String HOST = hostName();

    private final Duration timeout;

    private CpuClique(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.timeout = timeout;
    }

    /** A clique whose init and collectives each wait at most {@code timeout}. */
    public static CpuClique withTimeout(Duration timeout) {
        return new CpuClique(timeout);
    }

    public Duration timeout() {
        return timeout;
    }

    @Override
    public String describe() {
        return "CPU clique: the ring of lesson 02 over shared memory (" + ShmTransport.base() + "), timeout "
                + Durations.format(timeout);
    }

    /** Step 1 (rank 0): creates a fresh rendezvous folder and returns its name, this host and a tag as 128 bytes. */
    @Override
    public byte[] uniqueId() {
        // Named after this process: removed when it ends (an id nobody used leaves no folder behind), and by a
        // later start of this user once this process is gone (killed during the rendezvous).
        Path dir = PrivateTemp.newFolder(ShmTransport.base(), "clique");
        String name = dir.getFileName().toString().substring(FOLDER_PREFIX.length());
        byte[] id = new byte[ID_BYTES];
        System.arraycopy(MAGIC, 0, id, 0, MAGIC.length);
        Arrays.fill(id, NAME_AT, NAME_AT + NAME_BYTES, (byte) ' ');
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, id, NAME_AT, Math.min(bytes.length, NAME_BYTES));
        byte[] host = HOST.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(host.length, ID_BYTES - HOST_AT);
        id[HOST_LENGTH_AT] = (byte) n;
        System.arraycopy(host, 0, id, HOST_AT, n);
        return id;
    }

    /** Step 3 (every rank): joins the clique named by {@code id}; returns once all {@code size} ranks have. */
    @Override
    public Communicator initRank(int size, byte[] id, int rank) {
        if (size < 1) {
            throw new IllegalArgumentException("rank " + rank + ": size " + size + ": a clique has at least one rank"
                    + " (the arguments are initRank(size, id, rank))");
        }
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is not in 0.." + (size - 1) + " (size " + size
                    + "; the arguments are initRank(size, id, rank))");
        }
        Path dir = rendezvous(id, rank);
        String what = "initRank (rank " + rank + " of " + size + ", clique " + shortName(id) + ")";
        Deadline deadline = Deadline.after(timeout);
        boolean claimed = false;
        try {
            claim(dir, rank, size);
            claimed = true;
            awaitAll(dir, rank, size, deadline, what);
            Barriers barriers = new Barriers(dir, rank, size, deadline, what);
            ShmTransport transport = ShmTransport.openIn(dir, rank, size, 8, 256 * 1024, barriers::next);
            leave(dir, rank, size, barriers.count);
            return RingCommunicator.over(transport).timeout(timeout).build();
        } catch (RuntimeException e) {
            cleanUp(dir, rank, claimed);
            throw e;
        }
    }

    /** The 8 random characters of the id's folder name, to tell ids apart in messages. */
    public static String shortName(byte[] id) {
        if (id == null || id.length < NAME_AT + NAME_BYTES) return "?";
        java.util.regex.Matcher m = NAME.matcher(new String(id, NAME_AT, NAME_BYTES, StandardCharsets.US_ASCII).trim());
        return m.matches() ? m.group(1) : "?";
    }

    /** The folder an id names, after checking that it is a live CPU clique id of this machine. */
    private static Path rendezvous(byte[] id, int rank) {
        if (id == null || id.length != ID_BYTES) {
            throw new IllegalArgumentException("rank " + rank + ": a clique id has " + ID_BYTES + " bytes (as NCCL's"
                    + " ncclUniqueId); got " + (id == null ? "null" : id.length + " bytes"));
        }
        boolean zeros = true;
        for (byte b : id) {
            zeros &= b == 0;
        }
        if (zeros) {
            throw new IllegalArgumentException("rank " + rank + ": the id is " + ID_BYTES + " zero bytes: rank 0's id"
                    + " never reached this rank. Rank 0 makes it with uniqueId(); every other rank receives it (a"
                    + " broadcast from root 0) before calling initRank.");
        }
        if (!Arrays.equals(id, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new IllegalArgumentException("rank " + rank + ": these " + ID_BYTES + " bytes are not a CPU clique id"
                    + " (an NCCL id? bytes of another kind?): pass the bytes rank 0's uniqueId() returned, unchanged");
        }
        int n = id[HOST_LENGTH_AT] & 0xff;
        String host = new String(id, HOST_AT, Math.min(n, ID_BYTES - HOST_AT), StandardCharsets.UTF_8);
        if (!HOST.startsWith(host)) {
            throw new CommException("rank " + rank + ": the id was made on host " + host + ", this rank runs on " + HOST
                    + ": the CPU clique joins ranks of one machine (between machines, use MPJ or NCCL)");
        }
        String name = new String(id, NAME_AT, NAME_BYTES, StandardCharsets.US_ASCII).trim();
        if (!NAME.matcher(name).matches()) {         // never a path out of the private folder
            throw new IllegalArgumentException("rank " + rank + ": the id's folder name '" + name + "' is not one"
                    + " uniqueId() makes: pass the bytes rank 0's uniqueId() returned, unchanged");
        }
        Path dir = ShmTransport.base().resolve(FOLDER_PREFIX + name);
        if (!Files.isDirectory(dir)) {
            throw new CommException("rank " + rank + ": the id names the rendezvous " + dir + ", which does not exist:"
                    + " an id serves one communicator (it is used up once all its ranks joined) and one run; make a"
                    + " fresh one with uniqueId() on rank 0");
        }
        return dir;
    }

    /** Claims {@code rank} in the folder; the file holds the size this rank was given. */
    private static void claim(Path dir, int rank, int size) {
        try {
            Path claim = Files.createFile(dir.resolve("rank-" + rank), PrivateTemp.fileMode());
            Files.writeString(claim, Integer.toString(size), StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            throw new CommException("rank " + rank + ": another rank already joined this clique as rank " + rank
                    + ": every rank must pass its own number (0 .. size-1), as initRank(size, id, rank)");
        } catch (IOException e) {
            throw new CommException("rank " + rank + ": cannot join the rendezvous in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Waits until ranks 0 .. size-1 have all claimed their numbers with this size. */
    private void awaitAll(Path dir, int rank, int size, Deadline deadline, String what) {
        // Ranks seen once stay seen: a rank that joined and then gave up at its own timeout deletes its claim, and
        // must not be named as one that never joined.
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        while (true) {
            for (Path f : list(dir)) {
                String file = f.getFileName().toString();
                if (!file.startsWith("rank-")) {
                    continue;
                }
                int theirs = Integer.parseInt(file.substring(5));
                String content = read(f);
                if (content.isEmpty()) {
                    continue;                        // being written
                }
                int theirSize = Integer.parseInt(content.trim());
                if (theirSize != size || theirs >= size) {
                    throw new CommException("rank " + rank + ": " + what + ": rank " + theirs + " joined this clique with"
                            + " size " + theirSize + ", this rank with size " + size + ": every rank must pass the same size");
                }
                seen.add(theirs);
            }
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                if (!seen.contains(r)) {
                    missing.add(r);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            pause(deadline, rank, what, "ranks " + missing + ", which never joined with this id. Every rank must pass"
                    + " the SAME id (rank 0 makes it, a broadcast gives it to the others) and the same size");
        }
    }

    /** Barriers through marker files: the k-th call creates {@code bK-rank} and waits for every rank's. */
    private final class Barriers {
        final Path dir;
        final int rank;
        final int size;
        final Deadline deadline;
        final String what;
        int count;

        Barriers(Path dir, int rank, int size, Deadline deadline, String what) {
            this.dir = dir;
            this.rank = rank;
            this.size = size;
            this.deadline = deadline;
            this.what = what;
        }

        void next() {
            count++;
            touch(dir.resolve("b" + count + "-" + rank));
            while (true) {
                List<Integer> missing = new ArrayList<>();
                for (int r = 0; r < size; r++) {
                    if (!Files.exists(dir.resolve("b" + count + "-" + r))) {
                        missing.add(r);
                    }
                }
                if (missing.isEmpty()) {
                    return;
                }
                pause(deadline, rank, what, "ranks " + missing + ", which joined but stopped while the shared-memory"
                        + " channels were set up (step " + count + ")");
            }
        }
    }

    /**
     * After the last barrier nobody reads the claims or the earlier markers: a rank deletes its own, then marks that
     * it left; the rank that finds every rank gone (at least the last one does) deletes the folder.
     */
    private static void leave(Path dir, int rank, int size, int barriers) {
        try {
            Files.deleteIfExists(dir.resolve("rank-" + rank));
            for (int b = 1; b < barriers; b++) {
                Files.deleteIfExists(dir.resolve("b" + b + "-" + rank));
            }
        } catch (IOException e) {
            // a file left behind costs nothing: the folder goes with the last rank
        }
        touch(dir.resolve("left-" + rank));
        for (int r = 0; r < size; r++) {
            if (!Files.exists(dir.resolve("left-" + r))) {
                return;
            }
        }
        deleteFolder(dir);
    }

    /** After a failure: this rank's files (its claim only if it made it), and the folder if that was the last. */
    private static void cleanUp(Path dir, int rank, boolean claimed) {
        for (Path f : list(dir)) {
            String file = f.getFileName().toString();
            boolean mine = file.startsWith(rank + "-") || file.matches("(b\\d+|left)-" + rank);
            if (mine || claimed && file.equals("rank-" + rank)) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    // best effort
                }
            }
        }
        if (list(dir).isEmpty()) {
            deleteFolder(dir);
        }
    }

    /**
     * The pause between looks at the rendezvous folder, or the timeout naming what was waited for. Looks, not a
     * WatchService: where the JDK's watch is not inotify (macOS) it polls on its own, every few seconds.
     */
    private void pause(Deadline deadline, int rank, String what, String waitingFor) {
        if (deadline.remainingNanos() == 0) {
            throw new CollectiveTimeoutException(rank, what, timeout, waitingFor);
        }
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("rank " + rank + ": " + what + ": interrupted", e);
        }
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            return List.of();                        // the folder is gone: the caller sees nobody
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            return "";
        }
    }

    private static void touch(Path f) {
        try {
            Files.createFile(f, PrivateTemp.fileMode());
        } catch (FileAlreadyExistsException e) {
            // touched before: that is all a marker says
        } catch (IOException e) {
            throw new CommException("cannot write " + f + ": " + e.getMessage(), e);
        }
    }

    private static void deleteFolder(Path dir) {
        for (Path f : list(dir)) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                // another rank deletes it too
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // not empty yet (a late file) or gone: nothing to do
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
