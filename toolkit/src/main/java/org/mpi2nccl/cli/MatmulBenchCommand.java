package org.mpi2nccl.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * float32 GEMM throughput of a device through NDArray.matmul, next to NumPy (Debian's python3-numpy, which
 * calls the system's libblas.so.3 — OpenBLAS) timed in the same run on the same matrices' size.
 */
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
    public Integer call() throws Exception {
        Device dev = Device.parse(device);
        System.out.println("device: " + dev + " — " + dev.backend().describe());
        double flops = 2.0 * n * n * n;
        double best = Double.MAX_VALUE, sum = 0;
        try (ArrayScope scope = ArrayScope.open()) {
            Rng rng = new Rng(1);
            NDArray a = NDArray.uniform(dev, rng, -1, 1, n, n), b = NDArray.uniform(dev, rng, -1, 1, n, n);
            a.matmul(b).close(); // warm-up: JIT, BLAS threads
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
        double ours = flops / best / 1e9;
        System.out.printf(Locale.ROOT, "toolkit matmul %dx%dx%d: best %.2f ms, mean %.2f ms -> %.1f GFLOP/s%n",
                n, n, n, best * 1e3, sum / repeat * 1e3, ours);
        if (!python.equals("none")) {
            Double ref = numpy();
            if (ref != null)
                System.out.printf(Locale.ROOT, "numpy (%s) matmul: %.1f GFLOP/s -> toolkit / numpy = %.2f%n", python, ref, ours / ref);
        }
        return 0;
    }

    private Double numpy() {
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
            String out;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                out = r.lines().reduce("", (x, y) -> x + y + "\n").trim();
            }
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
            return Double.parseDouble(lines[lines.length - 1]);
        } catch (Exception e) {
            System.out.println("numpy reference not available: " + e.getMessage());
            return null;
        }
    }
}
