package org.mpi2nccl.lab;

import org.mpi2nccl.doctor.Gpus;
import org.mpi2nccl.launch.JobBuilder;
import org.mpi2nccl.launch.MpjDevice;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The GPUs one job of rank engines holds on a shared machine. Each GPU has a lock file in the lab's lock folder
 * ({@link LabConfig#lockFolder()}); a job takes the OS lock on the files of the GPUs it uses, from the set its
 * user was granted, and writes who holds them (user, pid, since when) into them. A student whose GPUs are all
 * taken is told by whom, instead of becoming a second tenant on a busy GPU. The OS drops the locks when the
 * kernel's process ends, however it ends: a crashed kernel never keeps a GPU.
 *
 * <p>The engines see only the leased GPUs ({@code CUDA_VISIBLE_DEVICES}), so rank k takes the k-th of them.
 */
public final class GpuLease implements AutoCloseable {
    /** No lease: a job without GPUs (no GPU on the machine, or ranks that share one JVM). */
    public static final GpuLease NONE = new GpuLease(List.of(), List.of());

    private final List<String> gpus;
    private final List<FileLock> locks;

    private GpuLease(List<String> gpus, List<FileLock> locks) {
        this.gpus = gpus;
        this.locks = locks;
    }

    /**
     * The lease for a job of {@code ranks} rank engines on {@code device}: GPUs only for JVMs of their own
     * (niodev) on a machine with GPUs; otherwise {@link #NONE}.
     */
    public static GpuLease forRankEngines(int ranks, MpjDevice device) {
        int machineGpus = Gpus.visibleCount();
        if (device != MpjDevice.NIODEV || machineGpus == 0) {
            return NONE;
        }
        if (org.mpi2nccl.launch.Launcher.fromEnvironment(System.getenv()) == org.mpi2nccl.launch.Launcher.SLURM) {
            return NONE;   // Slurm grants the GPUs (GRES) to the engines' job step, and sets what they see
        }
        LabConfig lab = LabConfig.load();
        return acquire(lab.user(), lab.grantFor(lab.user(), machineGpus), ranks, lab.lockFolder());
    }

    /**
     * Leases one GPU per rank (as many as the grant has, if fewer: ranks then share them) from {@code grant}, or
     * fails with a message naming the user and pid that hold the GPUs it needed.
     */
    public static GpuLease acquire(String user, LabConfig.Grant grant, int ranks, Path lockFolder) {
        if (grant.gpus().isEmpty()) {
            throw new IllegalStateException("no GPU is granted to " + user + " (" + grant.why() + "): ask the"
                    + " instructor, or start the engines without GPUs: %mpj start --device multicore");
        }
        int wanted = Math.min(ranks, grant.gpus().size());
        openFolder(lockFolder);
        List<String> got = new ArrayList<>();
        List<FileLock> locks = new ArrayList<>();
        List<String> busy = new ArrayList<>();
        for (String gpu : grant.gpus()) {
            if (got.size() == wanted) break;
            Path file = lockFolder.resolve("gpu-" + gpu + ".lock");
            FileLock lock = tryLock(file);
            if (lock == null) {
                busy.add("GPU " + gpu + " is used by " + holder(file));
                continue;
            }
            write(lock.channel(), "user=" + user + " pid=" + ProcessHandle.current().pid() + " since=" + Instant.now() + "\n");
            got.add(gpu);
            locks.add(lock);
        }
        if (got.size() < wanted) {
            new GpuLease(got, locks).close();
            throw new IllegalStateException(user + "'s GPUs (" + String.join(",", grant.gpus()) + ", from " + grant.why()
                    + ") are taken: " + String.join("; ", busy) + ". Wait until that kernel stops its engines (%mpj stop),"
                    + " or ask the instructor for other GPUs");
        }
        return new GpuLease(List.copyOf(got), locks);
    }

    /** The GPUs held, as CUDA names them. */
    public List<String> gpus() {
        return gpus;
    }

    /** What the engines' JVMs need: CUDA_VISIBLE_DEVICES set to the leased GPUs (nothing without a lease). */
    public Map<String, String> environment() {
        return gpus.isEmpty() ? Map.of() : Map.of("CUDA_VISIBLE_DEVICES", String.join(",", gpus));
    }

    /** The job's launcher with {@link #environment()} added. */
    public JobBuilder applyTo(JobBuilder job) {
        environment().forEach(job::env);
        return job;
    }

    /** Gives the GPUs back (their files stay, empty of a holder). */
    @Override
    public void close() {
        for (FileLock l : locks) {
            try {
                l.channel().truncate(0);
                l.release();
                l.channel().close();
            } catch (IOException e) {
                // the lock goes with the channel, or with the process
            }
        }
    }

    /** The lock folder, writable by every user of the machine (sticky, as /tmp is). */
    private static void openFolder(Path folder) {
        try {
            if (!Files.isDirectory(folder)) {
                Files.createDirectories(folder);
                try {
                    Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
                    new ProcessBuilder("chmod", "+t", folder.toString()).start().waitFor();
                } catch (IOException | UnsupportedOperationException e) {
                    // another user made it first, or a file system without POSIX modes: the lock works the same
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the GPU lock folder " + folder + ": " + e.getMessage()
                    + " (set " + LabConfig.LOCKS_ENV + " or 'locks' in the lab file to a folder every user can write)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The OS lock on {@code file}, or null when another process (or another job of this one) holds it. */
    private static FileLock tryLock(Path file) {
        try {
            FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            try {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            } catch (IOException | UnsupportedOperationException e) {
                // made by another user, who set the mode
            }
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // another kernel in this same JVM holds it
            }
            if (lock == null) ch.close();
            return lock;
        } catch (IOException e) {
            throw new IllegalStateException("cannot open the GPU lock file " + file + ": " + e.getMessage());
        }
    }

    private static void write(FileChannel ch, String text) {
        try {
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), 0);
            ch.force(false);
        } catch (IOException e) {
            // the lock holds without the note
        }
    }

    /** "bob (pid 4242, since ...)" from a lock file, or what is known. */
    static String holder(Path file) {
        try {
            String text = Files.readString(file).strip();
            String user = field(text, "user"), pid = field(text, "pid"), since = field(text, "since");
            return user == null ? "another process (its lock file " + file + " names no holder)"
                    : user + " (pid " + pid + ", since " + since + ")";
        } catch (IOException e) {
            return "another process (" + file + " cannot be read)";
        }
    }

    private static String field(String text, String name) {
        for (String part : text.split("\\s+")) {
            if (part.startsWith(name + "=")) return part.substring(name.length() + 1);
        }
        return null;
    }
}
