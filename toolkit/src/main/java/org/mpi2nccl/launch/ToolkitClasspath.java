package org.mpi2nccl.launch;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where the toolkit's classes, the core's and gson come from: what a boot JVM (rank boot, daemon lifeline) needs. */
final class ToolkitClasspath {
    private ToolkitClasspath() {}

    static List<String> entries() {
        List<String> cp = new ArrayList<>();
        for (Class<?> c : List.of(ToolkitClasspath.class, org.mpi2nccl.comm.Communicator.class, com.google.gson.Gson.class)) {
            try {
                String loc = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
                if (!cp.contains(loc)) cp.add(loc);
            } catch (Exception e) {
                throw new MpjLaunchException("cannot find the toolkit's jar (" + c.getName() + "): " + e.getMessage()
                        + ": run the launcher from the toolkit jar or its classes");
            }
        }
        return cp;
    }

    static String joined() {
        return String.join(File.pathSeparator, entries());
    }
}
