package org.mpi2nccl.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The Java running this code: version, vendor, heap limit, and JShell (the notebook kernel needs it). */
final class JavaCheck implements DoctorCheck {
    static final String SECTION = "Java";

    @Override
    public List<Finding> run() {
        List<Finding> out = new ArrayList<>();
        Runtime.Version v = Runtime.version();
        out.add(new Finding(SECTION, "version", v.feature() >= 17 ? Finding.Status.OK : Finding.Status.FAIL,
                v + " from " + System.getProperty("java.vendor") + " in " + System.getProperty("java.home")
                        + (v.feature() >= 17 ? "" : ": the toolkit needs Java 17 or newer")));
        out.add(Finding.info(SECTION, "heap limit", String.format(Locale.ROOT, "%.1f GiB for this JVM (-Xmx)",
                Runtime.getRuntime().maxMemory() / Doctor.GIB)));
        boolean jshell = ModuleLayer.boot().findModule("jdk.jshell").isPresent();
        out.add(jshell ? Finding.ok(SECTION, "JShell", "present: Java cells can be evaluated")
                : Finding.missing(SECTION, "JShell", "module jdk.jshell is missing: the notebook kernel needs a full JDK"));
        return out;
    }
}
