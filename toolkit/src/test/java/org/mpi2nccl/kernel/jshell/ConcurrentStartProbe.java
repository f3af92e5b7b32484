package org.mpi2nccl.kernel.jshell;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Run in a fresh JVM by {@link JShellClassPathTest}: starts N evaluators at once, each with a jar that is not on
 * this JVM's class path, and prints one line per evaluator: "ok" when the jar's package can be imported, else the
 * error. A fresh JVM because the race it checks lives in JShell's first, cold start.
 *
 * <p>Arguments: N, the jar, the package to import from it.
 */
public final class ConcurrentStartProbe {
    private ConcurrentStartProbe() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        String jar = args[1];
        String pkg = args[2];
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<String>> starts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            starts.add(pool.submit(() -> {
                try (JShellEvaluator e = JShellEvaluator.start(ClassLoader.getSystemClassLoader(), List.of(jar),
                        List.of("import " + pkg + ".*;"))) {
                    return "ok";
                } catch (CellError e) {
                    return "lost the class path: " + e.getMessage();
                }
            }));
        }
        for (Future<String> f : starts) {
            System.out.println(f.get());
        }
        pool.shutdown();
        System.exit(0); // JShell's indexer thread may still be walking the jars
    }
}
