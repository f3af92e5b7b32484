package org.mpi2nccl.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A command that turns a recorded run (a GPU script's tar, unpacked into RUN) into a results folder: tables,
 * CSV and charts in {@code --out}. A run that is not readable is refused with the reader's message (exit 2).
 */
abstract class RunReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RUN", description = "the unpacked run folder")
    Path run;

    @Option(names = "--out", required = true, description = "folder to write, e.g. results/TOPIC")
    Path out;

    @Option(names = "--no-charts", description = "tables and CSV only (on a machine without fonts)")
    boolean noCharts;

    /** Reads {@link #run}, writes {@link #out} and prints what it found; the command's exit code. */
    abstract int report() throws Exception;

    @Override
    public final Integer call() throws Exception {
        try {
            return report();
        } catch (IllegalArgumentException e) {
            System.err.println(getClass().getAnnotation(picocli.CommandLine.Command.class).name() + ": " + e.getMessage());
            return 2;
        }
    }
}
