package org.mpi2nccl.kernel.mpj;

import java.util.ArrayList;
import java.util.List;

/**
 * Options for the rank engines' JVMs: {@link #defaults()}, then the system property {@value #PROPERTY}
 * (space-separated, e.g. {@code -Dmpi2nccl.engine.jvmArgs=-Xmx2g} in the kernelspec; a later option wins, so
 * {@code -XX:TieredStopAtLevel=4} there brings C2 back).
 */
final class EngineJvmOptions {
    static final String PROPERTY = "mpi2nccl.engine.jvmArgs";
    static final int FEW_CORES = 4;

    private EngineJvmOptions() {
    }

    static List<String> fromProperty() {
        List<String> args = new ArrayList<>(defaults());
        String s = System.getProperty(PROPERTY, "").trim();
        if (!s.isEmpty()) {
            args.addAll(List.of(s.split("\\s+")));
        }
        return args;
    }

    /**
     * On a machine with few cores, engines compile with C1 only. An engine spends its first seconds in javac
     * (JShell compiling the imports on every rank), and C2 compiling javac's hot methods takes CPU from the ranks
     * on the same few cores, at start and again in the first cells. Notebook cells are too short for C2's faster
     * code to pay back its compile time there. With more cores the compiler threads
     * run beside the ranks, so C2 stays.
     */
    static List<String> defaults() {
        return Runtime.getRuntime().availableProcessors() <= FEW_CORES ? List.of("-XX:TieredStopAtLevel=1") : List.of();
    }
}
