package org.mpi2nccl.launch.rank;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the ranks of a multicore job as threads of this JVM (our replacement for MPJ's MulticoreStarter,
 * which swallows a rank's exception and then waits forever).
 *
 * <p>Class loaders, as MPJ's own multicore starter arranges them: one <em>shared</em> loader holds the
 * shared-memory device (smpdev, xdev, mpjbuf and the mpjdev classes in mpiExp.jar); each rank gets its own
 * loader on top of it with mpi.jar, mpjdev.jar and the program's class path, so every rank has its own
 * {@code MPI.COMM_WORLD} and its own copy of the program's static fields. A JNI library (JCuda, JavaCPP)
 * can be loaded by only one class loader per JVM: the second rank that loads it fails with
 * "already loaded in another classloader" -- GPU jobs need niodev (a JVM per rank).
 *
 * <p>The JVM ends when the launcher does ({@link Lifeline}): ranks must not read System.in.
 *
 * <p>Arguments: {@code NPROCS MPJ_HOME RANK_CLASSPATH MAIN_CLASS args...}. Rank k's main receives
 * {@code (k, NPROCS, "smpdev", args...)}, as under MPJ's starter.
 */
public final class MulticoreBoot {
    private MulticoreBoot() {}

    public static void main(String[] args) throws Exception {
        Lifeline.watchStdin();
        int nprocs = Integer.parseInt(args[0]);
        Path mpjLib = Path.of(args[1], "lib");
        List<URL> rankUrls = new ArrayList<>(List.of(url(mpjLib.resolve("mpi.jar")), url(mpjLib.resolve("mpjdev.jar"))));
        for (String entry : args[2].split(File.pathSeparator)) {
            if (!entry.isEmpty()) rankUrls.add(url(Path.of(entry)));
        }
        String mainClass = args[3];
        String[] programArgs = new String[args.length - 4];
        System.arraycopy(args, 4, programArgs, 0, programArgs.length);

        TaggedOutput.install(-1);
        URLClassLoader shared = new URLClassLoader("mpj-shared", new URL[] {
                url(mpjLib.resolve("smpdev.jar")), url(mpjLib.resolve("xdev.jar")),
                url(mpjLib.resolve("mpjbuf.jar")), url(mpjLib.resolve("mpiExp.jar"))},
                ClassLoader.getPlatformClassLoader());
        // smpdev finds a rank's identity through its thread group, which must be an SMPDevProcess.
        Class<?> groupClass = shared.loadClass("xdev.smpdev.SMPDevProcess");

        AtomicBoolean failed = new AtomicBoolean();
        Thread[] threads = new Thread[nprocs];
        for (int k = 0; k < nprocs; k++) {
            int rank = k;
            URLClassLoader loader = new URLClassLoader("rank-" + k, rankUrls.toArray(URL[]::new), shared);
            ThreadGroup group = (ThreadGroup) groupClass.getConstructor(String.class).newInstance("MPI" + k);
            String[] rankArgs = new String[programArgs.length + 3];
            rankArgs[0] = Integer.toString(rank);
            rankArgs[1] = Integer.toString(nprocs);
            rankArgs[2] = "smpdev";
            System.arraycopy(programArgs, 0, rankArgs, 3, programArgs.length);
            threads[k] = new Thread(group, () -> {
                TaggedOutput.setThreadRank(rank);
                Thread.currentThread().setContextClassLoader(loader);
                if (!RankMain.run(loader, mainClass, rankArgs) && failed.compareAndSet(false, true)) {
                    RankMain.haltAfterFailure();
                }
                TaggedOutput.endPartialLines();
            }, "rank-" + k);
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        System.out.flush();
        System.err.flush();
        // MPJ leaves non-daemon threads behind; the ranks are done, so end the JVM here.
        Runtime.getRuntime().halt(failed.get() ? 1 : 0);
    }

    private static URL url(Path p) throws MalformedURLException {
        return p.toAbsolutePath().toUri().toURL();
    }
}
