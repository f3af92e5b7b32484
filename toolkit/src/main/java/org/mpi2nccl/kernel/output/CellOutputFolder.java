package org.mpi2nccl.kernel.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.files.ProcStat;

/**
 * The one folder where this kernel keeps the output its cells printed beyond what the notebook shows
 * ({@link CellOutput}, and each rank engine's share of a {@code %%mpj} cell):
 * {@code TMPDIR/mpi2nccl-USER/mpi2nccl-output-PID}, in the user's private folder ({@link PrivateTemp}) because a
 * student's output is theirs, and a predictable name in the shared folder could be made first by someone else.
 * A student who prints without end fills files here, so the folder goes when the kernel ends (a shutdown hook);
 * a kernel killed with {@code kill -9} cannot do that, so each kernel first deletes the folders of kernels that
 * no longer run. The folder's name carries its kernel's process id to tell the two apart.
 */
public final class CellOutputFolder {
    static final String PREFIX = "mpi2nccl-output-";

    private static Path folder;

    private CellOutputFolder() {
    }

    /** This kernel's folder, made on first use (after the folders of dead kernels are cleared away). */
    public static synchronized Path get() throws IOException {
        if (folder == null || !Files.isDirectory(folder)) {
            Path tmp = PrivateTemp.folder();
            deleteDeadKernels(tmp);
            Path f = Files.createDirectories(tmp.resolve(PREFIX + ProcessHandle.current().pid()), PrivateTemp.folderMode());
            if (folder == null) {
                Runtime.getRuntime().addShutdownHook(new Thread(CellOutputFolder::delete, "delete-cell-output"));
            }
            folder = f;
        }
        return folder;
    }

    /** A new, empty file in this kernel's folder, named {@code PREFIX...txt}. */
    public static Path newFile(String prefix) throws IOException {
        return Files.createTempFile(get(), prefix, ".txt");
    }

    /** Deletes this kernel's folder and what is in it (the kernel is ending). */
    static synchronized void delete() {
        if (folder != null) PrivateTemp.deleteTree(folder);
    }

    /**
     * Deletes the output folders in {@code dir}, and in this user's private folder there, whose kernel no longer
     * runs (the grader calls it on a student's work folder, the kernel's temporary folder, once that student's
     * kernel has ended, however it ended).
     */
    public static void deleteDeadKernels(Path dir) {
        deleteDeadKernelsIn(dir);
        Path mine = PrivateTemp.locationIn(dir);
        if (!mine.equals(dir.toAbsolutePath()) && Files.isDirectory(mine, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            deleteDeadKernelsIn(mine);
        }
    }

    private static void deleteDeadKernelsIn(Path dir) {
        List<Path> found;
        try (Stream<Path> s = Files.list(dir)) {
            found = s.filter(p -> p.getFileName().toString().startsWith(PREFIX)).collect(Collectors.toList());
        } catch (IOException e) {
            return; // no folder to read: nothing of ours is there
        }
        for (Path p : found) {
            String id = p.getFileName().toString().substring(PREFIX.length());
            if (!id.matches("\\d+")) continue;
            long pid = Long.parseLong(id);
            boolean running = pid == ProcessHandle.current().pid()
                    || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && !ProcStat.ended(pid);
            if (!running) PrivateTemp.deleteTree(p);
        }
    }
}
