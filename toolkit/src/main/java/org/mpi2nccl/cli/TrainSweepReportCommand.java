package org.mpi2nccl.cli;

import java.nio.file.Path;
import java.util.List;
import org.mpi2nccl.bench.TrainSweepReport;
import picocli.CommandLine.Command;

/**
 * {@code mpi2nccl train-sweep-report RUN --out results/TOPIC}: the table, CSV and chart of a one-GPU training-step
 * sweep (scripts/gpu/train-sweep.sh's train-sweep.tgz, unpacked into RUN: round-N/toolkit.json, round-N/torch.json).
 */
@Command(name = "train-sweep-report", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Table, CSV and chart of a one-GPU training-step sweep (scripts/gpu/train-sweep.sh, its tar unpacked):",
                "the toolkit's step eager and graphed beside PyTorch's modes (eager, CUDA graph, torch.compile, ...), per batch."})
public final class TrainSweepReportCommand extends RunReportCommand {
    @Override
    int report() throws Exception {
        TrainSweepReport r = TrainSweepReport.read(run);
        List<Path> files = r.write(out, !noCharts);
        System.out.print(r.table());
        System.out.println("wrote " + files.size() + " files to " + out);
        return 0;
    }
}
