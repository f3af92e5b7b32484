package org.mpi2nccl.doctor;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * What this machine has for the lessons: cores, memory, Java, MPJ Express, GPUs, CUDA and NCCL; what is absent
 * is said plainly with what it means. Lesson 00 shows it; {@code ./build.sh cli doctor} prints it.
 */
public final class Doctor {
    static final double GIB = 1024.0 * 1024 * 1024;

    /** The parts of the report, in order. Later lessons add theirs here. */
    public static final List<DoctorCheck> CHECKS = List.of(new MachineCheck(), new JavaCheck(), new MpjCheck(),
            new GpuCheck());

    private Doctor() {
    }

    /** Runs every check (each looks at what is installed and starts no job, so all are quick; no check throws). */
    public static MachineReport examine() {
        List<Finding> findings = new ArrayList<>();
        for (DoctorCheck c : CHECKS) {
            try {
                findings.addAll(c.run());
            } catch (RuntimeException | LinkageError e) {
                findings.add(new Finding(c.getClass().getSimpleName(), "check", Finding.Status.FAIL, "failed: " + e));
            }
        }
        return new MachineReport(findings, Runtime.getRuntime().availableProcessors(), physicalMemoryBytes(),
                Gpus.visibleCount());
    }

    /** The machine's memory in bytes (0 when the JVM cannot tell). */
    public static long physicalMemoryBytes() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize();
        }
        return 0;
    }

    static long freeMemoryBytes() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getFreeMemorySize();
        }
        return 0;
    }
}
