package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.cli.Main;
import org.mpi2nccl.parallel.gpu.Route;
import tech.tablesaw.api.Table;

/** The experiment end to end on CPU ranks (small), its report, and its errors before training. */
class SpeedupExperimentTest {
    @TempDir
    Path dir;

    private static SpeedupConfig tiny() {
        SpeedupConfig c = new SpeedupConfig();
        c.device = "cpu";
        c.data = "synthetic-cifar";
        c.trainExamples = 320;
        c.testExamples = 80;
        c.channels = new int[] {4, 8};
        c.epochs = 2;
        c.batchPerRank = 16;
        c.warmupSteps = 2;
        return c;
    }

    @Test
    void roundsRunEveryPairInTurnAndEachRowSaysItsRound() {
        SpeedupConfig c = tiny();
        c.epochs = 1;
        List<String> log = new java.util.ArrayList<>();
        SpeedupResults r = new SpeedupExperiment(c, List.of(Route.MPI), List.of(1, 2)).rounds(2).log(log::add)
                .runTimeout(java.time.Duration.ofMinutes(3)).run();
        assertTrue(r.failures().isEmpty(), r.failures().toString());
        Table e = r.epochs();
        assertEquals(List.of("single", "mpi", "single", "mpi"), e.stringColumn("route").asList(), "1 rank, 2 ranks, then again");
        assertEquals(List.of(1, 1, 2, 2), e.intColumn("round").asList());
        assertEquals(List.of(1, 1, 1, 2, 2, 2), r.perRank().intColumn("round").asList(), "every rank's row says its round");
        assertEquals(2, r.rounds());
        assertTrue(log.contains("== mpi x2 round 2/2 (" + Route.MPI.description() + ")"), log.toString());
        double lo = r.summary().doubleColumn("speedup_lo").getDouble(1), hi = r.summary().doubleColumn("speedup_hi").getDouble(1);
        assertTrue(lo <= r.speedup("mpi", 2) && r.speedup("mpi", 2) <= hi, lo + " .. " + hi);
    }

