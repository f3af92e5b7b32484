package org.mpi2nccl.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mpi2nccl bandwidth-compare}: puts the CSVs of several bandwidth runs (the toolkit's harness, or a
 * peer such as scripts/gpu/torch_allreduce.py writing the same columns) on one plot per placement, and
 * prints the busbw ratio of two communicators size by size (e.g. nccl / torch.distributed).
 */
@Command(name = "bandwidth-compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = "One plot and a ratio table from several bandwidth CSVs (same columns as 'bandwidth --out').")
public final class BandwidthCompareCommand implements Callable<Integer> {
    @Option(names = "--csv", required = true, description = "a bandwidth.csv (repeat the option for several)")
    List<Path> csvs;

    @Option(names = "--out", required = true, description = "folder for all.csv, busbw-*.png, ratio.txt")
    Path out;

    @Option(names = "--ratio", description = "A/B: busbw of communicator A over B at each size (in place where both have it)")
    String ratio;

    @Option(names = "--ratio-from", defaultValue = "1", description = "smallest size in the ratio table (default ${DEFAULT-VALUE})")
    String ratioFrom;

    @Option(names = "--title", defaultValue = "bus bandwidth", description = "plot title")
    String title;

    @Override
    public Integer call() throws Exception {
        List<BenchResults> parts = new ArrayList<>();
        for (Path p : csvs) {
            if (!Files.isRegularFile(p)) {
                System.err.println("bandwidth-compare: no such file " + p);
                return 2;
            }
            parts.add(BenchResults.readCsv(p));
        }
        BenchResults all = BenchResults.concat(parts);
        Files.createDirectories(out);
        all.writeCsv(out.resolve("all.csv"));
        boolean png = true;
        for (String placement : List.of("in-place", "out-of-place")) {
            png &= all.tryWritePng(out.resolve("busbw-" + placement + ".png"), title + " (" + placement + ")", null, placement);
        }
        System.out.println("wrote " + out.resolve("all.csv") + (png ? " and busbw-in-place.png, busbw-out-of-place.png" : ""));
        if (ratio != null) {
            String[] ab = ratio.split("/", 2);
            if (ab.length != 2) {
                System.err.println("bandwidth-compare: --ratio wants A/B, e.g. nccl/torch.distributed");
                return 2;
            }
            String table = all.ratioTable(ab[0], ab[1], BenchSpec.parseBytes(ratioFrom));
            Files.writeString(out.resolve("ratio.txt"), table);
            System.out.print(table);
        }
        return 0;
    }
}
