package org.mpi2nccl.comm.nccl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.files.PrivateTempException;

/**
 * {@code file:///path}, like torch's {@code init_method="file://..."}: rank 0 writes the id to a file on a
 * file system every rank can read (atomically: a temporary file renamed into place); the others wait for it,
 * read it and leave a marker file {@code PATH.rankN}; rank 0 waits for all markers and removes everything, so
 * the next job starts clean. A file already there when rank 0 starts is left over from a crashed job: rank 0
 * refuses it (delete it) rather than let the ranks read a dead job's id.
 * <p>The path is the user's choice (a shared file system between machines), so no private folder can hold it.
 * Instead every file is 0600, a folder rank 0 makes is 0700, and the other ranks read the id only from a file of
 * their own user that nobody else can write: in a shared folder such as /tmp another user could otherwise plant an
 * id first and have the ranks join a communicator of theirs.
 */
public final class FileRendezvous implements Rendezvous {
    private final Path file;

    public FileRendezvous(Path file) {
        this.file = file.toAbsolutePath();
    }

    @Override
    public String describe() {
        return "file://" + file;
    }

    @Override
    public byte[] share(int rank, int size, byte[] fromRoot, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        try {
            return rank == 0 ? publish(size, fromRoot, end, timeout) : read(rank, size, end, timeout);
        } catch (IOException e) {
            throw new CommException("rank " + rank + ": " + describe() + ": " + e, e);
        }
    }

    private byte[] publish(int size, byte[] id, long end, Duration timeout) throws IOException {
        if (Files.exists(file)) {
            throw new CommException("rank 0: " + describe() + " already exists, left by an earlier job: delete it"
                    + " (and any " + file.getFileName() + ".rank* files) and start again");
        }
        Path dir = file.getParent();
        Files.createDirectories(dir, PrivateTemp.folderMode());
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        Files.writeString(tmp, "mpi2nccl-rendezvous-1\nsize=" + size + "\nid=" + HexFormat.of().formatHex(id) + "\n");
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        try {
            TreeSet<Integer> missing = new TreeSet<>();
            for (int r = 1; r < size; r++) {
                missing.add(r);
            }
            while (!missing.isEmpty()) {
                missing.removeIf(r -> Files.exists(marker(r)));
                if (missing.isEmpty()) {
                    break;
                }
                if (System.nanoTime() > end) {
                    throw new CommException("rank 0: " + describe() + ": ranks " + missing + " did not read the id within "
                            + timeout.toSeconds() + " s (started? do they see the same file system?)");
                }
                sleep();
            }
            return id.clone();
        } finally {
            Files.deleteIfExists(file);
            for (int r = 1; r < size; r++) {
                Files.deleteIfExists(marker(r));
            }
        }
    }

    private byte[] read(int rank, int size, long end, Duration timeout) throws IOException {
        while (!Files.exists(file)) {
            if (System.nanoTime() > end) {
                throw new CommException("rank " + rank + ": " + describe() + " did not appear within " + timeout.toSeconds()
                        + " s (is rank 0 running, with the same path on a shared file system?)");
            }
            sleep();
        }
        try {
            PrivateTemp.requireMine(file, "delete it, and use a rendezvous path in a folder of your own");
        } catch (PrivateTempException e) {
            throw new CommException("rank " + rank + ": " + e.getMessage(), e);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() < 3 || !lines.get(0).equals("mpi2nccl-rendezvous-1")) {
            throw new CommException("rank " + rank + ": " + describe() + " is not a rendezvous file written by rank 0");
        }
        int theirSize = Integer.parseInt(lines.get(1).substring("size=".length()));
        if (theirSize != size) {
            throw new CommException("rank " + rank + ": " + describe() + ": rank 0 expects " + theirSize
                    + " ranks but this rank expects " + size);
        }
        byte[] id = HexFormat.of().parseHex(lines.get(2).substring("id=".length()));
        Files.deleteIfExists(marker(rank));   // a crashed job's; created afresh so that it is 0600
        Files.writeString(Files.createFile(marker(rank), PrivateTemp.fileMode()), "ok\n");
        return id;
    }

    private Path marker(int rank) {
        return file.resolveSibling(file.getFileName() + ".rank" + rank);
    }

    /**
     * The pause between looks at the other ranks' files. A look, not a WatchService: the file system may be shared
     * between machines, and a watch (inotify) does not see what another machine writes there.
     */
    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("interrupted during the file rendezvous", e);
        }
    }
}