    @Test
    void oneAndTwoCpuRanksOverMpiProduceTheTableThePlotsAndTheReport() throws IOException {
        List<String> log = new java.util.ArrayList<>();
        List<String> bars = new java.util.ArrayList<>();
        SpeedupResults r = new SpeedupExperiment(tiny(), List.of(Route.MPI), List.of(1, 2)).log(log::add).runTimeout(java.time.Duration.ofMinutes(3))
                .progress((label, total) -> {
                    bars.add(label);
                    return ProgressReporter.silent().start(label, total);
                }).run();
        assertTrue(r.failures().isEmpty(), r.failures().toString());
        Table e = r.epochs();
        assertEquals(4, e.rowCount(), "2 epochs x (1 rank, 2 ranks)");
        for (int i = 0; i < e.rowCount(); i++) {
            assertEquals(320, e.longColumn("samples").getLong(i), "every epoch covers the training set once");
            int ranks = e.intColumn("ranks").getInt(i);
            assertEquals(320 / (16 * ranks), e.longColumn("steps").getLong(i), "weak scaling: N ranks take N times fewer steps");
            double acc = e.doubleColumn("test_acc").getDouble(i);
            assertTrue(acc >= 0 && acc <= 1, "accuracy " + acc);
            assertTrue(e.doubleColumn("epoch_s").getDouble(i) > 0);
            assertEquals(ranks == 1 ? 0 : 320 / 32, e.longColumn("collectives").getLong(i), "one bucket, one all-reduce per step");
        }
        assertTrue(bars.contains("1 rank epoch 1/2") && bars.contains("mpi x2 epoch 2/2"), "a bar per epoch: " + bars);
        assertEquals(2 + 2 * 2, r.perRank().rowCount(), "every rank's own times: 1 rank x 2 epochs + 2 ranks x 2 epochs");
        assertTrue(r.perRank().intColumn("rank").asList().contains(1));
        Table s = r.summary();
        assertEquals(List.of("single", "mpi"), s.stringColumn("route").asList());
        assertEquals(1.0, s.doubleColumn("speedup").getDouble(0), 1e-12);
        double sp = s.doubleColumn("speedup").getDouble(1);
        assertTrue(sp > 0 && Double.isFinite(sp), "speedup " + sp);
        assertEquals(sp / 2, s.doubleColumn("efficiency").getDouble(1), 1e-12);

        List<Path> files = SpeedupReport.write(r, dir, "test");
        for (String f : List.of("epochs.csv", "summary.csv", "index.html", "speedup.png", "efficiency.png", "breakdown-mpi.png",
                "collectives.png", "accuracy.png", "run.txt")) {
            Path p = dir.resolve(f);
            assertTrue(files.contains(p) && Files.size(p) > 100, f + " written");
        }
        byte[] png = Files.readAllBytes(dir.resolve("speedup.png"));
        assertEquals((byte) 0x89, png[0]);
        assertEquals('P', png[1]);
        assertTrue(Files.readString(dir.resolve("index.html")).contains("<td class=\"s\">mpi</td>"));
        SpeedupResults back = SpeedupResults.fromEpochs("tiny", "again", Table.read().csv(dir.resolve("epochs.csv").toFile()));
        assertEquals(sp, back.summary().doubleColumn("speedup").getDouble(1), 1e-9, "the CSV holds everything the summary needs");

        // a peer's rows (PyTorch DDP: no phase breakdown) merge in, compared with the peer's own single GPU
        Path ddp = dir.resolve("ddp.csv");
        Files.writeString(ddp, "route,ranks,device,epoch,epoch_s,samples_per_s,samples,steps,train_loss,train_acc,test_loss,test_acc\n"
                + "ddp,1,gpu,1,2.0,160,320,20,1.0,0.5,1.0,0.50\n"
                + "ddp,2,gpu,1,0.8,400,320,10,1.0,0.5,1.0,0.49\n");
        SpeedupResults merged = SpeedupResults.fromCsv(List.of(dir.resolve("epochs.csv"), ddp));
        assertEquals(2.5, merged.speedup("ddp", 2), 1e-9, "2.0 s / 0.8 s");
        assertEquals(sp, merged.speedup("mpi", 2), 1e-9, "the toolkit's runs keep their own baseline");
        assertEquals(-1.0, merged.summary().where(merged.summary().stringColumn("route").isEqualTo("ddp")
                .and(merged.summary().intColumn("ranks").isEqualTo(2))).doubleColumn("acc_vs_1rank_points").getDouble(0), 1e-6);
        assertFalse(merged.hasPhases("ddp"));
        assertTrue(SpeedupReport.charts(merged).containsKey("breakdown-mpi"));
        assertFalse(SpeedupReport.charts(merged).containsKey("breakdown-ddp"), "no breakdown for a peer that measured none");
        Path again = dir.resolve("merged");
        assertEquals(0, Main.run("run", "--from-csv", dir.resolve("epochs.csv") + "," + ddp, "--out", again.toString()));
        assertTrue(Files.size(again.resolve("speedup.png")) > 100);
        System.out.println(SpeedupReport.text(r));
    }

    @Test
    void aScaledLearningRateIsReachedOverTheFirstEpoch() {
        SpeedupConfig c = tiny();
        assertEquals(0.05f, SpeedupRank.warmedUpLr(c, 0.05f, 0.1f, 0, 100), 1e-7);
        assertEquals(0.075f, SpeedupRank.warmedUpLr(c, 0.05f, 0.1f, 50, 100), 1e-7);
        assertEquals(0.1f, SpeedupRank.warmedUpLr(c, 0.05f, 0.1f, 100, 100), 1e-7);
        assertEquals(0.1f, SpeedupRank.warmedUpLr(c, 0.05f, 0.1f, 1000, 100), 1e-7);
        assertEquals(0.05f, SpeedupRank.warmedUpLr(c, 0.05f, 0.05f, 0, 100), 1e-7, "one rank: nothing to warm up");
        c.lrWarmupEpochs = 0;
        assertEquals(0.1f, SpeedupRank.warmedUpLr(c, 0.05f, 0.1f, 0, 100), 1e-7, "no warm-up asked");
    }

