package org.mpi2nccl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The report commands refuse a folder that holds no run of theirs, by name and with what to do, and write nothing. */
class RunReportCommandTest {
    @TempDir
    Path dir;

    private String refused(Object command, String name) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream was = System.err;
        int rc;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            rc = new CommandLine(command).execute(dir.toString(), "--out", dir.resolve("out").toString(), "--no-charts");
        } finally {
            System.setErr(was);
        }
        String msg = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, msg);
        assertTrue(msg.startsWith(name + ": "), msg);
        assertFalse(Files.exists(dir.resolve("out")), "nothing written");
        return msg;
    }

    @Test
    void anEmptyFolderIsNoTrainSweep() {
        String msg = refused(new TrainSweepReportCommand(), "train-sweep-report");
        assertTrue(msg.contains("scripts/gpu/train-sweep.sh"), msg);
    }

    @Test
    void anEmptyFolderIsNoScalingRun() {
        refused(new ScalingReportCommand(), "scaling-report");
    }
}
