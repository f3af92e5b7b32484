package org.mpi2nccl.doctor;

import org.mpi2nccl.launch.MpjHome;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/** MPJ Express: its home (the launcher's ranks need it) and the version of the MPJ classes on the class path. */
final class MpjCheck implements DoctorCheck {
    static final String SECTION = "MPJ Express";

    @Override
    public List<Finding> run() {
        List<Finding> out = new ArrayList<>();
        try {
            MpjHome home = MpjHome.locate(null);
            out.add(Finding.ok(SECTION, "MPJ_HOME", home.dir() + " (multicore: ranks as threads of one JVM;"
                    + " niodev: a JVM per rank)"));
            String version = Files.readAllLines(home.conf()).stream().filter(l -> l.startsWith("mpjexpress.version="))
                    .map(l -> l.substring(l.indexOf('=') + 1)).findFirst().orElse("unknown");
            out.add(Finding.info(SECTION, "version", version));
        } catch (RuntimeException | java.io.IOException e) {
            out.add(new Finding(SECTION, "MPJ_HOME", Finding.Status.FAIL, e.getMessage()));
        }
        try {
            // not initialised: MPI's static set-up wants log4j, which only the ranks' class path has
            Class<?> mpi = Class.forName("mpi.MPI", false, MpjCheck.class.getClassLoader());
            out.add(Finding.ok(SECTION, "mpi.MPI", "on the class path ("
                    + mpi.getProtectionDomain().getCodeSource().getLocation().getPath() + ")"));
        } catch (ClassNotFoundException | RuntimeException | LinkageError e) {
            out.add(new Finding(SECTION, "mpi.MPI", Finding.Status.FAIL, "not on the class path: run ./build.sh setup"));
        }
        return out;
    }
}
