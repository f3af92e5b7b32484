package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/** The multi-GPU run's report on a run folder laid out as scripts/gpu/multi-gpu.sh leaves it, with known numbers. */
class ScalingReportTest {
    private static final String EPOCH_HEAD = "route,ranks,device,epoch,round,epoch_s,samples_per_s,samples,steps,train_loss,train_acc,"
            + "test_loss,test_acc,eval_s,batch_per_rank,global_batch,lr\n";
    private static final String BW_HEAD = "communicator,collective,ranks,type,redop,root,size_bytes,count,placement,iters,time_us,"
            + "algbw_GBps,busbw_GBps,wrong,d2h_us,host_collective_us,h2d_us\n";

    /** One round's epochs: a 1-GPU run of 1.0 s and N-GPU runs of 1/speedup seconds. */
    private static String epochs(String route, int round, double[][] gpusAndSpeedup) {
        StringBuilder s = new StringBuilder(EPOCH_HEAD);
        for (double[] g : gpusAndSpeedup) {
            s.append(String.format(Locale.ROOT, "%s,%d,gpu,1,%d,%f,1,60000,100,1,0.9,1,0.9,0.1,128,%d,0.05%n",
                    g[0] == 1 && route.equals("nccl") ? "single" : route, (int) g[0], round, 1.0 / g[1], 128 * (int) g[0]));
        }
        return s.toString();
    }

    private static String bandwidth(String comm, String coll, int n, double[] busbw, String placement) {
        StringBuilder s = new StringBuilder(BW_HEAD);
        long size = 1 << 19;
        for (double b : busbw) {
            s.append(String.format(Locale.ROOT, "%s,%s,%d,float32,sum,0,%d,%d,%s,20,10,%f,%f,0,,,%n", comm, coll, n, size, size / 4, placement, b, b));
            size *= 2;
        }
        return s.toString();
    }

    private static void write(Path f, String text) throws IOException {
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
    }

    @Test
    void speedupAndBusbwAreJudgedAtEveryGpuCount(@TempDir Path run) throws IOException {
        write(run.resolve("machine.txt"), "gpus=4\ngpu=Test GPU\ncommit=abc1234\ndate=2026-01-01T00:00:00Z\ncommand=bash scripts/gpu/multi-gpu.sh\n");
        // rounds: nccl 1.92x / 3.70x (the 4-GPU target 3.8x is missed), ddp 1.80x / 3.50x
        write(run.resolve("dp/fashion/ours-r1/epochs.csv"), epochs("nccl", 1, new double[][] {{1, 1}, {2, 1.92}, {4, 3.70}}));
        write(run.resolve("dp/fashion/ours-r2/epochs.csv"), epochs("nccl", 2, new double[][] {{1, 1}, {2, 1.94}, {4, 3.72}}));
        write(run.resolve("dp/fashion/ddp-r1.csv"), epochs("ddp", 1, new double[][] {{1, 1}, {2, 1.80}, {4, 3.50}}));
        write(run.resolve("dp/fashion/ddp-r2.csv"), epochs("ddp", 2, new double[][] {{1, 1}, {2, 1.82}, {4, 3.52}}));
        // busbw at 512 KiB (below the target's sizes), 1 MiB, 2 MiB: allReduce at parity on 2 GPUs, below at 2 MiB on 4
        for (int r = 1; r <= 2; r++) {
            write(run.resolve("bw/n2/r" + r + "/nccl/bandwidth.csv"), bandwidth("nccl", "allReduce", 2, new double[] {1, 100, 200}, "in-place"));
            write(run.resolve("bw/n2/r" + r + "/torch.csv"), bandwidth("torch.distributed", "allReduce", 2, new double[] {9, 100, 190}, "in-place"));
            write(run.resolve("bw/n4/r" + r + "/nccl/bandwidth.csv"), bandwidth("nccl", "allReduce", 4, new double[] {1, 100, 180}, "in-place"));
            write(run.resolve("bw/n4/r" + r + "/torch.csv"), bandwidth("torch.distributed", "allReduce", 4, new double[] {1, 90, 200}, "in-place"));
        }
        ScalingReport report = ScalingReport.read(run);
        Table sp = report.speedupTable();
        assertEquals(1.93, value(sp, "nccl", 2, "speedup"), 1e-3, "the median of the rounds' speedups");
        assertEquals(3.71, value(sp, "nccl", 4, "speedup"), 1e-3);
        assertEquals(3.51, value(sp, "ddp", 4, "speedup"), 1e-3, "DDP against its own 1-GPU run");

        String t = report.targets();
        assertTrue(t.contains("nccl x2 speedup 1.930x (rounds 1.920-1.940) >= 1.90x: MET"), t);
        assertTrue(t.contains("nccl x4 speedup 3.710x (rounds 3.700-3.720) >= 3.80x: NOT MET"), t);
        assertTrue(t.contains("nccl x4 >= PyTorch ddp's 3.510x: MET"), t);
        assertTrue(t.matches("(?s).*allReduce on 2 GPUs\\s+>= 1.00 at every size \\(2 sizes, lowest 1.000\\): MET.*"), t);
        assertTrue(t.matches("(?s).*allReduce on 4 GPUs\\s+>= 1.00 at every size \\(2 sizes, lowest 0.900\\): MISSED at 2 MiB \\(0.900\\).*"), t);

        Path out = run.resolve("report");
        List<Path> files = report.write(out, false);
        assertTrue(files.contains(out.resolve("speedup.csv")) && files.contains(out.resolve("busbw-ratio.csv")), files.toString());
        String readme = Files.readString(out.resolve("README.md"));
        assertTrue(readme.contains("abc1234") && readme.contains("4x Test GPU") && readme.contains("| nccl | 4 |"), readme);
        assertTrue(readme.contains("scaling-report RUN_FOLDER --out " + out + "`"), "the README names the folder as given: " + readme);
    }

    @Test
    void aFolderWithoutResultsSaysWhatItLacks(@TempDir Path run) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScalingReport.read(run));
        assertTrue(e.getMessage().contains("dp/SET/") && e.getMessage().contains("bw/nN/"), e.getMessage());
    }

    private static double value(Table t, String route, int gpus, String col) {
        List<Double> v = new ArrayList<>();
        for (Row r : t) if (r.getString("route").equals(route) && r.getInt("gpus") == gpus) v.add(r.getDouble(col));
        assertEquals(1, v.size(), route + " x" + gpus);
        return v.get(0);
    }
}
