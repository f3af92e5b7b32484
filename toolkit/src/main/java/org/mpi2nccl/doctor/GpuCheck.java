package org.mpi2nccl.doctor;

import java.util.ArrayList;
import java.util.List;

/**
 * GPUs, the CUDA driver and libraries, NCCL: how many GPUs the driver lists, then {@link CudaReport}. On a
 * machine without GPUs it says so plainly and everything else still works on the CPU.
 */
final class GpuCheck implements DoctorCheck {
    @Override
    public List<Finding> run() {
        List<Finding> out = new ArrayList<>();
        out.add(Finding.info("GPU", "GPUs the driver lists", Gpus.visibleCount() == 0
                ? "none (no NVIDIA driver, or no GPU in this machine): lessons run on the CPU"
                : Gpus.visibleCount() + " (rank engines use one each: rank k gets GPU localRank % count)"));
        try {
            out.addAll(CudaReport.findings());
        } catch (RuntimeException | LinkageError e) {
            out.add(new Finding("GPU", "CUDA report", Finding.Status.FAIL, "could not be made: " + e));
        }
        return out;
    }
}
