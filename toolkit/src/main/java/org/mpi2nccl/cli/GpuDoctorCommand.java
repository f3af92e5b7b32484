package org.mpi2nccl.cli;

import com.google.gson.GsonBuilder;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.cuda.Kernel;
import org.mpi2nccl.doctor.CudaReport;
import org.mpi2nccl.doctor.Finding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mpi2nccl doctor-gpu}: GPUs, driver, CUDA libraries and NCCL, and which backend runs here. */
@Command(name = "doctor-gpu", mixinStandardHelpOptions = true,
        description = "Report GPUs, driver, CUDA runtime, cuBLAS and NCCL (where found, versions, what is missing and why).")
public final class GpuDoctorCommand implements Callable<Integer> {
    @Option(names = "--json", description = "print the rows as JSON")
    boolean json;

    @Option(names = "--kernels", description = "list the project's CUDA kernels (module.cu:name, argument letters, launch shape) and exit; no GPU needed")
    boolean kernels;

    @Override
    public Integer call() {
        if (kernels) {
            for (Kernel k : Kernel.all()) System.out.println(k + " " + k.signature + " " + k.launch);
            return 0;
        }
        List<Finding> rows = CudaReport.findings();
        System.out.print(json ? new GsonBuilder().setPrettyPrinting().create().toJson(rows) + "\n" : Finding.text(rows));
        boolean failed = rows.stream().anyMatch(r -> r.status() == Finding.Status.FAIL);
        return failed ? 1 : 0;
    }
}
