package org.mpi2nccl.cli;

import org.mpi2nccl.launch.Converters;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.launch.JobBuilder;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Launcher;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.MpjLaunchException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mpjrun}: the launcher from the command line, e.g.
 * {@code mpjrun -np 4 --device niodev --timeout 60s -cp app.jar com.example.Main a b}.
 * Prints every rank's lines as {@code [rank k] ...} as they arrive; exits 0 when every rank finished,
 * 1 when a rank failed or the job timed out, 2 when the job could not start (the cause on stderr).
 */
@Command(name = "mpjrun", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs an MPJ Express program on N ranks (multicore threads or niodev JVMs).")
public final class MpjRunCommand implements Callable<Integer> {
    @Option(names = {"-np", "--ranks"}, description = "number of ranks (default ${DEFAULT-VALUE})", defaultValue = "2")
    int ranks;

    @Option(names = {"-dev", "--device"}, description = "multicore or niodev (default ${DEFAULT-VALUE})",
            defaultValue = "multicore", converter = Converters.MpjDeviceConverter.class)
    MpjDevice device;

    @Option(names = "--timeout", description = "stop the job after this long: 90s, 5m, 500ms (default ${DEFAULT-VALUE})",
            defaultValue = "10m", converter = Converters.DurationConverter.class)
    Duration timeout;

    @Option(names = "--stall", description = "warn when ranks wait this long in one MPI call (default ${DEFAULT-VALUE};"
            + " 0: never)", defaultValue = "10s", converter = Converters.DurationConverter.class)
    Duration stall;

    @Option(names = {"--machines", "-machinesfile"}, description = "niodev: machines file, one host a line")
    Path machines;

    @Option(names = "--daemon-port", description = "niodev: port of the daemon the launcher starts (default: a free one)")
    Integer daemonPort;

    @Option(names = "--running-daemons", paramLabel = "PORT",
            description = "niodev with --machines: use the MPJ daemons already running on every host at PORT")
    Integer runningDaemons;

    @Option(names = {"-cp", "--classpath"}, description = "the ranks' class path (default: the toolkit's)")
    String classpath;

    @Option(names = "--jvm-arg", description = "an option for every rank JVM (repeatable), e.g. --jvm-arg=-Xmx2g")
    List<String> jvmArgs = new ArrayList<>();

    @Option(names = "--mpj-home", description = "MPJ Express home (default: $MPJ_HOME or build/mpj-home)")
    Path mpjHome;

    @Option(names = "--java-home", description = "Java for the rank JVMs (default: this one)")
    Path javaHome;

    @Option(names = "--launcher", description = "local (this machine) or slurm (one Slurm job step, srun); default:"
            + " $MPI2NCCL_LAUNCHER, else slurm inside a Slurm allocation, else local",
            converter = Converters.LauncherConverter.class)
    Launcher launcher;

    @Option(names = "--gpus", description = "slurm: GPUs the step asks for (default: one a rank, at most a node's)")
    Integer gpus;

    @Option(names = "--quiet", description = "do not print the ranks' lines (only the summary)")
    boolean quiet;

    @Parameters(index = "0", paramLabel = "MAIN_CLASS", description = "the program: main(String[]) calls MPI.Init(args)")
    String mainClass;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "the program's arguments (put -- before them"
            + " when one starts with -)")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        try {
            JobBuilder job = Mpj.launch(mainClass).ranks(ranks).device(device).timeout(timeout).stall(stall).args(args)
                    .jvmArgs(jvmArgs.toArray(String[]::new));
            if (!quiet) job.onLine(line -> (line.isStderr() ? err : out).println(line));
            if (classpath != null) job.classpath(classpath);
            if (machines != null) job.machinesFile(machines);
            if (daemonPort != null) job.daemonPort(daemonPort);
            if (runningDaemons != null) job.runningDaemons(runningDaemons);
            if (mpjHome != null) job.mpjHome(mpjHome);
            if (javaHome != null) job.javaHome(javaHome);
            if (launcher != null) job.launcher(launcher);
            if (gpus != null) job.gpus(gpus);
            JobResult r = job.run();
            out.printf("mpjrun: %d ranks (%s) finished in %.2f s%n", r.ranks(), r.device(), r.elapsed().toMillis() / 1000.0);
            if (!r.reports().isEmpty()) out.println(r.reportTable().print(1000));
            return 0;
        } catch (MpjLaunchException e) {
            err.println("mpjrun: " + e.getMessage());
            return 2;
        } catch (MpjJobException e) {
            err.println("mpjrun: " + e.getMessage());
            return 1;
        }
    }
}
