package org.mpi2nccl.kernel.jshell;

import java.util.List;

/**
 * What every cell can use without an import: the JDK's everyday packages, Tablesaw and XChart for tables and
 * plots, the kernel's display API, and (on rank engines) MPJ's {@code mpi} package.
 */
public final class CommonImports {
    private CommonImports() {
    }

    /** Imports evaluated before the first cell of the kernel. */
    public static final List<String> KERNEL = List.of(
            "import java.util.*;",
            "import java.util.function.*;",
            "import java.util.stream.*;",
            "import java.io.*;",
            "import java.nio.file.*;",
            "import java.time.*;",
            "import tech.tablesaw.api.*;",
            "import org.knowm.xchart.*;",
            "import org.mpi2nccl.kernel.output.Progress;",
            "import static org.mpi2nccl.kernel.output.Display.display;",
            "import static org.mpi2nccl.kernel.output.Display.update;",
            "import static org.mpi2nccl.kernel.output.Display.html;");

    /** Imports evaluated before the first cell of a rank engine: the kernel's, and MPJ. */
    public static final List<String> RANK = concat(KERNEL, List.of("import mpi.*;"));

    private static List<String> concat(List<String> a, List<String> b) {
        java.util.ArrayList<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
