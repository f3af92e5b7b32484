package org.mpi2nccl.cli;

import java.nio.file.Path;
import java.util.List;
import org.mpi2nccl.bench.ScalingReport;
import picocli.CommandLine.Command;

/**
 * {@code mpi2nccl scaling-report RUN --out results/TOPIC}: the tables, charts, targets and README skeleton of a
 * multi-GPU run (scripts/gpu/multi-gpu.sh's multi-gpu.tgz, unpacked into RUN).
 */
@Command(name = "scaling-report", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Tables, charts and targets of a multi-GPU run (scripts/gpu/multi-gpu.sh, its tar unpacked):",
                "speedup against GPU count beside DDP, busbw of each collective against torch.distributed per GPU count."})
public final class ScalingReportCommand extends RunReportCommand {
    @Override
    int report() throws Exception {
        ScalingReport r = ScalingReport.read(run);
        List<Path> files = r.write(out, !noCharts);
        System.out.println("== speedup (median of the rounds' own)");
        System.out.print(r.speedupText());
        System.out.println("== targets");
        System.out.print(r.targets());
        System.out.println("wrote " + files.size() + " files to " + out);
        return r.wrongRows() > 0 ? 1 : 0;
    }
}
