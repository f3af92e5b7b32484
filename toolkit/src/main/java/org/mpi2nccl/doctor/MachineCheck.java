package org.mpi2nccl.doctor;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Cores, memory and operating system: what bounds how many ranks can run here at once, and how big. */
final class MachineCheck implements DoctorCheck {
    static final String SECTION = "Machine";

    @Override
    public List<Finding> run() {
        List<Finding> out = new ArrayList<>();
        int cores = Runtime.getRuntime().availableProcessors();
        out.add(Finding.ok(SECTION, "CPU cores", cores + " (ranks beyond " + cores + " share cores: they run, but"
                + " not at the same time)"));
        long total = Doctor.physicalMemoryBytes();
        if (total > 0) {
            out.add(Finding.ok(SECTION, "memory", String.format(Locale.ROOT, "%.1f GiB in total, %.1f GiB free",
                    total / Doctor.GIB, Doctor.freeMemoryBytes() / Doctor.GIB)));
        } else {
            out.add(new Finding(SECTION, "memory", Finding.Status.WARN, "unknown (this JVM cannot read it)"));
        }
        out.add(Finding.info(SECTION, "operating system", System.getProperty("os.name") + " "
                + System.getProperty("os.version") + " (" + System.getProperty("os.arch") + ")"));
        out.add(Finding.info(SECTION, "load", String.format(Locale.ROOT, "%.1f over the last minute on %d cores%s",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), cores,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() > cores
                        ? ": busy, timings will be slower than the machine can do" : "")));
        return out;
    }
}