    @Test
    void badInputIsRefusedBeforeAnythingStarts() {
        SpeedupConfig cpu = tiny();
        IllegalArgumentException nccl = assertThrows(IllegalArgumentException.class,
                () -> new SpeedupExperiment(cpu, List.of(Route.NCCL), List.of(1, 2)));
        assertTrue(nccl.getMessage().contains("NCCL route needs GPUs"), nccl.getMessage());
        SpeedupConfig small = tiny();
        small.globalBatch = 2;
        IllegalArgumentException batch = assertThrows(IllegalArgumentException.class,
                () -> new SpeedupExperiment(small, List.of(Route.MPI), List.of(1, 4)));
        assertTrue(batch.getMessage().contains("smaller than the number of ranks"), batch.getMessage());
        assertEquals(2, Main.run("run", "--device", "cpu", "--routes", "nccl"), "the command says no and exits 2");
        assertEquals(2, Main.run("run", "--device", "cpu", "--global-batch", "3", "--ranks", "1,2"));
        if (!org.mpi2nccl.cuda.Cuda.isAvailable()) {
            IllegalArgumentException gpu = assertThrows(IllegalArgumentException.class, () -> {
                SpeedupConfig c = tiny();
                c.device = "cuda";
                new SpeedupExperiment(c, List.of(Route.NCCL), List.of(1));
            });
            assertTrue(gpu.getMessage().contains("no GPU"), gpu.getMessage());
        }
    }

    @Test
    void anEmptyShardAndADataSetMissingOnOneRankStopTheRunBeforeTrainingAndNameTheRank() throws IOException {
        SpeedupConfig empty = tiny();
        empty.trainExamples = 1;
        SpeedupResults r = new SpeedupExperiment(empty, List.of(Route.MPI), List.of(2)).log(s -> { }).runTimeout(java.time.Duration.ofMinutes(2)).run();
        assertEquals(1, r.failures().size(), r.failures().toString());
        assertTrue(r.failures().get(0).contains("empty shard"), r.failures().get(0));
        assertEquals(0, r.epochs().rowCount(), "no epoch ran");

        // rank 0 finds a (tiny) Fashion-MNIST in its folder, rank 1's folder is empty
        Path rank0 = Files.createDirectories(dir.resolve("rank0"));
        Files.createDirectories(dir.resolve("rank1"));
        writeFashion(rank0, 40);
        SpeedupConfig missing = tiny();
        missing.data = "fashion";
        missing.dataDir = dir.resolve("rank{rank}");
        SpeedupResults m = new SpeedupExperiment(missing, List.of(Route.MPI), List.of(2)).log(s -> { }).runTimeout(java.time.Duration.ofMinutes(2)).run();
        assertEquals(1, m.failures().size(), m.failures().toString());
        String why = m.failures().get(0);
        assertTrue(why.contains("loading the data set failed before training started on rank 1: Fashion-MNIST missing"), why);
        assertFalse(why.contains("rank 0:"), "rank 0 had its data: " + why);
    }

    private static void writeFashion(Path dir, int n) throws IOException {
        byte[] pixels = new byte[n * 784];
        for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (i * 13);
        byte[] labels = new byte[n];
        for (int i = 0; i < n; i++) labels[i] = (byte) (i % 10);
        for (String split : new String[] {"train", "t10k"}) {
            gz(dir.resolve(split + "-images-idx3-ubyte.gz"), idx(new int[] {n, 28, 28}, pixels));
            gz(dir.resolve(split + "-labels-idx1-ubyte.gz"), idx(new int[] {n}, labels));
        }
    }

    private static byte[] idx(int[] dims, byte[] data) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(0x800 | dims.length);
            for (int d : dims) out.writeInt(d);
            out.write(data);
        }
        return bytes.toByteArray();
    }

    private static void gz(Path file, byte[] content) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(content);
        }
    }
}
