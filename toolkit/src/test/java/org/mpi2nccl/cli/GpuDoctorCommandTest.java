package org.mpi2nccl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.Kernel;
import picocli.CommandLine;

/** doctor-gpu --kernels: every kernel, as the sanitizer script reads it; no GPU needed. */
class GpuDoctorCommandTest {
    @Test
    void listsEveryKernelForTheSanitizerScript() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream was = System.out;
        int rc;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            rc = new CommandLine(new GpuDoctorCommand()).execute("--kernels");
        } finally {
            System.setOut(was);
        }
        assertEquals(0, rc);
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(Kernel.all().size(), lines.size());
        for (Kernel k : Kernel.all()) {
            assertTrue(lines.contains(k + " " + k.signature + " " + k.launch), k + " missing from " + lines);
        }
    }
}
