package org.mpi2nccl.launch;

/**
 * Starts MPJ Express jobs from Java: from a test, a notebook cell or the {@code mpjrun} command.
 *
 * <pre>{@code
 * JobResult r = Mpj.launch(PartialSum.class)           // an ordinary MPJ program: main calls MPI.Init(args)
 *         .ranks(4)
 *         .device(MpjDevice.MULTICORE)                  // or NIODEV: a JVM per rank (GPU jobs need it)
 *         .args("1000000")
 *         .timeout(Duration.ofSeconds(60))
 *         .onLine(System.out::println)                  // "[rank 2] ..." as the lines arrive
 *         .run();                                       // or start() -> RunningJob
 * r.exitStatus(0); r.lines(1); r.reportTable();
 * }</pre>
 *
 * <p>How it runs: <b>multicore</b>: one JVM, each rank a thread with its own class loader (own statics,
 * own {@code MPI.COMM_WORLD}). <b>niodev</b>: the launcher starts an MPJ daemon on a free port with a private
 * configuration, runs MPJ's starter against it, and stops the daemon afterwards; with
 * {@link JobBuilder#machinesFile} and {@link JobBuilder#runningDaemons} it uses a cluster's daemons.
 * In both, a boot class of the toolkit calls the program's main, tags every line with its rank and reports
 * how main ended; {@link Report#emit} sends records to the launcher.
 *
 * <p>Failures: a rank that throws ends the job about a second later with a {@link RankFailedException}
 * naming the rank and the exception; a job past its timeout ends with a {@link JobTimeoutException}
 * listing the unfinished ranks; a job that cannot start throws {@link MpjLaunchException} with a one-line
 * cause and what to do. In every case the job's processes are gone when the exception is thrown; they
 * also end when the launching JVM ends, even by kill -9 (a notebook kernel restart). Ranks must not read
 * System.in: in the processes the launcher starts it is the pipe that ties them to the launcher.
 *
 * <p>Threads: listeners given to {@code onLine} run on the launcher's reader threads, in arrival order per
 * job. Lines of threads a rank did not start itself (a shared pool) carry rank -1.
 */
public final class Mpj {
    private Mpj() {}

    /** A job running {@code mainClass} (it must be on the ranks' class path; by default ours). */
    public static JobBuilder launch(Class<?> mainClass) {
        return new JobBuilder(mainClass.getName(), mainClass);
    }

    /** A job running the class named {@code mainClass}. */
    public static JobBuilder launch(String mainClass) {
        return new JobBuilder(mainClass, null);
    }
}
