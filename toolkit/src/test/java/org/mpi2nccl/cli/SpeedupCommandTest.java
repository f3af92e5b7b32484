package org.mpi2nccl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import picocli.CommandLine;

/** {@code mpi2nccl run}'s options: this machine's preset as defaults, the flags, and the report's command line. */
class SpeedupCommandTest {
    private static SpeedupCommand parsed(String... args) {
        SpeedupCommand c = new SpeedupCommand();
        new CommandLine(c).parseArgs(args);
        return c;
    }

    @Test
    void withoutOptionsTheSettingsAreThisMachinesPreset() {
        assertEquals(SpeedupExperiment.defaultConfig().toJson(), parsed().config.toJson());
        SpeedupConfig shorter = SpeedupExperiment.defaultConfig();
        shorter.epochs = 1;
        shorter.channels = new int[] {4, 8};
        assertEquals(shorter.toJson(), parsed("--epochs", "1", "--channels", "4,8").config.toJson(), "only what was given changes");
    }

    @Test
    void theFlagsSetWhatTheySay() {
        SpeedupConfig none = parsed().config;
        assertEquals(null, none.overlap, "by machine");
        assertTrue(none.graphCollectives);
        assertEquals(null, none.cudaGraphs, "by device");
        SpeedupConfig off = parsed("--no-overlap", "--no-cuda-graphs", "--no-graph-collectives").config;
        assertFalse(off.overlap);
        assertFalse(off.cudaGraphs);
        assertFalse(off.graphCollectives);
        SpeedupConfig on = parsed("--overlap", "--cuda-graphs", "--graph-collectives").config;
        assertTrue(on.overlap);
        assertTrue(on.cudaGraphs);
        assertTrue(on.graphCollectives);
    }

    @Test
    void theReportsCommandLineRepeatsTheTrainersKnobs() {
        List<String> said = parsed("--overlap-ctas", "2", "--last-bucket-kib", "4", "--bucket-kib", "512").commandLine();
        assertTrue(said.containsAll(List.of("--overlap-ctas 2", "--last-bucket-kib 4", "--bucket-kib 512")), said.toString());
    }

    @Test
    void theReportsCommandLineSaysEveryOptionGivenInTheHelpsOrderAndNotWhereTheReportWent() {
        List<String> said = parsed("--rounds", "2", "--no-cuda-graphs", "--out", "elsewhere", "--lr", "0.02", "--no-overlap",
                "--channels", "4,8", "--ranks", "1,2", "--routes", "mpi,ring", "--run-timeout", "60").commandLine();
        assertEquals(List.of("--routes mpi,ring", "--ranks 1,2", "--channels 4,8", "--lr 0.02", "--no-overlap", "--no-cuda-graphs",
                "--rounds 2"), said);
        assertEquals(List.of(), parsed().commandLine());
    }
}
