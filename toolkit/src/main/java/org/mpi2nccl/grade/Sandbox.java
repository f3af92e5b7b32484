package org.mpi2nccl.grade;

import org.mpi2nccl.launch.Bubblewrap;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one student's run may see and reach, built with bubblewrap ({@code bwrap}, Debian's package): a file system
 * made of the system's programs and libraries ({@code /usr}, {@code /etc}), the Java runtime, the toolkit's class
 * path and MPJ Express, all read-only, and one writable folder, the student's own; no network but a loopback of its
 * own; its own process tree, so that every process of the run, {@code setsid} ones too, ends when the run ends.
 * The grader bounds the run's processes too ({@link Grader.Limits#processes()}), and its memory by the JVMs' heaps.
 *
 * <p>Left out, so invisible: the lesson source with the reference answers, the other submissions, the gradebook and
 * the grader's logs, every home folder and the rest of the grader's machine. Each student is graded as hostile:
 * nothing a submission does can read the answers, touch another student's files or outlive its run.
 */
final class Sandbox {
    private Sandbox() {
    }

    /** Why runs cannot be sandboxed here, or "" when they can. */
    static String whyNot() {
        return Bubblewrap.path().isPresent() ? "" : "bubblewrap (bwrap) is not installed: " + Bubblewrap.INSTALL
                + ", or grade with --no-sandbox on a machine where no submission can harm anyone";
    }

    /**
     * Threads and processes (Linux counts both) of the grading account a run may make, where Linux enforces it: a
     * fork bomb stops there before the grader's look at the run's processes ends it. Generous: a rank engine's JVM
     * has dozens of threads, more on a machine with many cores. Linux exempts root from the limit.
     */
    static final int TASKS = 4096;

    /**
     * {@code command} run inside the sandbox, with {@code work} (absolute) its one writable folder and working folder,
     * under {@link #TASKS} (prlimit, util-linux) where the grader is not root.
     */
    static List<String> wrap(Path bwrap, List<String> command, Path work, List<String> readOnly) {
        List<String> cmd = new ArrayList<>();
        Path prlimit = Path.of("/usr/bin/prlimit");
        if (!isRoot() && Files.isExecutable(prlimit)) cmd.addAll(List.of(prlimit.toString(), "--nproc=" + TASKS, "--"));
        cmd.addAll(List.of(bwrap.toString(),
                "--unshare-all",        // user, ipc, pid, net, uts, cgroup: a loopback of its own, its own pids
                "--die-with-parent",    // the grader ending ends the run
                "--new-session",        // no terminal to push keystrokes into
                "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
                "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"));
        for (String link : List.of("bin", "sbin", "lib", "lib64", "lib32")) {
            Path p = Path.of("/", link);
            if (Files.isSymbolicLink(p)) {
                cmd.addAll(List.of("--symlink", "usr/" + link, p.toString()));
            } else if (Files.isDirectory(p)) {
                cmd.addAll(List.of("--ro-bind", p.toString(), p.toString()));
            }
        }
        for (String p : readOnly) cmd.addAll(List.of("--ro-bind", p, p));
        cmd.addAll(List.of("--bind", work.toString(), work.toString(), "--chdir", work.toString(),
                "--setenv", "HOME", work.toString(), "--setenv", "TMPDIR", work.toString()));
        cmd.add("--");
        cmd.addAll(command);
        return cmd;
    }

    private static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * The paths a run of the toolkit needs to read: the Java runtime, each class-path entry, MPJ_HOME (and what its
     * jars link to), outside {@code /usr} and {@code /etc}. Real paths, each once, parents before children.
     */
    static List<String> toolkitPaths(String javaHome, String classPath, String mpjHome) {
        Set<Path> wanted = new LinkedHashSet<>();
        wanted.add(Path.of(javaHome));
        for (String e : classPath.split(File.pathSeparator)) {
            if (e.isBlank()) continue;
            Path p = Path.of(e.endsWith("*") ? e.substring(0, e.length() - 1) : e);
            if (Files.exists(p)) wanted.add(p);
        }
        if (mpjHome != null && !mpjHome.isBlank() && Files.isDirectory(Path.of(mpjHome))) wanted.add(Path.of(mpjHome));
        List<String> out = new ArrayList<>();
        for (Path p : wanted) {
            try {
                Path real = p.toRealPath();
                if (real.startsWith("/usr") || real.startsWith("/etc")) continue;
                String s = real.toString();
                if (!out.contains(s) && out.stream().noneMatch(o -> real.startsWith(o + "/"))) out.add(s);
            } catch (java.io.IOException e) {
                // a class-path entry that does not exist is of no use to the run either
            }
        }
        out.sort(null);
        return out;
    }
}
