package org.mpi2nccl;

import org.mpi2nccl.cuda.GpuBenchCommand;
import org.mpi2nccl.cuda.GpuDoctorCommand;
import org.mpi2nccl.launch.MpjRunCommand;
import org.mpi2nccl.launch.PartialSumCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The toolkit's command line: {@code ./build.sh cli SUBCOMMAND} here, {@code bin/mpi2nccl SUBCOMMAND} in the
 * GPU bundle. Each lesson package contributes its own subcommand class; this class only lists them.
 */
@Command(name = "mpi2nccl", mixinStandardHelpOptions = true, version = "mpi2nccl 0.1.0",
        description = "From MPI reduction on the CPU to NCCL all-reduce on GPUs.",
        subcommands = {CommandLine.HelpCommand.class, MpjRunCommand.class, org.mpi2nccl.bench.SpeedupCommand.class, PartialSumCommand.class,
                GpuDoctorCommand.class, GpuBenchCommand.class, org.mpi2nccl.doctor.DoctorCommand.class,
                org.mpi2nccl.bench.TrainFashionMnistCommand.class, org.mpi2nccl.bench.MatmulBenchCommand.class,
                org.mpi2nccl.bench.BandwidthCommand.class, org.mpi2nccl.bench.BandwidthCompareCommand.class})
public final class Cli {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line without exiting the JVM (tests and the notebook kernel call this). */
    public static int run(String... args) {
        return new CommandLine(new Cli()).execute(args);
    }
}
