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
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream was = System.err;
        int rc;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            rc = new CommandLine(new GpuBenchCommand()).execute("--only", "gemm,gemm-cals");
        } finally {
            System.setErr(was);
        }
        String msg = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, msg);
        assertTrue(msg.contains("gemm-cals") && msg.contains("gemm-calls") && msg.contains("launch"), msg);
    }
}
