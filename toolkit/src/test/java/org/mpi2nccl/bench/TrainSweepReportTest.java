package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.bench.TrainSweepReport.Mode;

/** The sweep's rounds as bench-gpu and torch_peer.py write them, read back into medians and per-round ratios. */
class TrainSweepReportTest {
    @TempDir
    Path dir;

    private void write(String file, boolean torch, String... figures) throws IOException {
        StringBuilder s = new StringBuilder("{\"device\": \"GPU X\"" + (torch ? ", \"torch\": \"2.11\"" : "") + ", \"results\": [");
        for (int i = 0; i < figures.length; i += 2) {
            if (i > 0) s.append(',');
            s.append("{\"group\": \"train\", \"name\": \"cnn train step batch ").append(figures[i])
                    .append("\", \"value\": 1, \"unit\": \"samples/s\", \"ms\": ").append(figures[i + 1]).append(", \"note\": \"\"}");
        }
        Path f = dir.resolve(file);
        Files.createDirectories(f.getParent());
        Files.writeString(f, s.append("]}").toString());
    }

    private void twoRounds() throws IOException {
        // round 1: ours 10 eager / 8 graphed; torch 11 eager, 9 graph, 6 compile.  round 2: ours 10 / 6; torch 12, 9, 7
        write("round-1/toolkit.json", false, "8192 (32,64)", "10", "8192 (32,64) graphed", "8",
                "8192 (32,64), 8 queued: host time to queue", "3", "128 (32,64)", "1.0", "128 (32,64) graphed", "0.5");
        write("round-1/torch.json", true, "8192 (32,64)", "11", "8192 (32,64) cuda graph", "9", "8192 (32,64) torch.compile", "6",
                "128 (32,64)", "2.0", "128 (32,64) cuda graph", "0.75");
        write("round-2/toolkit.json", false, "8192 (32,64)", "10", "8192 (32,64) graphed", "6");
        write("round-2/torch.json", true, "8192 (32,64)", "12", "8192 (32,64) cuda graph", "9", "8192 (32,64) torch.compile", "7");
    }

    @Test
    void ratiosAreTakenWithinEachRoundThenTheMedian() throws IOException {
        twoRounds();
        TrainSweepReport r = TrainSweepReport.read(dir);
        assertEquals(java.util.List.of(128, 8192), r.batches());
        assertEquals(7.0, r.medianMs(8192, Mode.TOOLKIT_GRAPHED), 1e-9);
        assertEquals(Mode.TORCH_COMPILE, r.bestTorch(8192));
        // per round: 6/8 = 0.75 and 7/6; the median of two is their mean
        assertArrayEquals(new double[] {0.75, 7.0 / 6}, r.perRound(8192, Mode.TOOLKIT_GRAPHED,
                EnumSet.of(Mode.TORCH_EAGER, Mode.TORCH_GRAPH, Mode.TORCH_COMPILE)), 1e-9);
        assertEquals((0.75 + 7.0 / 6) / 2, r.graphedVsBest(8192), 1e-9);
        assertEquals((1.1 + 1.2) / 2, r.eagerVsEager(8192), 1e-9);
        assertEquals(1.5, r.graphedVsBest(128), 1e-9, "0.75 ms for PyTorch's CUDA graph over 0.5 ms");
        assertEquals(4 + 5 + 2 + 3, r.samples().size(), "the launch-bound figures are no step times");
    }

    @Test
    void theTableSaysWhichRowsMeetTheTargetsAndTheCsvHasEverySample() throws IOException {
        twoRounds();
        TrainSweepReport r = TrainSweepReport.read(dir);
        String table = r.table();
        assertTrue(table.contains("median of 2 rounds"), table);
        assertTrue(table.contains("| 8192 | 10.000 | 7.000 | 11.500 | 9.000 | 6.500 | 0.96x MISSES >= 1.0x (best: torch.compile) | 1.15x meets >= 1.0x |"), table);
        assertTrue(table.contains("| 128 | 1.000 | 0.500 | 2.000 | 0.750 | - | 1.50x meets >= 1.0x (best: cuda graph) | 2.00x meets >= 1.0x |"), table);
        Path out = dir.resolve("report");
        r.write(out, false);
        java.util.List<String> csv = Files.readAllLines(out.resolve("train-sweep.csv"));
        assertEquals("round,batch,side,mode,ms,samples_per_s", csv.get(0));
        assertEquals(r.samples().size() + 1, csv.size());
    }

    @Test
    void aRunWithTheFusedBlocksOffIsAColumnOfItsOwnAndNoTarget() throws IOException {
        twoRounds();
        write("round-1/toolkit-unfused.json", false, "8192 (32,64) unfused", "12", "8192 (32,64) unfused graphed", "11.5");
        TrainSweepReport r = TrainSweepReport.read(dir);
        assertEquals(java.util.List.of(Mode.TOOLKIT_EAGER, Mode.TOOLKIT_GRAPHED, Mode.TOOLKIT_EAGER_UNFUSED, Mode.TOOLKIT_GRAPHED_UNFUSED,
                Mode.TORCH_EAGER, Mode.TORCH_GRAPH, Mode.TORCH_COMPILE), r.modes());
        String table = r.table();
        assertTrue(table.contains("| toolkit eager unfused | toolkit graphed unfused |"), table);
        assertTrue(table.contains("| 8192 | 10.000 | 7.000 | 12.000 | 11.500 | 11.500 | 9.000 | 6.500 | 0.96x MISSES"), table);
        assertEquals((0.75 + 7.0 / 6) / 2, r.graphedVsBest(8192), 1e-9, "the targets stay on the default, fused run");
    }

    @Test
    void theCudnnBenchmarkAndChannelsLastModesCountAmongPyTorchsBest() throws IOException {
        twoRounds();
        write("round-1/torch-tuned.json", true, "8192 (32,64) cudnn.benchmark", "8",
                "8192 (32,64) channels-last cudnn.benchmark cuda graph", "4");
        write("round-2/torch-tuned.json", true, "8192 (32,64) cudnn.benchmark", "8.5",
                "8192 (32,64) channels-last cudnn.benchmark cuda graph", "5");
        TrainSweepReport r = TrainSweepReport.read(dir);
        assertEquals(Mode.TORCH_CHANNELS_LAST_GRAPH, r.bestTorch(8192));
        // per round: 4/8 and 5/6
        assertEquals((0.5 + 5.0 / 6) / 2, r.graphedVsBest(8192), 1e-9);
        assertEquals((1.1 + 1.2) / 2, r.eagerVsEager(8192), 1e-9, "eager stays against PyTorch eager, cudnn.benchmark off");
        assertTrue(r.table().contains("| PyTorch eager | PyTorch cudnn.benchmark | PyTorch cuda graph | PyTorch channels-last cudnn.benchmark cuda graph |"
                + " PyTorch torch.compile |"), r.table());
    }

    @Test
    void aFolderWithoutTrainFiguresSaysWhatToRun() throws IOException {
        Files.writeString(dir.resolve("other.json"), "{\"results\": []}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrainSweepReport.read(dir));
        assertTrue(e.getMessage().contains("train-sweep.sh"), e.getMessage());
    }
}
