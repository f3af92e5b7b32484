package org.mpi2nccl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** bench-gpu's argument checks, which come before it looks for a GPU (so they run here). */
class GpuBenchCommandTest {
    @Test
    void unknownPartIsRefusedWithTheValidOnes() {
        String msg = refused("--only", "gemm,gemm-cals");
        assertTrue(msg.contains("gemm-cals") && msg.contains("gemm-calls") && msg.contains("launch"), msg);
    }

    @Test
    void aBatchSweepWithABadBatchNamesIt() {
        String msg = refused("--only", "train", "--batch", "128,0,2048");
        assertTrue(msg.contains("--batch 0") && msg.contains("128,512,2048,8192"), msg);
    }

    /** Runs bench-gpu with {@code args}, which it must refuse before looking for a GPU; returns what it printed. */
    private static String refused(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream was = System.err;
        int rc;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            rc = new CommandLine(new GpuBenchCommand()).execute(args);
        } finally {
            System.setErr(was);
        }
        String msg = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, msg);
        return msg;
    }
}
