package org.mpi2nccl.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mpi2nccl bandwidth-compare}: puts the CSVs of several bandwidth runs (the toolkit's harness, or a
 * peer such as results/device/torch_allreduce.py writing the same columns) on one plot per placement, and
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
            String table = ratioTable(all, ab[0], ab[1], BenchSpec.parseBytes(ratioFrom));
            Files.writeString(out.resolve("ratio.txt"), table);
            System.out.print(table);
        }
        return 0;
    }

    /** Size by size: busbw of a and b (in place, else out of place) and a/b; the minimum ratio at the end. */
    static String ratioTable(BenchResults all, String a, String b, long from) {
        Map<Long, double[]> bySize = new TreeMap<>();
        for (BenchRow r : all.rows()) {
            if (r.bytes() < from || !(r.communicator().equals(a) || r.communicator().equals(b))) {
                continue;
            }
            double[] v = bySize.computeIfAbsent(r.bytes(), k -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN});
            int col = r.communicator().equals(a) ? 0 : 1;
            if (r.placement().equals("in-place")) {
                v[col] = r.busbw();
            } else {
                v[col + 2] = r.busbw();
            }
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "# busbw (GB/s), %s vs %s%n# %12s %10s %10s %8s%n",
                a, b, "size", a.length() > 10 ? a.substring(0, 10) : a, b.length() > 10 ? b.substring(0, 10) : b, "ratio"));
        double min = Double.POSITIVE_INFINITY;
        for (Map.Entry<Long, double[]> e : bySize.entrySet()) {
            double[] v = e.getValue();
            double x = Double.isNaN(v[0]) ? v[2] : v[0];
            double y = Double.isNaN(v[1]) ? v[3] : v[1];
            double q = x / y;
            if (Double.isFinite(q)) {
                min = Math.min(min, q);
            }
            s.append(String.format(Locale.ROOT, "  %12s %10.2f %10.2f %8.3f%n", BenchSpec.formatBytes(e.getKey()), x, y, q));
        }
        s.append(String.format(Locale.ROOT, "# lowest ratio: %.3f%n", min));
        return s.toString();
    }
}
