package org.mpi2nccl.cli;

import java.util.Locale;
import java.util.concurrent.Callable;
import org.mpi2nccl.bench.MatmulBench;
import org.mpi2nccl.tensor.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mpi2nccl bench-matmul}: {@link MatmulBench} on a device, next to NumPy's OpenBLAS timed in the same run. */
@Command(name = "bench-matmul", mixinStandardHelpOptions = true,
        description = "GFLOP/s of an n x n x n float32 matmul on a device, and of NumPy's OpenBLAS in the same run.")
public final class MatmulBenchCommand implements Callable<Integer> {

    @Option(names = "--size", description = "matrix size n (default ${DEFAULT-VALUE})", defaultValue = "1024")
    int n;

    @Option(names = "--repeat", description = "timed repetitions, best-of is reported (default ${DEFAULT-VALUE})", defaultValue = "10")
    int repeat;

    @Option(names = "--device", description = "cpu, cuda or cuda:N (default ${DEFAULT-VALUE})", defaultValue = "cpu")
    String device;

    @Option(names = "--python", description = "Python with NumPy for the reference (default ${DEFAULT-VALUE}; 'none' to skip)",
            defaultValue = "/usr/bin/python3")
    String python;

    @Override
    public Integer call() {
        Device dev = Device.parse(device);
        System.out.println("device: " + dev + " — " + dev.backend().describe());
        MatmulBench.Timing t = MatmulBench.toolkit(dev, n, repeat);
        System.out.printf(Locale.ROOT, "toolkit matmul %dx%dx%d: best %.2f ms, mean %.2f ms -> %.1f GFLOP/s%n",
                n, n, n, t.bestSeconds() * 1e3, t.meanSeconds() * 1e3, t.gflops());
        if (!python.equals("none")) {
            Double ref = MatmulBench.numpy(python, n, repeat);
            if (ref != null)
                System.out.printf(Locale.ROOT, "numpy (%s) matmul: %.1f GFLOP/s -> toolkit / numpy = %.2f%n", python, ref, t.gflops() / ref);
        }
        return 0;
    }
}
