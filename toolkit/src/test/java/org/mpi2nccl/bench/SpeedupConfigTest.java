package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.parallel.gpu.GpuOptions;

/** The experiment's settings travel to every rank program as JSON: nothing may be lost on the way. */
class SpeedupConfigTest {
    @Test
    void everySettingSurvivesTheTripToARankProgram() {
        SpeedupConfig c = new SpeedupConfig();
        c.channels = new int[] {8, 16};
        c.data = "synthetic-cifar";
        c.dataDir = Path.of("data", "rank{rank}");
        c.trainExamples = 640;
        c.testExamples = 160;
        c.epochs = 3;
        c.batchPerRank = 64;
        c.globalBatch = 128;
        c.optimizer = "adam";
        c.lr = 0.02f;
        c.lrScaling = "sqrt";
        c.lrWarmupEpochs = 0.5;
        c.seed = 42;
        c.warmupSteps = 7;
        c.overlap = false;
        c.bucketKib = 4;
        c.lastBucketKib = 2;
        c.overlapCtas = 6;
        c.cudaGraphs = true;
        c.graphCollectives = false;
        c.device = "cuda";
        String json = c.toJson();
        SpeedupConfig back = SpeedupConfig.fromJson(json);
        assertEquals(json, back.toJson());
        assertArrayEquals(new int[] {8, 16}, back.channels);
        assertEquals("synthetic-cifar", back.data);
        assertEquals(Path.of("data", "rank{rank}").toAbsolutePath(), back.dataDir, "a rank may start in another folder");
        assertEquals(640, back.trainExamples);
        assertEquals(160, back.testExamples);
        assertEquals(3, back.epochs);
        assertEquals(64, back.batchPerRank);
        assertEquals(128, back.globalBatch);
        assertEquals("adam", back.optimizer);
        assertEquals(0.02f, back.lr);
        assertEquals("sqrt", back.lrScaling);
        assertEquals(0.5, back.lrWarmupEpochs);
        assertEquals(42, back.seed);
        assertEquals(7, back.warmupSteps());
        assertTrue(back.cudaGraphs());
        assertFalse(back.graphCollectives, "graph-collectives=false reached the rank: " + json);
        assertFalse(back.overlap);
        assertEquals(4096, back.bucketBytes());
        assertEquals(2048, back.lastBucketBytes());
        assertEquals(6, back.overlapCtas);
        assertEquals("cuda", back.device);
        assertEquals(4096, back.trainerOptions().bucketBytes());
        GpuOptions o = back.gpuOptions();
        assertEquals(2048, o.lastBucketBytes());
        assertEquals(6, o.overlapCtas());
        assertFalse(o.graphCollectives());
        assertTrue(o.cudaGraphs());
    }

    @Test
    void settingsLeftUnsetStayUnsetAndFollowTheDevice() {
        SpeedupConfig c = new SpeedupConfig();
        SpeedupConfig back = SpeedupConfig.fromJson(c.toJson());
        assertNull(back.dataDir);
        assertNull(back.warmupSteps);
        assertEquals(SpeedupConfig.CPU_WARMUP_STEPS, back.warmupSteps());
        assertFalse(back.cudaGraphs());
        back.device = "cuda";
        assertEquals(SpeedupConfig.GPU_WARMUP_STEPS, back.warmupSteps(), "GPU runs warm up longer");
        assertTrue(back.cudaGraphs(), "GPU steps are replayed from CUDA graphs unless said otherwise");
    }

    @Test
    void aBadSettingIsRefusedOnArrival() {
        SpeedupConfig c = new SpeedupConfig();
        c.optimizer = "rmsprop";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SpeedupConfig.fromJson(c.toJson()));
        assertTrue(e.getMessage().contains("--optimizer"), e.getMessage());
    }

    @Test
    void aNegativeLastBucketOrCtaCountOrAThirdChannelIsRefusedNamingTheOption() {
        SpeedupConfig c = new SpeedupConfig();
        c.lastBucketKib = -1;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, c::validate);
        assertTrue(e.getMessage().contains("--last-bucket-kib"), e.getMessage());
        c.lastBucketKib = 0;
        c.overlapCtas = -2;
        e = assertThrows(IllegalArgumentException.class, c::validate);
        assertTrue(e.getMessage().contains("--overlap-ctas"), e.getMessage());
        c.overlapCtas = 0;
        c.channels = new int[] {8, 16, 32};
        e = assertThrows(IllegalArgumentException.class, c::validate);
        assertTrue(e.getMessage().contains("--channels takes two numbers"), e.getMessage());
    }

    @Test
    void theExperimentLimitsTheAllReducesBesideBackwardToFourCtasTheLibraryLeavesItToNccl() {
        assertEquals(4, new SpeedupConfig().overlapCtas);
        assertEquals(0, GpuOptions.defaults().overlapCtas());
        assertEquals(0, GpuOptions.defaults().lastBucketBytes());
        assertEquals(DataParallel.Options.DEFAULT_BUCKET_BYTES, new SpeedupConfig().bucketBytes(), "the library's bucket size");
    }

    @Test
    void theAllReducesAreRecordedIntoTheGraphsUnlessSaidOtherwise() {
        assertTrue(new SpeedupConfig().graphCollectives);
        assertTrue(GpuOptions.defaults().graphCollectives());
        assertFalse(GpuOptions.defaults().graphCollectives(false).graphCollectives());
    }

    @Test
    void overlapByDefaultNeedsNcclOrASecondCorePerCpuRank() {
        assertTrue(SpeedupConfig.overlapByDefault(true, 2, 8), "NCCL needs no host thread");
        assertFalse(SpeedupConfig.overlapByDefault(false, 2, 2), "2 ranks and their all-reduce threads on 2 cores");
        assertFalse(SpeedupConfig.overlapByDefault(false, 3, 2));
        assertTrue(SpeedupConfig.overlapByDefault(false, 4, 2));
        SpeedupConfig said = new SpeedupConfig();
        said.overlap = true;
        assertTrue(said.overlapFor(64), "what was asked for wins");
        SpeedupConfig unsaid = new SpeedupConfig();
        IllegalStateException e = assertThrows(IllegalStateException.class, unsaid::trainerOptions);
        assertTrue(e.getMessage().contains("overlapFor"), e.getMessage());
    }

    @Test
    void theExperimentDecidesOverlapFromThisMachinesCores() {
        SpeedupConfig c = new SpeedupConfig();
        new SpeedupExperiment(c, List.of(Route.RING), List.of(1, 2));
        assertEquals(Runtime.getRuntime().availableProcessors() >= 4, c.overlap, "decided for the most ranks, 2");
        assertEquals(c.overlap ? "all-reduce beside backward" : "all-reduce after backward",
                c.describe().substring(c.describe().lastIndexOf(", ") + 2));
        SpeedupConfig off = new SpeedupConfig();
        off.overlap = false;
        new SpeedupExperiment(off, List.of(Route.RING), List.of(1, 2));
        assertFalse(off.overlap);
        assertTrue(SpeedupConfig.fromJson(off.toJson()).describe().endsWith("CPU, all-reduce after backward"), "the rank reads it");
    }
}
