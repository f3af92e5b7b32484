package org.mpi2nccl.doctor;

/**
 * One line of the machine report: what was looked at ({@code section}, {@code item}), how it came out, and the
 * detail a student needs, including what to do when something is missing.
 */
public record Finding(String section, String item, Status status, String detail) {
    /** OK: present and usable. INFO: worth knowing. MISSING: absent (said plainly, with what it means). */
    public enum Status { OK, INFO, WARN, MISSING, FAIL }

    public static Finding ok(String section, String item, String detail) {
        return new Finding(section, item, Status.OK, detail);
    }

    public static Finding info(String section, String item, String detail) {
        return new Finding(section, item, Status.INFO, detail);
    }

    public static Finding missing(String section, String item, String detail) {
        return new Finding(section, item, Status.MISSING, detail);
    }

    /** Findings as an aligned text table, a heading line per section (for a terminal). */
    public static String text(java.util.List<Finding> findings) {
        int w = findings.stream().mapToInt(f -> f.item().length()).max().orElse(10);
        StringBuilder sb = new StringBuilder();
        String section = null;
        for (Finding f : findings) {
            if (!f.section().equals(section)) {
                section = f.section();
                sb.append(section).append('\n');
            }
            sb.append(String.format("  %-7s %-" + w + "s  %s%n", f.status(), f.item(), f.detail()));
        }
        return sb.toString();
    }
}
