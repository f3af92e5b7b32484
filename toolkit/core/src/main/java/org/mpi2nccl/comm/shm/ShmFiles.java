package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.CommException;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.mpi2nccl.files.PrivateTemp;

/**
 * The memory files under {@link ShmTransport}: made private (0600) from the start, their pages written at once so
 * that a full /dev/shm fails here, at the start, and mapped by both ranks of a channel.
 */
final class ShmFiles {
    private ShmFiles() {
    }

    /** Fails, naming what is free and what is needed, when {@code dir}'s file system cannot hold {@code needed} bytes. */
    static void requireSpace(Path dir, int rank, long needed) throws IOException {
        long free = Files.getFileStore(dir).getUsableSpace();
        if (free < needed) {
            throw new CommException("rank " + rank + ": shared memory is full: " + dir.getParent() + " has " + mib(free)
                    + " free, this rank needs " + mib(needed) + " (every rank as much): free space in /dev/shm (df -h"
                    + " /dev/shm; files of finished jobs), or use the ring over TCP instead of shared memory");
        }
    }

    /**
     * Maps {@code file} of {@code bytes}: made first (0600, its pages reserved) when {@code create}, else waited for
     * (up to 10 s) until the rank that makes it has.
     */
    static MappedByteBuffer map(Path file, long bytes, boolean create) throws IOException {
        if (!create) {
            long end = System.nanoTime() + 10_000_000_000L;
            while (!Files.exists(file) && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        }
        if (create) {
            Files.createFile(file, PrivateTemp.fileMode());   // 0600 from the start: no moment when others can open it
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"); FileChannel ch = f.getChannel()) {
            if (create) {
                reserve(ch, bytes);
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
            m.order(ByteOrder.nativeOrder());
            return m;
        }
    }

    /**
     * Writes the file's {@code bytes} as zeros: memory files get their pages now, so a full /dev/shm is an IOException
     * here ("No space left on device") and not a crash later, when a rank first touches a page of the mapping
     * (SIGBUS, which Java reports as "a fault occurred in an unsafe memory access").
     */
    private static void reserve(FileChannel ch, long bytes) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(bytes, 1 << 20));
        for (long at = 0; at < bytes; ) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
            at += ch.write(zeros, at);
        }
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
