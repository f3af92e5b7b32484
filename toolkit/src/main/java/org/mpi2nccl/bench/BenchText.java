package org.mpi2nccl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads back the table {@link BenchResults#text()} prints (nccl-tests' layout), for runs whose log was kept but
 * not their CSV. A line may carry a launcher prefix such as {@code [rank 0] }. The number of
 * timed calls is not in the table: those rows say 0; the host-staging phases are NaN.
 */
public final class BenchText {
    private static final Pattern BLOCK = Pattern.compile("#\\s+(\\S+)\\s+(\\S+)\\s+on\\s+(\\d+)\\s+ranks\\s*$");
    private static final Pattern PREFIX = Pattern.compile("^(\\[[^]]*]\\s*)+");

    private BenchText() {
    }

    public static BenchResults read(Path log) throws IOException {
        return parse(Files.readAllLines(log, StandardCharsets.UTF_8));
    }

    /** The rows of every block in {@code lines}; other lines (progress, warnings) are skipped. */
    public static BenchResults parse(List<String> lines) {
        List<BenchRow> rows = new ArrayList<>();
        String comm = null;
        String coll = null;
        int ranks = 0;
        for (String raw : lines) {
            String line = PREFIX.matcher(raw).replaceFirst("").strip();
            Matcher m = BLOCK.matcher(line);
            if (m.matches()) {
                comm = m.group(1);
                coll = m.group(2);
                ranks = Integer.parseInt(m.group(3));
                continue;
            }
            if (comm == null || line.isEmpty() || line.startsWith("#") || !Character.isDigit(line.charAt(0))) {
                continue;
            }
            String[] f = line.split("\\s+");
            if (f.length < 9) {
                continue;
            }
            long bytes = Long.parseLong(f[0]);
            long count = Long.parseLong(f[1]);
            int root = Integer.parseInt(f[4]);
            int i = 5;
            for (String placement : new String[] {"out-of-place", "in-place"}) {
                if (i >= f.length) {
                    break;
                }
                if (f[i].equals("n/a")) {
                    i += 1;
                    continue;
                }
                if (i + 3 >= f.length) {
                    throw new IllegalArgumentException("bench table: a " + placement + " column needs time, algbw, busbw"
                            + " and #wrong; line: " + raw);
                }
                long wrong = f[i + 3].equals("N/A") ? -1 : Long.parseLong(f[i + 3]);
                rows.add(new BenchRow(comm, coll, ranks, f[2], f[3], root, bytes, count, placement, 0,
                        Double.parseDouble(f[i]), Double.parseDouble(f[i + 1]), Double.parseDouble(f[i + 2]), wrong,
                        Double.NaN, Double.NaN, Double.NaN));
                i += 4;
            }
        }
        return new BenchResults(rows);
    }
}
