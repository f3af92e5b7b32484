package org.mpi2nccl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * float32 GEMM throughput of a device through NDArray.matmul, and of NumPy (Debian's python3-numpy, which calls
 * the system's libblas.so.3, OpenBLAS) on matrices of the same size: how far the toolkit's tensors are from the
 * BLAS a Python student would use ({@code mpi2nccl bench-matmul}).
 */
public final class MatmulBench {
    private MatmulBench() {}

    /** Best and mean time of one n x n x n matmul, and GFLOP/s at the best. */
    public record Timing(double bestSeconds, double meanSeconds, double gflops) {}

    /** Times {@code repeat} matmuls of two n x n matrices on {@code dev}, after one untimed (JIT, BLAS threads). */
    public static Timing toolkit(Device dev, int n, int repeat) {
        double best = Double.MAX_VALUE, sum = 0;
        try (ArrayScope scope = ArrayScope.open()) {
            Rng rng = new Rng(1);
            NDArray a = NDArray.uniform(dev, rng, -1, 1, n, n), b = NDArray.uniform(dev, rng, -1, 1, n, n);
            a.matmul(b).close();
            dev.backend().synchronize();
            for (int i = 0; i < repeat; i++) {
                long t = System.nanoTime();
                a.matmul(b).close();
                dev.backend().synchronize();
                double s = (System.nanoTime() - t) / 1e9;
                best = Math.min(best, s);
                sum += s;
            }
        }
        return new Timing(best, sum / repeat, 2.0 * n * n * n / best / 1e9);
    }

    /** NumPy's best GFLOP/s over {@code repeat} matmuls, run by {@code python}; null (with the reason printed) where it cannot run. */
    public static Double numpy(String python, int n, int repeat) {
        String script = "import numpy as np, time\n"
                + "n=" + n + "; r=" + repeat + "\n"
                + "a=np.random.rand(n,n).astype(np.float32); b=np.random.rand(n,n).astype(np.float32); a@b\n"
                + "best=min((lambda t: (a@b, time.perf_counter()-t)[1])(time.perf_counter()) for _ in range(r))\n"
                + "print(2*n**3/best/1e9)\n";
        try {
            ProcessBuilder pb = new ProcessBuilder(python, "-c", script).redirectErrorStream(true);
            // NumPy's OpenBLAS at its best: its own threads, whatever this JVM was told
            pb.environment().remove("OPENBLAS_NUM_THREADS");
            pb.environment().remove("OMP_NUM_THREADS");
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                System.out.println("numpy reference: timed out after 300 s");
                return null;
            }
            if (p.exitValue() != 0) {
                System.out.println("numpy reference not available (" + python + " exited " + p.exitValue() + "): " + out);
                return null;
            }
            String[] lines = out.split("\n");
            return Double.parseDouble(lines[lines.length - 1].trim());
        } catch (IOException | InterruptedException | NumberFormatException e) {
            System.out.println("numpy reference not available: " + e.getMessage());
            return null;
        }
    }
}
