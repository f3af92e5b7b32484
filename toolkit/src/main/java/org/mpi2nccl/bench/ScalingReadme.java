package org.mpi2nccl.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/**
 * The README skeleton of a {@link ScalingReport}'s folder: where and how it was measured (from the run's machine.txt),
 * the tables and targets computed from the numbers, the file list, and a section left for what the numbers say.
 */
final class ScalingReadme {
    private ScalingReadme() {}

    /** {@code out}: the folder as the command was given it, shown in the line that says how the folder was made. */
    static String text(ScalingReport r, Path out, List<Path> files) {
        String topic = out.getFileName().toString();
        Map<String, String> m = r.machine();
        StringBuilder s = new StringBuilder();
        s.append("# ").append(topic).append(": data-parallel scaling and collective bandwidth on ")
                .append(m.getOrDefault("gpus", "?")).append(" GPUs\n\n");
        s.append("Machine: ").append(m.getOrDefault("gpus", "?")).append("x ").append(m.getOrDefault("gpu", "?"))
                .append(", driver ").append(m.getOrDefault("driver", "?")).append("; PyTorch ").append(m.getOrDefault("torch", "?")).append(".\n\n");
        s.append("| date (UTC) | commit | command, from the repository root on the GPU machine |\n| --- | --- | --- |\n");
        s.append("| ").append(m.getOrDefault("date", "?")).append(" | ").append(m.getOrDefault("commit", "?")).append(" | `")
                .append(m.getOrDefault("command", "bash scripts/gpu/multi-gpu.sh")).append("` |\n\n");
        s.append("Tables, charts and targets: `mpi2nccl scaling-report RUN_FOLDER --out ").append(out)
                .append("` on the unpacked `multi-gpu.tgz`.").append(m.getOrDefault("dry", "0").equals("1")
                        ? " **A dry run (DRY=1): tiny sizes, one GPU; the numbers check the steps, they measure nothing.**" : "").append("\n\n");

        Table sp = r.speedupTable();
        for (String set : r.dataParallel().keySet()) {
            s.append("## Data-parallel speedup, ").append(set.equals("fashion") ? "Fashion-MNIST" : "CIFAR-shaped set").append("\n\n");
            s.append("Speedup over each route's own 1-GPU run: the median of the rounds' speedups (range of rounds).\n\n");
            s.append("| route | GPUs | s/epoch | speedup | rounds | efficiency | test acc | vs 1 GPU |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
            for (Row row : sp) {
                if (!row.getString("set").equals(set)) continue;
                s.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3fx | %s | %.1f%% | %.2f%% | %+.2f pt |%n", row.getString("route"),
                        row.getInt("gpus"), row.getDouble("epoch_s"), row.getDouble("speedup"),
                        Double.isNaN(row.getDouble("speedup_lo")) ? "-" : String.format(Locale.ROOT, "%.3f-%.3f", row.getDouble("speedup_lo"), row.getDouble("speedup_hi")),
                        100 * row.getDouble("efficiency"), 100 * row.getDouble("test_acc"), row.getDouble("acc_vs_1gpu_points")));
            }
            s.append('\n');
        }
        Table ratios = r.ratioTable();
        if (ratios.rowCount() > 0) {
            s.append("## busbw against torch.distributed\n\nLowest ratio (toolkit NCCL / torch.distributed, median of rounds) over the sizes from 1 MiB,"
                    + " per collective and GPU count; every size in `busbw-ratio.csv`.\n\n");
            Map<String, Map<Integer, Double>> low = new TreeMap<>();
            java.util.TreeSet<Integer> counts = new java.util.TreeSet<>();
            for (Row row : ratios) {
                counts.add(row.getInt("gpus"));
                low.computeIfAbsent(row.getString("collective"), k -> new TreeMap<>()).merge(row.getInt("gpus"), row.getDouble("ratio"), Math::min);
            }
            s.append("| collective |");
            counts.forEach(n -> s.append(' ').append(n).append(" GPUs |"));
            s.append("\n| --- |");
            counts.forEach(n -> s.append(" --- |"));
            s.append('\n');
            low.forEach((coll, byN) -> {
                s.append("| ").append(coll).append(" |");
                counts.forEach(n -> s.append(byN.containsKey(n) ? String.format(Locale.ROOT, " %.3f |", byN.get(n)) : " - |"));
                s.append('\n');
            });
            s.append('\n');
        }
        s.append("## Targets\n\n```\n").append(r.targets()).append("```\n\n");
        s.append("## What the numbers say\n\n(to write after reading the charts and the logs in the run's tar)\n\n");
        s.append("Files: ").append(String.join(", ", files.stream().map(p -> "`" + p.getFileName() + "`").toList())).append(".\n");
        return s.toString();
    }
}
