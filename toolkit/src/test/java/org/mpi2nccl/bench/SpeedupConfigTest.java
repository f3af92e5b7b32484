package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.dist.Route;

/** The experiment's settings travel to every rank program as key=value arguments: nothing may be lost on the way. */
class SpeedupConfigTest {
    @Test
    void everySettingSurvivesTheTripToARankProgram() {
        SpeedupConfig c = new SpeedupConfig();
        c.channels1 = 8;
        c.channels2 = 16;
        c.epochs = 3;
        c.batchPerRank = 64;
        c.lr = 0.02f;
        c.warmupSteps = 7;
        c.overlap = false;
        c.bucketBytes = 4096;
        c.lastBucketBytes = 2048;
        c.overlapCtas = 6;
        c.cudaGraphs = true;
        c.graphCollectives = false;
        c.device = "cuda";
        List<String> args = c.toArgs(Route.NCCL);
        Route[] route = new Route[1];
        SpeedupConfig back = SpeedupConfig.fromArgs(args.toArray(new String[0]), route);
        assertEquals(Route.NCCL, route[0]);
        assertEquals(args, back.toArgs(Route.NCCL));
        assertTrue(back.cudaGraphs);
        assertFalse(back.graphCollectives, "graph-collectives=false reached the rank: " + args);
        assertFalse(back.overlap);
        assertEquals(4096, back.bucketBytes);
        assertEquals(2048, back.lastBucketBytes);
        assertEquals(6, back.overlapCtas);
    }

    @Test
    void aNegativeLastBucketOrCtaCountIsRefusedNamingTheOption() {
        SpeedupConfig c = new SpeedupConfig();
        c.lastBucketBytes = -1024;
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, c::validate);
        assertTrue(e.getMessage().contains("--last-bucket-kib"), e.getMessage());
        c.lastBucketBytes = 0;
        c.overlapCtas = -2;
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, c::validate);
        assertTrue(e.getMessage().contains("--overlap-ctas"), e.getMessage());
    }

    @Test
    void theReportsCommandLineRepeatsTheTrainersKnobs() {
        SpeedupCommand c = new SpeedupCommand();
        new picocli.CommandLine(c).parseArgs("--overlap-ctas", "2", "--last-bucket-kib", "4", "--bucket-kib", "512");
        List<String> said = c.commandLine();
        assertTrue(said.containsAll(List.of("--overlap-ctas 2", "--last-bucket-kib 4", "--bucket-kib 512")), said.toString());
    }

    @Test
    void theExperimentLimitsTheAllReducesBesideBackwardToFourCtasTheLibraryLeavesItToNccl() {
        assertEquals(4, new SpeedupConfig().overlapCtas);
        assertEquals(0, org.mpi2nccl.dist.gpu.GpuOptions.defaults().overlapCtas());
        assertEquals(0, org.mpi2nccl.dist.gpu.GpuOptions.defaults().lastBucketBytes());
    }

    @Test
    void theAllReducesAreRecordedIntoTheGraphsUnlessSaidOtherwise() {
        assertTrue(new SpeedupConfig().graphCollectives);
        assertTrue(org.mpi2nccl.dist.gpu.GpuOptions.defaults().graphCollectives());
        assertFalse(org.mpi2nccl.dist.gpu.GpuOptions.defaults().graphCollectives(false).graphCollectives());
    }
}
