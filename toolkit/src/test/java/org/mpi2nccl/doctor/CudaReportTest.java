package org.mpi2nccl.doctor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.Cuda;

/** The GPU report without a GPU (this CI machine): it says so plainly and that the CPU is chosen. */
class CudaReportTest {
    @Test
    void withoutAGpuTheReportSaysTheCpuIsChosen() {
        if (Cuda.isAvailable()) {
            System.out.println("GPU present: the no-GPU report is not testable here: skipped");
            Assumptions.assumeFalse(true, "GPU present: the no-GPU report is not testable here");
        }
        List<Finding> rows = CudaReport.findings();
        String text = Finding.text(rows);
        System.out.println(text);
        assertTrue(text.contains("no GPU"), text);
        assertTrue(text.contains("CPU backend"), text);
        assertTrue(rows.stream().anyMatch(r -> r.item().contains("libcuda.so.1")), text);
    }
}
