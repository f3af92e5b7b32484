package org.mpi2nccl.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.bench.TrainSweepReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mpi2nccl train-sweep-report RUN --out results/TOPIC}: the table, CSV and chart of a one-GPU training-step
 * sweep (scripts/gpu/train-sweep.sh's train-sweep.tgz, unpacked into RUN).
 */
@Command(name = "train-sweep-report", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Table, CSV and chart of a one-GPU training-step sweep (scripts/gpu/train-sweep.sh, its tar unpacked):",
                "the toolkit's step eager and graphed beside PyTorch eager, CUDA graph and torch.compile, per batch."})
public final class TrainSweepReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RUN", description = "the unpacked run folder (round-N/toolkit.json, round-N/torch.json)")
    Path run;

    @Option(names = "--out", required = true, description = "folder to write, e.g. results/train-step-1gpu")
    Path out;

    @Option(names = "--no-charts", description = "table and CSV only (on a machine without fonts)")
    boolean noCharts;

    @Override
    public Integer call() throws Exception {
        TrainSweepReport r;
        try {
            r = TrainSweepReport.read(run);
        } catch (IllegalArgumentException e) {
            System.err.println("train-sweep-report: " + e.getMessage());
            return 2;
        }
        List<Path> files = r.write(out, !noCharts);
        System.out.print(r.table());
        System.out.println("wrote " + files.size() + " files to " + out);
        return 0;
    }
}
