package org.mpi2nccl.tensor;

import java.util.Locale;

/**
 * Where an array lives: the CPU, or one CUDA GPU by index. A device is a plain value; its {@link Backend}
 * (the code that computes there) is looked up through {@link Backends}, so this package does not depend on
 * the CUDA code.
 */
public record Device(Kind kind, int index) {

    /** The kinds of device the toolkit knows. */
    public enum Kind { CPU, CUDA }

    public Device {
        if (kind == null) throw new IllegalArgumentException("device kind must not be null");
        if (index < 0) throw new IllegalArgumentException("device index must be >= 0, got " + index);
        if (kind == Kind.CPU && index != 0) throw new IllegalArgumentException("there is only one CPU device (index 0), got " + index);
    }

    private static final Device CPU = new Device(Kind.CPU, 0);

    public static Device cpu() { return CPU; }

    public static Device cuda(int index) { return new Device(Kind.CUDA, index); }

    /** Parses "cpu", "cuda" (= cuda:0) or "cuda:N", as printed by {@link #toString()}. */
    public static Device parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("cpu")) return CPU;
        if (t.equals("cuda") || t.equals("gpu")) return cuda(0);
        if (t.startsWith("cuda:")) {
            try {
                return cuda(Integer.parseInt(t.substring(5)));
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("unknown device '" + text + "': use cpu, cuda or cuda:N");
    }

    /** The backend computing on this device (loaded on first use; fails with the reason if unavailable). */
    public Backend backend() { return Backends.get(this); }

    public boolean isCpu() { return kind == Kind.CPU; }

    @Override
    public String toString() { return kind == Kind.CPU ? "cpu" : "cuda:" + index; }
}
