package org.mpi2nccl.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The toolkit's command line: {@code ./build.sh cli SUBCOMMAND} here, {@code bin/mpi2nccl SUBCOMMAND} in the
 * GPU bundle. Every subcommand is a class of this package; this class lists them and installs
 * {@link CommandErrors}: a bad option or data file gives one line and exit code 2, the stack trace only with
 * {@code --verbose}.
 */
@Command(name = "mpi2nccl", mixinStandardHelpOptions = true, version = "mpi2nccl 0.1.0",
        description = "From MPI reduction on the CPU to NCCL all-reduce on GPUs.",
        subcommands = {
                CommandLine.HelpCommand.class,
                MpjRunCommand.class,
                SpeedupCommand.class,
                PartialSumCommand.class,
                GpuDoctorCommand.class,
                GpuBenchCommand.class,
                DoctorCommand.class,
                TrainFashionMnistCommand.class,
                MatmulBenchCommand.class,
                BandwidthCommand.class,
                BandwidthCompareCommand.class,
                ExecuteCommand.class,
                GradeCommand.class,
                ScalingReportCommand.class,
                TrainSweepReportCommand.class,
                TimelineOverheadCommand.class,
                NodesCommand.class})
public final class Main {
    /** Read by {@link CommandErrors}, which looks for it on the command line as parsed; every subcommand takes it. */
    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "print the Java stack trace of an error")
    boolean verbose;

    public static void main(String[] args) {
        // What killed JVMs of this user left in their folders: unpacked native libraries (UnpackedLibraries) and
        // the folders of processes that are gone. Best effort: a command that needs the folder says itself what is
        // wrong with it.
        try {
            org.mpi2nccl.files.UnpackedLibraries.sweep(org.mpi2nccl.files.PrivateTemp.folder());
            org.mpi2nccl.files.PrivateTemp.removeLeftovers(org.mpi2nccl.files.PrivateTemp.folder());
            org.mpi2nccl.files.PrivateTemp.removeLeftovers(org.mpi2nccl.files.PrivateTemp.shmFolder());
            org.mpi2nccl.kernel.output.CellOutputFolder.deleteDeadKernels(org.mpi2nccl.files.PrivateTemp.folder());
        } catch (RuntimeException folderNotUsable) {
            // left to the command
        }
        System.exit(run(args));
    }

    /** Runs the command line without exiting the JVM (tests and the notebook kernel call this). */
    public static int run(String... args) {
        return CommandErrors.install(new CommandLine(new Main())).execute(args);
    }
}
