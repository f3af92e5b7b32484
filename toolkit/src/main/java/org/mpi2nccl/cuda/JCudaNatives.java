package org.mpi2nccl.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Set;
import jcuda.JCudaVersion;
import jcuda.LibUtils;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.files.PrivateTempException;

/**
 * Puts JCuda's driver binding, complete, where JCuda's own loader will look for it, before
 * {@code JCudaDriver} is first touched.
 * <p>Why: JCuda's loader ({@code jcuda.LibUtils}) uses one fixed file, {@code <java.io.tmpdir>/libJCudaDriver-<version>-linux-x86_64.so}.
 * When the file is missing it writes it in place; when it exists it {@code System.load}s it as it is. Several
 * rank JVMs starting at once on a fresh machine race on it: one loads the file while another is still writing it,
 * and the dynamic linker maps pages past its end, which kills that JVM with SIGBUS in {@code ld-linux-x86-64.so.2}.
 * Here the file is written under another name in the same folder and renamed into place (atomic within one file
 * system), so a process that sees the file sees all of it; a file lock lets one process write while the others
 * wait. A file that is there but differs from the jar's copy (cut short by a crash of JCuda's own in-place write)
 * is replaced the same way. JCuda then finds the file and only loads it.
 * <p>The folder is the user's private one ({@link PrivateTemp#folder()}), not {@code java.io.tmpdir} itself: there
 * the file belongs to whichever user came first, and every other user's JVM would load a library its owner can
 * change. So each user extracts each JCuda version once, and {@link #loadDriver()} points JCuda's loader at that
 * folder for the moment it loads.
 */
public final class JCudaNatives {
    /**
     * How long a process waits for another one that is writing the library: one file copied out of the jar takes
     * far less, so this only ends a wait on a writer that hangs.
     */
    private static final long LOCK_TIMEOUT_MS = 60_000;

    private JCudaNatives() {}

    /** The driver binding's file name, as JCuda names it on this platform. */
    public static String driverFileName() {
        return LibUtils.createLibraryFileName(LibUtils.createPlatformLibraryName("JCudaDriver-" + JCudaVersion.get()));
    }

    /** Makes sure the user's private folder holds a complete driver binding; returns it. */
    public static Path prepareDriver() {
        Path folder;
        try {
            folder = PrivateTemp.folder();
        } catch (PrivateTempException e) {
            throw new CudaUnavailableException("JCuda's driver binding is not extracted: " + e.getMessage());
        }
        return prepare(folder, driverFileName());
    }

    /**
     * Prepares the driver binding and has JCuda load it from the private folder: JCuda reads
     * {@code java.io.tmpdir} each time it looks for its library, so the property names the private folder while
     * {@code JCudaDriver} initializes, and is put back after. (The JDK's own temporary files read it once, at their
     * first use, so they are not moved.)
     *
     * @throws LinkageError when the binding does not load (no {@code libcuda.so.1}, for one)
     */
    public static Path loadDriver() {
        Path file = prepareDriver();
        synchronized (System.class) {
            String shared = System.getProperty("java.io.tmpdir");
            System.setProperty("java.io.tmpdir", file.getParent().toString());
            try {
                Class.forName("jcuda.driver.JCudaDriver", true, JCudaNatives.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new CudaUnavailableException("jcuda.driver.JCudaDriver is not on the class path (the jcuda jar is missing)");
            } finally {
                System.setProperty("java.io.tmpdir", shared);
            }
        }
        return file;
    }

    /**
     * Makes {@code folder/fileName} a complete copy of the jar's {@code /lib/fileName}, safely when several
     * processes do it at once.
     *
     * @return the file
     * @throws CudaUnavailableException naming the file and what to do when it cannot be written
     */
    public static synchronized Path prepare(Path folder, String fileName) {
        Path target = folder.resolve(fileName);
        try {
            byte[] expected = resource(fileName);
            if (matches(target, expected)) return target;   // the usual case: an earlier JVM put it there
            Files.createDirectories(folder);
            try (FileChannel lockFile = FileChannel.open(folder.resolve(fileName + ".lock"),
                    Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), PrivateTemp.fileMode());
                 FileLock lock = lock(lockFile, target)) {
                if (matches(target, expected)) return target;   // written by the process that held the lock
                // One name is enough: only the lock holder writes it. Owner-only: the folder is this user's alone.
                Path partial = folder.resolve(fileName + ".partial");
                try {
                    Files.deleteIfExists(partial);       // left by a holder that crashed; created afresh, 0600
                    Files.write(Files.createFile(partial, PrivateTemp.fileMode()), expected);
                    Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } finally {
                    Files.deleteIfExists(partial);
                }
            }
            return target;
        } catch (IOException e) {
            throw new CudaUnavailableException("could not write JCuda's driver binding to " + target + " (" + e
                    + "); start Java with -Djava.io.tmpdir=<a folder of your own> (TMPDIR for the scripts)");
        }
    }

    private static byte[] resource(String fileName) throws IOException {
        try (InputStream in = LibUtils.class.getResourceAsStream("/lib/" + fileName)) {
            if (in == null) throw new IOException("/lib/" + fileName + " is not on the class path (the jcuda-natives jar is missing)");
            return in.readAllBytes();
        }
    }

    private static boolean matches(Path file, byte[] expected) throws IOException {
        return Files.isRegularFile(file) && Files.size(file) == expected.length && Arrays.equals(Files.readAllBytes(file), expected);
    }

    /** The lock, waited for at most {@link #LOCK_TIMEOUT_MS} (a process holding it forever must not hang this one). */
    private static FileLock lock(FileChannel channel, Path target) throws IOException {
        long deadline = System.currentTimeMillis() + LOCK_TIMEOUT_MS;
        while (true) {
            FileLock lock = channel.tryLock();
            if (lock != null) return lock;
            if (System.currentTimeMillis() > deadline) {
                throw new IOException("another process held the lock on " + target + " for " + LOCK_TIMEOUT_MS / 1000 + " s");
            }
            try {
                Thread.sleep(10);       // retries against another process: FileChannel.lock() has no timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the lock on " + target, e);
            }
        }
    }
}
